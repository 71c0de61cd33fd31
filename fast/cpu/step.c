/* The multi-tensor steps of the fast CPU backend (spec/fast.md): validation as the reference
 * validates (nothing written on error), the per-step scalars in binary64 rounded once to
 * binary32, and the threads: every tensor is cut into chunks of OC_FAST_CHUNK elements, the
 * chunks of all tensors are shared among the OpenMP threads (FAST-MT-1). Element-wise
 * results do not depend on the cut, the thread count or the instruction set (FAST-DET-1), and
 * stay within the fp32 class of the families' tolerances (checked by the vectors and, along
 * multi-step trajectories, by LAYOUT-INV-2). */
#include <math.h>
#include <stdlib.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "internal.h"

static const oc_fast_opts default_opts = {1.0f, 1.0f, OC_FAST_MODEL_NONE};

oc_fast_opts oc_fast_opts_default(void) { return default_opts; }

static oc_status check_opts(const oc_fast_opts *o)
{
    if (!(o->inv_scale > 0.0f && o->inv_scale <= 0x1.fffffep+127f) ||
        !(o->clip_coeff >= 0.0f && o->clip_coeff <= 0x1.fffffep+127f))
        return OC_ERR_BAD_HPARAM;
    if ((unsigned)o->model > OC_FAST_MODEL_FP16)
        return OC_ERR_UNSUPPORTED;
    return OC_OK;
}

/* FAST-ERR-1: buffers of every tensor present, aligned, pairwise disjoint within the tensor. `states`
 * is the number of state tensors the step reads and writes. */
static oc_status check_tensors(size_t nt, const oc_fast_tensor *t, int states,
                               const oc_fast_opts *o)
{
    if (nt > 0 && t == NULL)
        return OC_ERR_NULL_POINTER;
    for (size_t i = 0; i < nt; i++) {
        size_t n = t[i].n, fb = n * sizeof(float);
        const void *b[6] = {t[i].param, t[i].grad, t[i].state[0], t[i].state[1], t[i].state[2],
                            NULL};
        size_t bytes[6] = {fb, fb, fb, fb, fb, fb}, align[6] = {4, 4, 4, 4, 4, 4};
        int nb = 2 + states;
        if (o->model != OC_FAST_MODEL_NONE && t[i].model) {
            b[nb] = t[i].model;
            bytes[nb] = n * sizeof(uint16_t);
            align[nb++] = sizeof(uint16_t);
        }
        if (n > SIZE_MAX / sizeof(float))
            return OC_ERR_BAD_HPARAM;
        for (int k = 0; k < nb; k++) {
            oc_status st = oc_buffer_check(b[k], n, align[k]);
            for (int j = 0; j < k && st == OC_OK; j++)
                st = oc_buffer_disjoint(b[j], bytes[j], b[k], bytes[k]);
            if (st != OC_OK)
                return st;
        }
    }
    return OC_OK;
}

/* FAST-ERR-1 for one call: the family's own check (hp_status), the options, the tensors. */
static oc_status check_call(oc_status hp_status, const oc_fast_opts *o, size_t nt,
                            const oc_fast_tensor *t, int states)
{
    oc_status st = hp_status == OC_OK ? check_opts(o) : hp_status;
    return st == OC_OK ? check_tensors(nt, t, states, o) : st;
}

typedef unsigned (*range_fn)(const void *ctx, const oc_fast_range *r);

typedef struct chunk {
    size_t tensor, off, len;
} chunk;

/* The chunks of all tensors in order; *count of them. NULL with *count 0 when there are none,
 * NULL with *count != 0 when allocation failed. */
static chunk *chunks_of(size_t nt, const oc_fast_tensor *t, size_t *count)
{
    size_t c = 0;
    for (size_t i = 0; i < nt; i++)
        c += (t[i].n + OC_FAST_CHUNK - 1) / OC_FAST_CHUNK;
    *count = c;
    if (c == 0)
        return NULL;
    chunk *ch = malloc(c * sizeof *ch);
    if (!ch)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < nt; i++)
        for (size_t off = 0; off < t[i].n; off += OC_FAST_CHUNK)
            ch[k++] = (chunk){i, off, t[i].n - off < OC_FAST_CHUNK ? t[i].n - off : OC_FAST_CHUNK};
    return ch;
}

static oc_fast_range range_of(const oc_fast_tensor *t, const chunk *c, const oc_fast_opts *o)
{
    size_t k = c->off;
    return (oc_fast_range){c->len, t->param + k, t->grad + k,
                           t->state[0] ? t->state[0] + k : NULL,
                           t->state[1] ? t->state[1] + k : NULL,
                           t->state[2] ? t->state[2] + k : NULL,
                           t->model && o->model != OC_FAST_MODEL_NONE ? t->model + k : NULL,
                           (int)o->model, o->inv_scale, o->clip_coeff};
}

/* FAST-MT-1: all chunks of all tensors, shared among the threads. */
static oc_status for_each_chunk(size_t nt, const oc_fast_tensor *t, const oc_fast_opts *o,
                                range_fn f, const void *ctx, int *found_nonfinite)
{
    size_t count;
    chunk *ch = chunks_of(nt, t, &count);
    if (!ch && count)
        return OC_ERR_INTERNAL; /* out of memory; nothing was written */
    unsigned bad = 0;
    long long nc = (long long)count;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad) if (nc > 2)
    for (long long k = 0; k < nc; k++) {
        oc_fast_range r = range_of(&t[ch[k].tensor], &ch[k], o);
        bad |= f(ctx, &r);
    }
    free(ch);
    if (found_nonfinite)
        *found_nonfinite = bad != 0;
    return OC_OK;
}

/* ---- Adam ---- */

typedef struct adam_ctx {
    oc_fast_adam_coef c;
    int amsgrad;
    const oc_fast_kernels *k;
} adam_ctx;

static unsigned adam_range(const void *ctx, const oc_fast_range *r)
{
    const adam_ctx *a = ctx;
    return a->k->adam(&a->c, a->amsgrad, r);
}

/* The per-step scalars of ADAM-BC-1, ADAM-WD-*, ADAM-PROF-* in binary64, rounded once. */
static oc_fast_adam_coef adam_coef(const oc_adam_hparams *hp, int64_t step)
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

oc_status oc_fast_adam_step(const oc_adam_hparams *hp, int64_t step, const oc_fast_opts *o,
                            size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = o ? o : &default_opts;
    oc_status st = check_call(oc_adam_check(hp, step), o, nt, t, hp->amsgrad ? 3 : 2);
    if (st != OC_OK)
        return st;
    adam_ctx a = {adam_coef(hp, step), hp->amsgrad != 0, oc_fast_kernels_active()};
    return for_each_chunk(nt, t, o, adam_range, &a, found_nonfinite);
}

/* ---- SGD ---- */

typedef struct sgd_ctx {
    oc_fast_sgd_coef c;
    oc_fast_sgd_kind kind;
    const oc_fast_kernels *k;
} sgd_ctx;

static unsigned sgd_range(const void *ctx, const oc_fast_range *r)
{
    const sgd_ctx *s = ctx;
    return s->k->sgd(&s->c, s->kind, r);
}

oc_status oc_fast_sgd_step(const oc_sgd_hparams *hp, int64_t step, const oc_fast_opts *o,
                           size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = o ? o : &default_opts;
    int momentum = hp->momentum != 0.0;
    oc_status st = check_call(oc_sgd_check(hp, step), o, nt, t, momentum);
    if (st != OC_OK)
        return st;
    int ema = hp->profile == OC_SGD_EMA;
    sgd_ctx s = {
        .c = {.lr = (float)hp->lr, .mom = (float)hp->momentum,
              .keep = ema ? (float)hp->momentum : (float)(1.0 - hp->dampening),
              .take = ema ? (float)(1.0 - hp->momentum) : 0.0f,
              .l2 = ema ? 0.0f : (float)hp->weight_decay,
              .decay = ema ? (float)(hp->lr * hp->weight_decay) : 0.0f,
              .neg = hp->maximize ? -1.0f : 1.0f},
        .kind = {ema, momentum, step == 1, hp->nesterov != 0},
        .k = oc_fast_kernels_active()};
    return for_each_chunk(nt, t, o, sgd_range, &s, found_nonfinite);
}

/* ---- Lion ---- */

typedef struct lion_ctx {
    oc_fast_lion_coef c;
    const oc_fast_kernels *k;
} lion_ctx;

static unsigned lion_range(const void *ctx, const oc_fast_range *r)
{
    const lion_ctx *l = ctx;
    return l->k->lion(&l->c, r);
}

oc_status oc_fast_lion_step(const oc_lion_hparams *hp, int64_t step, const oc_fast_opts *o,
                            size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = o ? o : &default_opts;
    oc_status st = check_call(oc_lion_check(hp, step), o, nt, t, 1);
    if (st != OC_OK)
        return st;
    lion_ctx l = {{(float)hp->lr, (float)hp->beta1, (float)(1.0 - hp->beta1), (float)hp->beta2,
                   (float)(1.0 - hp->beta2), (float)(hp->lr * hp->weight_decay)},
                  oc_fast_kernels_active()};
    return for_each_chunk(nt, t, o, lion_range, &l, found_nonfinite);
}

/* ---- FAST-NORM-1 ---- */

oc_status oc_fast_grad_sumsq(size_t nt, const oc_fast_tensor *t, float inv_scale,
                             double *per_tensor, double *total, int *found_nonfinite)
{
    if (!total || !found_nonfinite || (nt > 0 && !t))
        return OC_ERR_NULL_POINTER;
    if (!(inv_scale > 0.0f && inv_scale <= 0x1.fffffep+127f))
        return OC_ERR_BAD_HPARAM;
    for (size_t i = 0; i < nt; i++) {
        oc_status st = oc_buffer_check(t[i].grad, t[i].n, sizeof(float));
        if (st != OC_OK)
            return st;
    }
    size_t count;
    chunk *ch = chunks_of(nt, t, &count);
    double *part = count ? malloc(count * sizeof *part) : NULL;
    if (count && (!ch || !part)) {
        free(ch);
        free(part);
        return OC_ERR_INTERNAL; /* out of memory */
    }
    const oc_fast_kernels *k = oc_fast_kernels_active();
    long long nc = (long long)count;
#pragma omp parallel for schedule(dynamic, 1) if (nc > 2)
    for (long long c = 0; c < nc; c++)
        part[c] = k->sumsq(ch[c].len, t[ch[c].tensor].grad + ch[c].off, inv_scale);
    double sum = 0.0;
    size_t c = 0;
    for (size_t i = 0; i < nt; i++) {
        double s = 0.0;
        for (; c < count && ch[c].tensor == i; c++)
            s += part[c];
        if (per_tensor)
            per_tensor[i] = s;
        sum += s;
    }
    free(ch);
    free(part);
    *total = sum;
    *found_nonfinite = !isfinite(sum);
    return OC_OK;
}
