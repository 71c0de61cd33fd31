/* The guarded chained step in the fast CPU backend (spec/fast.md FAST-STEP-1, FAST-STEP-2,
 * spec/guarded_step.md STEP-*): the reference's checks (oc_guarded_step_check) before anything is
 * written, then STEP-ORDER-1 in two passes over the memory when the 2-norm of the unscaled
 * gradients is finite (FAST-STEP-2: the norm pass, then one fused pass per sub-optimizer that
 * unscales, clips, steps and writes the gradient back), else composed from the backend's
 * passes (FAST-STEP-1): the fused unscale and non-finite check, the loss-scale update
 * (FAST-LS-1), the global norm and clipping pass (FAST-CLIP-1) and the multi-tensor
 * element-wise steps of each sub-optimizer. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "optcert/fast.h"
#include "internal.h"
#include "../common/fast_families.h"

/* 1 if a gradient of the views is NaN (the inf-norm's max ignores it). */
static int any_nan(size_t nviews, const oc_clip_view *views)
{
    for (size_t i = 0; i < nviews; i++)
        for (size_t j = 0; j < views[i].length; j++)
            if (isnan(views[i].grad[j]))
                return 1;
    return 0;
}

/* STEP-GROUP-1: whether parameter `at` of the chain (the sub-optimizers' in order) is in the
 * separate grad-norm group 'mtp'. */
static int in_mtp(const oc_guard_config *cfg, size_t at)
{
    return (cfg->mtp_params >> at & 1u) != 0;
}

/* The clipping views (CLIP-VIEW-1, one rank) of the gradients of the sub-optimizers in
 * `which`, those in the 'mtp' group if `mtp`, else the others; returns their count. */
static size_t views_of(const oc_guard_config *cfg, size_t nsub, oc_sub_optimizer *subs,
                       unsigned which, int mtp, oc_clip_view *views)
{
    size_t nviews = 0, at = 0;
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; i < subs[k].nparams; i++, at++)
            if ((which >> k & 1u) && in_mtp(cfg, at) == mtp)
                views[nviews++] = (oc_clip_view){0, 0, 0, (int32_t)k, 0, 0, subs[k].params[i].n,
                                                 subs[k].params[i].grad};
    return nviews;
}

/* STEP-CLIP-1, STEP-CLIP-2, STEP-GROUP-1, STEP-NONFINITE-1: the main norm over the
 * sub-optimizers in `which` and the 'mtp' group's own norm; every gradient of a sub-optimizer
 * whose clip_grad is > 0 multiplied by the coefficient of that clip_grad against its group's
 * norm (CLIP-COEF-1, CLIP-DISABLE-1). */
static oc_status norm_and_clip(const oc_guard_config *cfg, const oc_clip_config *cc, size_t nsub,
                               oc_sub_optimizer *subs, unsigned which, float *norm)
{
    oc_clip_view views[OC_GUARD_MAX_PARAMS];
    double n[2];
    for (int mtp = 0; mtp < 2; mtp++) {
        size_t nviews = views_of(cfg, nsub, subs, which, mtp, views);
        double sum;
        oc_status st = oc_fast_clip_norm(cc, nviews, views, &sum);
        if (st != OC_OK)
            return st;
        n[mtp] = cc->inf_norm ? (any_nan(nviews, views) ? NAN : sum) : sqrt(sum);
    }
    *norm = oc_fast_to_f32(n[0]);
    for (size_t k = 0, at = 0; k < nsub; k++) {
        oc_clip_config own = *cc;
        own.max_norm = oc_guard_sub_clip_grad(cfg, k);
        for (size_t i = 0; i < subs[k].nparams; i++, at++) {
            float coeff = which >> k & 1u ? oc_fast_clip_coeff(&own, n[in_mtp(cfg, at)]) : 1.0f;
            if (coeff != 1.0f)
                oc_fast_scale(subs[k].params[i].grad, subs[k].params[i].n, coeff);
        }
    }
    return OC_OK;
}

/* STEP-TAKE-1: one multi-tensor step of the sub-optimizer with counter step + 1 (grad_back:
 * FAST-STEP-2's fused pass, o's unscaling and clipping written back over the gradients). */
static oc_status step_sub(oc_sub_optimizer *s, const oc_fast_opts *o, int grad_back)
{
    oc_fast_tensor t[OC_GUARD_MAX_PARAMS];
    int64_t next = s->step + 1;
    /* The algorithm's state layout (optcert/elementwise.h). */
    const int nstate = oc_algorithm_state_count(s->kind, &s->hp);
    for (size_t i = 0; i < s->nparams; i++) {
        oc_guarded_param *q = &s->params[i];
        t[i] = (oc_fast_tensor){q->n, q->p, q->grad, {NULL, NULL, NULL}, NULL};
        for (int j = 0; j < nstate; j++)
            t[i].state[j] = q->state[j];
    }
    oc_status st = oc_fast_sub_step(s, next, o, s->nparams, t, grad_back);
    if (st == OC_OK)
        s->step = next;
    return st;
}

/* STEP-SCALER-1, STEP-SCALER-2 with the backend's update (FAST-LS-1): the chain's one scaler
 * with any sub-optimizer's found_inf (bad: bit k for sub-optimizer k), or scaler k with
 * sub-optimizer k's; cannot fail (oc_guarded_step_check validated every state). */
static oc_status update_scalers(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                                oc_loss_scale_state *states, size_t nsub, unsigned bad)
{
    oc_status st = OC_OK;
    if (!cfg->sub_scalers)
        return oc_fast_loss_scale_update(scaler, states, bad != 0);
    for (size_t k = 0; k < nsub && st == OC_OK; k++)
        st = oc_fast_loss_scale_update(scaler, &states[k], (bad >> k & 1u) != 0);
    return st;
}

/* FAST-STEP-2: the rest of the step once the norm pass found sum = sum of the squared unscaled
 * gradients finite: then no stored gradient is non-finite (STEP-FOUND-INF-1: found_inf = 0)
 * and each stepping sub-optimizer's pass applies STEP-UNSCALE-1 and CLIP-COEF-1 as the
 * gradient's two binary32 products (FAST-GRAD-1, the same roundings as the in-place passes)
 * and writes the result back over the gradient. */
static oc_status fused_rest(const oc_guard_config *cfg, const oc_clip_config *cc,
                            const oc_loss_scaler *scaler, oc_loss_scale_state *scaler_state,
                            size_t nsub, oc_sub_optimizer *subs, float inv, double sum,
                            int64_t *position, int64_t increment, float *grad_norm,
                            oc_step_outcome *outcome)
{
    oc_status st;
    if (cfg->mode == OC_GUARD_SCALED && (st = update_scalers(cfg, scaler, scaler_state, nsub, 0u)) != OC_OK)
        return st;
    double n = sqrt(sum);
    float norm = oc_fast_to_f32(n);
    const oc_fast_opts o = {inv, oc_fast_clip_coeff(cc, n), OC_FAST_MODEL_NONE};
    int back = o.inv_scale != 1.0f || o.clip_coeff != 1.0f;
    int norm_skip = oc_guard_norm_skips(cfg, nsub, subs, norm); /* CLIP-SKIP-1 */
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; norm_skip && i < subs[k].nparams; i++) { /* unscaled and clipped */
            if (o.inv_scale != 1.0f)
                oc_fast_scale(subs[k].params[i].grad, subs[k].params[i].n, o.inv_scale);
            if (o.clip_coeff != 1.0f)
                oc_fast_scale(subs[k].params[i].grad, subs[k].params[i].n, o.clip_coeff);
        }
    for (size_t k = 0; !norm_skip && k < nsub; k++)
        if ((st = step_sub(&subs[k], &o, back)) != OC_OK)
            return st;
    if (!norm_skip)
        *position += increment; /* STEP-SCHED-1 */
    *grad_norm = norm;          /* STEP-NORM-1: pre-clip */
    *outcome = norm_skip ? OC_STEP_SKIPPED_NORM : OC_STEP_TAKEN;
    return OC_OK;
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
    const oc_fast_opts defaults = oc_fast_opts_default();
    const int scaled = cfg->mode == OC_GUARD_SCALED;
    /* STEP-UNSCALE-1, STEP-SCALER-2: each sub-optimizer's inv_scale (the reference's stage) */
    float inv[OC_GUARD_MAX_SUBS];
    oc_guard_inverse_scales(cfg, scaler_state, nsub, inv);
    int one_scale = 1;
    for (size_t k = 1; k < nsub; k++)
        one_scale &= inv[k] == inv[0];
    const unsigned all = (unsigned)((1ull << nsub) - 1);
    if (!cc.inf_norm && !cfg->per_sub && !cfg->mtp_params && one_scale && nsub > 0) {
        /* FAST-STEP-2: one inv_scale and one coefficient */
        oc_clip_view views[OC_GUARD_MAX_PARAMS];
        double sum;
        if ((st = oc_fast_clip_norm_unscaled(&cc, views_of(cfg, nsub, subs, all, 0, views),
                                             views, inv[0], &sum)) != OC_OK)
            return st;
        if (isfinite(sum))
            return fused_rest(cfg, &cc, scaler, scaler_state, nsub, subs, inv[0], sum, position,
                              increment, grad_norm, outcome);
    }
    unsigned bad = 0;
    for (size_t k = 0; cfg->mode != OC_GUARD_UNCHECKED && k < nsub; k++)
        for (size_t i = 0; i < subs[k].nparams; i++)
            if (oc_fast_unscale_check(subs[k].params[i].grad, subs[k].params[i].n, inv[k],
                                      scaled && inv[k] != 1.0f))  /* STEP-FOUND-INF-1 */
                bad |= 1u << k;
    const int found_inf = bad != 0;
    if (scaled && (st = update_scalers(cfg, scaler, scaler_state, nsub, bad)) != OC_OK)
        return st;
    unsigned stepping = found_inf ? 0u : all;
    float norm = 0.0f;
    if (stepping != 0 && (st = norm_and_clip(cfg, &cc, nsub, subs, stepping, &norm)) != OC_OK)
        return st;
    int norm_skip = oc_guard_norm_skips(cfg, nsub, subs, norm); /* CLIP-SKIP-1, STEP-CLIP-2 */
    for (size_t k = 0; !norm_skip && k < nsub; k++)
        if ((stepping >> k & 1u) && (st = step_sub(&subs[k], &defaults, 0)) != OC_OK)
            return st;
    if (!found_inf && !norm_skip)
        *position += increment; /* STEP-SCHED-1 */
    *grad_norm = norm;          /* STEP-NORM-1: pre-clip */
    *outcome = found_inf ? OC_STEP_SKIPPED_INF : norm_skip ? OC_STEP_SKIPPED_NORM : OC_STEP_TAKEN;
    return OC_OK;
}

/* Plugin ABI v3 (VEC-ABI-1): guarded-step-megatron's entry point, every guard mode, the
 * per-sub-optimizer configurations and 'mtp' group, and the loss scaler per sub-optimizer
 * (VEC-ABI-2). */
static oc_status guarded_entry(void *ctx, const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                               oc_loss_scale_state *scaler_state, size_t nsub,
                               oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                               float *grad_norm, oc_step_outcome *outcome)
{
    (void)ctx;
    return oc_fast_guarded_step(cfg, scaler, scaler_state, nsub, subs, position, increment,
                                grad_norm, outcome);
}

const oc_fast_algorithm oc_fast_cpu_guarded_step = {
    .algorithm = "guarded-step",
    .options = "scaled unchecked checked groups scalers",
    .entry = (oc_entry_point)guarded_entry,
};
