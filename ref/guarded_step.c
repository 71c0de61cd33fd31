/* The guarded optimizer step (spec/step.md, rules STEP-*): Megatron's MixedPrecisionOptimizer /
 * ChainedOptimizer control flow around the global-norm clipping (ref/clip.c) and the
 * element-wise reference steps. Scalar C11, no allocation, no I/O, no globals. */
#include <float.h>
#include <math.h>
#include "optcert/buffers.h"
#include "optcert/clip.h"
#include "optcert/guarded_step.h"

static const char *const mutant_names[OC_GUARD_MUTANT_COUNT] = {
    "correct",
    "skip-only-offending-sub",
    "scaler-update-after-step",
    "counter-advanced-on-skip",
    "schedule-advanced-on-skip",
    "per-optimizer-norm",
    "clip-before-unscale",
};

static const char *const mutant_descriptions[OC_GUARD_MUTANT_COUNT] = {
    "the reference itself",
    "chained optimizer: only the sub-optimizer holding the inf/NaN skips, the others step",
    "the loss scaler is updated after the parameter update, so not on a skipped step",
    "the sub-optimizers' step counters advance on a skipped step",
    "the schedule position advances on a skipped step",
    "chained optimizer: each sub-optimizer clipped with the norm of its own gradients",
    "the norm and the clipping computed on the scaled gradients, before unscaling",
};

const char *oc_guard_mutant_name(oc_guard_mutant mu)
{
    return (unsigned)mu < OC_GUARD_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

const char *oc_guard_mutant_description(oc_guard_mutant mu)
{
    return (unsigned)mu < OC_GUARD_MUTANT_COUNT ? mutant_descriptions[mu] : NULL;
}

/* A parameter's buffers, the ones its sub-optimizer's step reads or writes; returns how many. */
static int param_buffers(const oc_sub_optimizer *s, const oc_guarded_param *q, const void *b[5])
{
    b[0] = q->p;
    b[1] = q->grad;
    b[2] = q->state[0];
    b[3] = q->state[1];
    b[4] = q->state[2];
    if (s->kind == OC_SUB_ADAM)
        return s->hp.adam.amsgrad ? 5 : 4;
    if (s->kind == OC_SUB_SGD)
        return s->hp.sgd.momentum != 0.0 ? 3 : 2;
    return 3;
}

/* STEP-ERR-1: the checks the sub-optimizer's own step makes (buffers present, aligned and
 * pairwise disjoint), made before anything is written, so that no step can fail halfway. */
static oc_status check_param(const oc_sub_optimizer *s, const oc_guarded_param *q)
{
    const void *b[5];
    oc_status st;
    int nb = param_buffers(s, q, b);
    for (int i = 0; i < nb; i++) {
        if ((st = oc_buffer_check(b[i], q->n, sizeof(float))) != OC_OK)
            return st;
        for (int o = 0; o < i; o++)
            if ((st = oc_buffer_disjoint(b[o], q->n * sizeof(float), b[i],
                                         q->n * sizeof(float))) != OC_OK)
                return st;
    }
    return OC_OK;
}

/* The hyper-parameters and buffers of one sub-optimizer, for its next step (STEP-ERR-1);
 * *nparams counts the parameters of all sub-optimizers (STEP-CFG-1). */
static oc_status check_sub(const oc_sub_optimizer *s, size_t *nparams)
{
    oc_status st;
    if (s->step < 0 || s->step == INT64_MAX)
        return OC_ERR_BAD_STEP;
    int64_t next = s->step + 1;
    st = s->kind == OC_SUB_ADAM  ? oc_adam_check(&s->hp.adam, next)
         : s->kind == OC_SUB_SGD ? oc_sgd_check(&s->hp.sgd, next)
         : s->kind == OC_SUB_LION ? oc_lion_check(&s->hp.lion, next)
                                  : OC_ERR_BAD_PROFILE;
    if (st != OC_OK)
        return st;
    if (s->nparams > OC_GUARD_MAX_PARAMS - *nparams)
        return OC_ERR_BAD_HPARAM;
    *nparams += s->nparams;
    if (s->nparams > 0 && s->params == NULL)
        return OC_ERR_NULL_POINTER;
    for (size_t i = 0; i < s->nparams; i++)
        if ((st = check_param(s, &s->params[i])) != OC_OK)
            return st;
    return OC_OK;
}

/* STEP-UNSCALE-1: g *= inv_scale, with found_inf raised by a value that is not finite before
 * the multiplication (as _amp_foreach_non_finite_check_and_unscale_ checks it). An inv_scale of
 * exactly 1 leaves the value alone (the kernel's `inv_scale == 1 ? val : val * inv_scale`).
 * Returns the sub-optimizers holding a non-finite value, bit k for sub-optimizer k. */
static unsigned unscale(size_t nsub, oc_sub_optimizer *subs, float inv_scale, int scale_them)
{
    unsigned found_inf = 0;
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; i < subs[k].nparams; i++) {
            oc_guarded_param *q = &subs[k].params[i];
            for (size_t j = 0; j < q->n; j++) {
                if (!(fabsf(q->grad[j]) <= FLT_MAX))            /* STEP-FOUND-INF-1 */
                    found_inf |= 1u << k;
                if (scale_them && inv_scale != 1.0f)
                    q->grad[j] *= inv_scale;
            }
        }
    return found_inf;
}

/* STEP-CLIP-1 (ChainedOptimizer.step): one global norm over the gradients of the
 * sub-optimizers in `which` (bit k: sub-optimizer k), computed even without clipping, and with
 * clip_grad > 0 every gradient clipped with the same coefficient (ref/clip.c, profile megatron,
 * one rank: every parameter a counted view owned by its sub-optimizer; the threshold is checked
 * by the caller, after the clipping). */
static oc_status norm_and_clip(const oc_clip_config *cc, size_t nsub, oc_sub_optimizer *subs,
                               unsigned which, float *norm, oc_guard_mutant mu)
{
    oc_clip_view views[OC_GUARD_MAX_PARAMS];
    size_t nviews = 0;
    oc_clip_mutant cm = mu == OC_GUARD_MUT_PER_OPTIMIZER_NORM ? OC_CLIP_MUT_PER_OPTIMIZER_NORM
                                                               : OC_CLIP_CORRECT;
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; (which >> k & 1u) && i < subs[k].nparams; i++)
            views[nviews++] = (oc_clip_view){0, 0, 0, (int32_t)k, 0, 0, subs[k].params[i].n,
                                             subs[k].params[i].grad};
    if (!(cc->max_norm > 0))                                /* CLIP-DISABLE-1: the norm only */
        return oc_ref_clip_norm(cc, nviews, views, norm);
    return oc_ref_clip_chained(cc, nviews, views, norm, cm);
}

/* STEP-TAKE-1: the sub-optimizer's own update of every parameter with counter step + 1. */
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
        s->step = next;
    return st;
}

/* STEP-SCALER-1: the loss scaler's update with this iteration's found_inf. */
static void update_scaler(const oc_loss_scaler *scaler, oc_loss_scale_state *state, int found_inf)
{
    oc_loss_scale_state next = *state;
    if (oc_ref_loss_scale_update(scaler, &next, found_inf, OC_LS_CORRECT) == OC_OK)
        *state = next;
}

oc_clip_config oc_guard_clip_config(const oc_guard_config *cfg)
{
    return (oc_clip_config){OC_CLIP_MEGATRON, cfg->clip_grad, cfg->inf_norm, cfg->skip_threshold,
                            0, 1, 1, 1};
}

oc_status oc_guarded_step_check(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                                const oc_loss_scale_state *scaler_state, size_t nsub,
                                const oc_sub_optimizer *subs, const int64_t *position,
                                int64_t increment, const float *grad_norm,
                                const oc_step_outcome *outcome)
{
    oc_status st;
    if (cfg == NULL || position == NULL || grad_norm == NULL || outcome == NULL ||
        (nsub > 0 && subs == NULL))
        return OC_ERR_NULL_POINTER;
    if (cfg->mode == OC_GUARD_SCALED && (scaler == NULL || scaler_state == NULL))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)cfg->mode >= OC_GUARD_MODE_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (increment < 0 || *position < 0 || *position > INT64_MAX - increment)
        return OC_ERR_BAD_STEP;
    if (nsub > OC_GUARD_MAX_SUBS)
        return OC_ERR_BAD_HPARAM;
    const oc_clip_config cc = oc_guard_clip_config(cfg);
    if ((st = oc_clip_check(&cc, 0, NULL)) != OC_OK)   /* CLIP-CFG-1 */
        return st;
    size_t nparams = 0;
    for (size_t k = 0; k < nsub; k++)
        if ((st = check_sub(&subs[k], &nparams)) != OC_OK)
            return st;
    if (cfg->mode == OC_GUARD_SCALED) {
        oc_loss_scale_state copy = *scaler_state;   /* validates both, on a copy (LS-ERR-1) */
        if ((st = oc_ref_loss_scale_update(scaler, &copy, 0, OC_LS_CORRECT)) != OC_OK)
            return st;
    }
    return OC_OK;
}

oc_status oc_ref_guarded_step(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                              oc_loss_scale_state *scaler_state, size_t nsub,
                              oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                              float *grad_norm, oc_step_outcome *outcome, oc_guard_mutant mutant)
{
    if ((unsigned)mutant >= OC_GUARD_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    oc_status st = oc_guarded_step_check(cfg, scaler, scaler_state, nsub, subs, position,
                                         increment, grad_norm, outcome); /* STEP-ERR-1 */
    if (st != OC_OK)
        return st;
    const oc_clip_config cc = oc_guard_clip_config(cfg);
    /* Nothing fails from here on (STEP-ERR-1). STEP-ORDER-1: unscale and check, scaler, skip
     * or clip, step. */
    const unsigned all = (unsigned)((1ull << nsub) - 1);
    float norm = 0.0f;
    if (mutant == OC_GUARD_MUT_CLIP_BEFORE_UNSCALE &&
        (st = norm_and_clip(&cc, nsub, subs, all, &norm, mutant)) != OC_OK)
        return st;
    /* STEP-UNSCALE-1: Megatron's inv_scale = scale.double().reciprocal().float() */
    float inv = cfg->mode == OC_GUARD_SCALED ? (float)(1.0 / (double)scaler_state->scale) : 1.0f;
    unsigned bad = cfg->mode == OC_GUARD_UNCHECKED
                       ? 0u : unscale(nsub, subs, inv, cfg->mode == OC_GUARD_SCALED);
    int found_inf = bad != 0;
    if (cfg->mode == OC_GUARD_SCALED && mutant != OC_GUARD_MUT_SCALER_UPDATE_AFTER_STEP)
        update_scaler(scaler, scaler_state, found_inf);   /* STEP-SCALER-1: before any update */
    unsigned stepping = !found_inf ? all
                        : mutant == OC_GUARD_MUT_SKIP_ONLY_OFFENDING_SUB ? all & ~bad : 0u;
    if (stepping != 0 && mutant != OC_GUARD_MUT_CLIP_BEFORE_UNSCALE &&
        (st = norm_and_clip(&cc, nsub, subs, stepping, &norm, mutant)) != OC_OK)
        return st;                                          /* STEP-CLIP-1 */
    /* CLIP-SKIP-1, checked only for a finite threshold (Megatron: math.isfinite), on the
     * binary32 norm; nobody steps */
    int norm_skip = cfg->skip_threshold <= DBL_MAX && norm > cfg->skip_threshold;
    if (norm_skip)
        stepping = 0;
    for (size_t k = 0; k < nsub; k++) {
        if (stepping >> k & 1u) {
            if ((st = step_sub(&subs[k])) != OC_OK)
                return st;
        } else if (mutant == OC_GUARD_MUT_COUNTER_ADVANCED_ON_SKIP) {
            subs[k].step++;
        }
    }
    int taken = !found_inf && !norm_skip;
    if (taken && cfg->mode == OC_GUARD_SCALED && mutant == OC_GUARD_MUT_SCALER_UPDATE_AFTER_STEP)
        update_scaler(scaler, scaler_state, 0);
    if (taken || mutant == OC_GUARD_MUT_SCHEDULE_ADVANCED_ON_SKIP)
        *position += increment;                             /* STEP-SCHED-1 */
    *grad_norm = norm;                                      /* STEP-NORM-1: pre-clip */
    *outcome = found_inf ? OC_STEP_SKIPPED_INF : norm_skip ? OC_STEP_SKIPPED_NORM : OC_STEP_TAKEN;
    return OC_OK;
}
