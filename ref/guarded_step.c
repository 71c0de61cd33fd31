/* The guarded optimizer step (spec/draft/step.md, rules STEP-*): Megatron's MixedPrecisionOptimizer /
 * ChainedOptimizer control flow around the element-wise reference steps. Scalar C11, no
 * allocation, no I/O, no globals. */
#include <float.h>
#include <math.h>
#include "optcert/buffers.h"
#include "optcert/guarded_step.h"

/* The hyper-parameters and buffers of one sub-optimizer, for its next step (STEP-ERR-1). */
static oc_status check_sub(const oc_sub_optimizer *s)
{
    oc_status st;
    int64_t next = s->step + 1;
    if (s->step < 0 || s->step == INT64_MAX)
        return OC_ERR_BAD_STEP;
    st = s->kind == OC_SUB_ADAM  ? oc_adam_check(&s->hp.adam, next)
         : s->kind == OC_SUB_SGD ? oc_sgd_check(&s->hp.sgd, next)
         : s->kind == OC_SUB_LION ? oc_lion_check(&s->hp.lion, next)
                                  : OC_ERR_BAD_PROFILE;
    if (st != OC_OK)
        return st;
    if (s->nparams > 0 && s->params == NULL)
        return OC_ERR_NULL_POINTER;
    for (size_t i = 0; i < s->nparams; i++) {
        const oc_guarded_param *q = &s->params[i];
        if ((st = oc_buffer_check(q->p, q->n, sizeof(float))) != OC_OK ||
            (st = oc_buffer_check(q->grad, q->n, sizeof(float))) != OC_OK)
            return st;
    }
    return OC_OK;
}

/* STEP-UNSCALE-1: g *= inv_scale, with found_inf raised by a value that is not finite before
 * the multiplication (as _amp_foreach_non_finite_check_and_unscale_ checks it). An inv_scale of
 * exactly 1 leaves the value alone (the kernel's `inv_scale == 1 ? val : val * inv_scale`). */
static int unscale(size_t nsub, oc_sub_optimizer *subs, float inv_scale, int scale_them)
{
    int found_inf = 0;
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; i < subs[k].nparams; i++) {
            oc_guarded_param *q = &subs[k].params[i];
            for (size_t j = 0; j < q->n; j++) {
                found_inf |= !(fabsf(q->grad[j]) <= FLT_MAX);     /* STEP-FOUND-INF-1 */
                if (scale_them && inv_scale != 1.0f)
                    q->grad[j] *= inv_scale;
            }
        }
    return found_inf;
}

static oc_status step_sub(oc_sub_optimizer *s)
{
    oc_status st = OC_OK;
    int64_t next = s->step + 1;
    for (size_t i = 0; i < s->nparams && st == OC_OK; i++) {
        oc_guarded_param *q = &s->params[i];
        if (s->kind == OC_SUB_ADAM)
            st = oc_ref_adam_step(&s->hp.adam, next, q->n, q->p, q->state[0], q->state[1],
                                  q->state[2], q->grad, OC_ADAM_CORRECT);
        else if (s->kind == OC_SUB_SGD)
            st = oc_ref_sgd_step(&s->hp.sgd, next, q->n, q->p, q->state[0], q->grad,
                                 OC_SGD_CORRECT);
        else
            st = oc_ref_lion_step(&s->hp.lion, next, q->n, q->p, q->state[0], q->grad,
                                  OC_LION_CORRECT);
    }
    if (st == OC_OK)
        s->step = next;                                           /* STEP-TAKE-1 */
    return st;
}

oc_status oc_ref_guarded_step(oc_guard_mode mode, const oc_loss_scaler *scaler,
                              oc_loss_scale_state *scaler_state, size_t nsub,
                              oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                              int *skipped)
{
    oc_status st;
    if (position == NULL || skipped == NULL || (nsub > 0 && subs == NULL))
        return OC_ERR_NULL_POINTER;
    if (mode == OC_GUARD_SCALED && (scaler == NULL || scaler_state == NULL))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mode >= OC_GUARD_MODE_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (increment < 0 || *position < 0 || *position > INT64_MAX - increment)
        return OC_ERR_BAD_STEP;
    for (size_t k = 0; k < nsub; k++)
        if ((st = check_sub(&subs[k])) != OC_OK)
            return st;
    oc_loss_scale_state next_scaler = {0};
    if (mode == OC_GUARD_SCALED) {
        next_scaler = *scaler_state;                /* validates both, on a copy (LS-ERR-1) */
        if ((st = oc_ref_loss_scale_update(scaler, &next_scaler, 0, OC_LS_CORRECT)) != OC_OK)
            return st;
    }
    /* STEP-UNSCALE-1: Megatron's inv_scale = scale.double().reciprocal().float() */
    float inv = mode == OC_GUARD_SCALED ? (float)(1.0 / (double)scaler_state->scale) : 1.0f;
    int found_inf = mode == OC_GUARD_UNCHECKED ? 0 : unscale(nsub, subs, inv, mode == OC_GUARD_SCALED);
    if (mode == OC_GUARD_SCALED) {                  /* STEP-SCALER-1: before any update */
        next_scaler = *scaler_state;
        oc_ref_loss_scale_update(scaler, &next_scaler, found_inf, OC_LS_CORRECT);
        *scaler_state = next_scaler;
    }
    *skipped = found_inf;
    if (found_inf)                                  /* STEP-SKIP-1: nothing else changes */
        return OC_OK;
    for (size_t k = 0; k < nsub; k++)
        if ((st = step_sub(&subs[k])) != OC_OK)
            return st;
    *position += increment;                         /* STEP-SKIP-1: the schedule advances */
    return OC_OK;
}
