/* The guarded chained step in the fast CPU backend (spec/fast.md FAST-STEP-1, spec/step.md
 * STEP-*): the reference's checks (oc_guarded_step_check) before anything is written, then
 * STEP-ORDER-1 composed from the backend's passes: the fused unscale and non-finite check, the
 * loss-scale update (FAST-LS-1), the global norm and clipping pass (FAST-CLIP-1) and the
 * multi-tensor element-wise steps of each sub-optimizer. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "optcert/fast.h"
#include "internal.h"

/* 1 if a gradient of the sub-optimizers in `which` is NaN (the inf-norm's max ignores it). */
static int any_nan(size_t nsub, const oc_sub_optimizer *subs, unsigned which)
{
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; (which >> k & 1u) && i < subs[k].nparams; i++)
            for (size_t j = 0; j < subs[k].params[i].n; j++)
                if (isnan(subs[k].params[i].grad[j]))
                    return 1;
    return 0;
}

/* STEP-CLIP-1, STEP-NONFINITE-1: the global norm over the sub-optimizers in `which`, every
 * gradient multiplied by the coefficient when clipping is on (CLIP-COEF-1). */
static oc_status norm_and_clip(const oc_clip_config *cc, size_t nsub, oc_sub_optimizer *subs,
                               unsigned which, float *norm)
{
    oc_clip_view views[OC_GUARD_MAX_PARAMS];
    size_t nviews = 0;
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; (which >> k & 1u) && i < subs[k].nparams; i++)
            views[nviews++] = (oc_clip_view){0, 0, 0, (int32_t)k, 0, 0, subs[k].params[i].n,
                                             subs[k].params[i].grad};
    double sum;
    oc_status st = oc_fast_clip_norm(cc, nviews, views, &sum);
    if (st != OC_OK)
        return st;
    double n = cc->inf_norm ? (any_nan(nsub, subs, which) ? NAN : sum) : sqrt(sum);
    *norm = oc_fast_to_f32(n);
    float coeff = cc->max_norm > 0 ? oc_fast_clip_coeff(cc, n) : 1.0f; /* CLIP-DISABLE-1 */
    for (size_t i = 0; coeff != 1.0f && i < nviews; i++)
        oc_fast_scale(views[i].grad, views[i].length, coeff);
    return OC_OK;
}

/* STEP-TAKE-1: one multi-tensor step of the sub-optimizer with counter step + 1. */
static oc_status step_sub(oc_sub_optimizer *s)
{
    oc_fast_tensor t[OC_GUARD_MAX_PARAMS];
    int64_t next = s->step + 1;
    for (size_t i = 0; i < s->nparams; i++) {
        oc_guarded_param *q = &s->params[i];
        int nstate = s->kind == OC_SUB_ADAM  ? (s->hp.adam.amsgrad ? 3 : 2)
                     : s->kind == OC_SUB_SGD ? s->hp.sgd.momentum != 0.0
                                             : 1;
        t[i] = (oc_fast_tensor){q->n, q->p, q->grad, {NULL, NULL, NULL}, NULL};
        for (int j = 0; j < nstate; j++)
            t[i].state[j] = q->state[j];
    }
    oc_status st = s->kind == OC_SUB_ADAM ? oc_fast_adam_step(&s->hp.adam, next, NULL, s->nparams, t, NULL)
                   : s->kind == OC_SUB_SGD ? oc_fast_sgd_step(&s->hp.sgd, next, NULL, s->nparams, t, NULL)
                   : oc_fast_lion_step(&s->hp.lion, next, NULL, s->nparams, t, NULL);
    if (st == OC_OK)
        s->step = next;
    return st;
}

oc_status oc_fast_guarded_step(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                               oc_loss_scale_state *scaler_state, size_t nsub,
                               oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                               float *grad_norm, oc_step_outcome *outcome)
{
    oc_status st = oc_guarded_step_check(cfg, scaler, scaler_state, nsub, subs, position,
                                         increment, grad_norm, outcome); /* STEP-ERR-1 */
    if (st != OC_OK)
        return st;
    const oc_clip_config cc = oc_guard_clip_config(cfg);
    const int scaled = cfg->mode == OC_GUARD_SCALED;
    /* STEP-UNSCALE-1: Megatron's inv_scale = scale.double().reciprocal().float() */
    float inv = scaled ? (float)(1.0 / (double)scaler_state->scale) : 1.0f;
    int found_inf = 0;
    for (size_t k = 0; cfg->mode != OC_GUARD_UNCHECKED && k < nsub; k++)
        for (size_t i = 0; i < subs[k].nparams; i++)
            found_inf |= oc_fast_unscale_check(subs[k].params[i].grad, subs[k].params[i].n, inv,
                                               scaled && inv != 1.0f); /* STEP-FOUND-INF-1 */
    if (scaled && (st = oc_fast_loss_scale_update(scaler, scaler_state, found_inf)) != OC_OK)
        return st; /* STEP-SCALER-1 (cannot fail: checked above) */
    const unsigned all = (unsigned)((1ull << nsub) - 1);
    unsigned stepping = found_inf ? 0u : all;
    float norm = 0.0f;
    if (stepping != 0 && (st = norm_and_clip(&cc, nsub, subs, stepping, &norm)) != OC_OK)
        return st;
    int norm_skip = cfg->skip_threshold <= DBL_MAX && norm > cfg->skip_threshold; /* CLIP-SKIP-1 */
    for (size_t k = 0; !norm_skip && k < nsub; k++)
        if ((stepping >> k & 1u) && (st = step_sub(&subs[k])) != OC_OK)
            return st;
    if (!found_inf && !norm_skip)
        *position += increment; /* STEP-SCHED-1 */
    *grad_norm = norm;          /* STEP-NORM-1: pre-clip */
    *outcome = found_inf ? OC_STEP_SKIPPED_INF : norm_skip ? OC_STEP_SKIPPED_NORM : OC_STEP_TAKEN;
    return OC_OK;
}
