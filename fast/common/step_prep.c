/* Host-side preparation of a multi-tensor step (step_prep.h). */
#include <math.h>
#include "optcert/buffers.h"
#include "step_prep.h"

static oc_status check_opts(const oc_fast_opts *o)
{
    if (!(o->inv_scale > 0.0f && o->inv_scale <= 0x1.fffffep+127f) ||
        !(o->clip_coeff >= 0.0f && o->clip_coeff <= 0x1.fffffep+127f))
        return OC_ERR_BAD_HPARAM;
    if ((unsigned)o->model > OC_FAST_MODEL_FP16)
        return OC_ERR_UNSUPPORTED;
    return OC_OK;
}

/* The buffers of one tensor: param, grad, the states in use, the model copy if written. */
static oc_status check_tensor(const oc_fast_tensor *t, int states, const oc_fast_opts *o)
{
    size_t n = t->n;
    if (n > SIZE_MAX / sizeof(float))
        return OC_ERR_BAD_HPARAM;
    const void *b[6] = {t->param, t->grad, t->state[0], t->state[1], t->state[2], NULL};
    size_t bytes[6], align[6];
    int nb = 2 + states;
    for (int k = 0; k < nb; k++)
        bytes[k] = n * sizeof(float), align[k] = sizeof(float);
    if (o->model != OC_FAST_MODEL_NONE && t->model) {
        b[nb] = t->model;
        bytes[nb] = n * sizeof(uint16_t);
        align[nb++] = sizeof(uint16_t);
    }
    for (int k = 0; k < nb; k++) {
        oc_status st = oc_buffer_check(b[k], n, align[k]);
        for (int j = 0; j < k && st == OC_OK; j++)
            st = oc_buffer_disjoint(b[j], bytes[j], b[k], bytes[k]);
        if (st != OC_OK)
            return st;
    }
    return OC_OK;
}

oc_status oc_fast_prep_check(oc_status hp_status, const oc_fast_opts *o, size_t nt,
                             const oc_fast_tensor *t, int states)
{
    oc_status st = hp_status == OC_OK ? check_opts(o) : hp_status;
    if (st == OC_OK && nt > 0 && t == NULL)
        st = OC_ERR_NULL_POINTER;
    for (size_t i = 0; i < nt && st == OC_OK; i++)
        st = check_tensor(&t[i], states, o);
    return st;
}

/* ADAM-BC-1, ADAM-WD-*, ADAM-PROF-*: in binary64, rounded once. */
oc_fast_adam_coef oc_fast_prep_adam(const oc_adam_hparams *hp, int64_t step)
{
    double t = (double)step;
    double bc1 = 1.0 - pow(hp->beta1, t), bc2 = 1.0 - pow(hp->beta2, t);
    double eta = hp->profile == OC_ADAM_PAPER ? hp->schedule_multiplier : 1.0;
    double decay_lr = hp->profile == OC_ADAM_PAPER ? eta : hp->lr;
    int keras = hp->profile == OC_ADAM_KERAS;
    double step_size = eta * hp->lr / bc1 * (keras ? sqrt(bc2) : 1.0);
    return (oc_fast_adam_coef){
        .b1 = (float)hp->beta1, .omb1 = (float)(1.0 - hp->beta1),
        .b2 = (float)hp->beta2, .omb2 = (float)(1.0 - hp->beta2),
        .l2 = hp->decoupled ? 0.0f : (float)hp->weight_decay,
        .decay = hp->decoupled ? (float)(decay_lr * hp->weight_decay) : 0.0f,
        .step = (float)step_size,
        .inv_bc2 = keras ? 1.0f : (float)(1.0 / bc2),
        .eps = (float)hp->eps, .eps_root = (float)hp->eps_root,
        .neg = hp->maximize ? -1.0f : 1.0f};
}

/* SGD-PROF-TORCH / SGD-PROF-EMA scalars. */
oc_fast_sgd_coef oc_fast_prep_sgd(const oc_sgd_hparams *hp)
{
    int ema = hp->profile == OC_SGD_EMA;
    return (oc_fast_sgd_coef){
        .lr = (float)hp->lr, .mom = (float)hp->momentum,
        .keep = ema ? (float)hp->momentum : (float)(1.0 - hp->dampening),
        .take = ema ? (float)(1.0 - hp->momentum) : 0.0f,
        .l2 = ema ? 0.0f : (float)hp->weight_decay,
        .decay = ema ? (float)(hp->lr * hp->weight_decay) : 0.0f,
        .neg = hp->maximize ? -1.0f : 1.0f};
}

/* LION-* scalars (decay = lr*wd, LION-WD-1). */
oc_fast_lion_coef oc_fast_prep_lion(const oc_lion_hparams *hp)
{
    return (oc_fast_lion_coef){(float)hp->lr, (float)hp->beta1, (float)(1.0 - hp->beta1),
                               (float)hp->beta2, (float)(1.0 - hp->beta2),
                               (float)(hp->lr * hp->weight_decay)};
}
