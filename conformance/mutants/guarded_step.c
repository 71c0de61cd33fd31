/* Guarded-step mutants (spec/guarded_step.md §3): the reference's stages (oc_guard_unscale,
 * oc_guard_norm_and_clip, oc_guard_step_subs, oc_guard_update_scalers) in the order of
 * STEP-ORDER-1, with the one the mistake concerns done the mistaken way. */
#include "guarded_step.h"

static const char *const names[OC_GUARD_MUTANT_COUNT] = {
    "correct",
    "skip-only-offending-sub",
    "scaler-update-after-step",
    "counter-advanced-on-skip",
    "schedule-advanced-on-skip",
    "per-optimizer-norm",
    "clip-before-unscale",
    "mtp-in-main-norm",
    "first-sub-config",
    "skip-without-main-params",
    "one-scaler-for-chain",
};

static const char *const descriptions[OC_GUARD_MUTANT_COUNT] = {
    "the reference itself",
    "chained optimizer: only the sub-optimizer holding the inf/NaN skips, the others step",
    "the loss scaler is updated after the parameter update, so not on a skipped step",
    "the sub-optimizers' step counters advance on a skipped step",
    "the schedule position advances on a skipped step",
    "chained optimizer: each sub-optimizer clipped with the norm of its own gradients",
    "the norm and the clipping computed on the scaled gradients, before unscaling",
    "Megatron's separate grad-norm group 'mtp' ignored: its gradients in the main norm, "
    "clipped with it",
    "chained optimizer: every sub-optimizer clips and skips with the first one's clip_grad and "
    "grad_norm_skip_threshold",
    "chained optimizer: a sub-optimizer without parameters in the main norm checks its "
    "grad_norm_skip_threshold too",
    "chained optimizer under Megatron's per-sub-optimizer loss scalers: the first scaler "
    "unscales every sub-optimizer and is updated with the chain's found_inf, the others never",
};

const char *oc_guard_mutant_name(oc_guard_mutant mu)
{
    return (unsigned)mu < OC_GUARD_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_guard_mutant_description(oc_guard_mutant mu)
{
    return (unsigned)mu < OC_GUARD_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* STEP-CLIP-1, with per-optimizer-norm's CLIP-CHAIN-1 mistaken: the global norm reported (the
 * reference's stage with clipping disabled, CLIP-DISABLE-1: the norm only), then each
 * sub-optimizer clipped with the norm of its own gradients. */
static oc_status norm_and_clip(oc_guard_mutant mu, const oc_guard_config *cfg, size_t nsub,
                               oc_sub_optimizer *subs, unsigned which, float *norm)
{
    if (mu != OC_GUARD_MUT_PER_OPTIMIZER_NORM)
        return oc_guard_norm_and_clip(cfg, nsub, subs, which, norm);
    oc_guard_config norm_only = *cfg;
    norm_only.clip_grad = 0.0;
    norm_only.per_sub = 0;
    oc_status st = oc_guard_norm_and_clip(&norm_only, nsub, subs, which, norm);
    for (size_t k = 0; k < nsub && st == OC_OK; k++) {
        float own;
        if (which >> k & 1u)
            st = oc_guard_norm_and_clip(cfg, nsub, subs, 1u << k, &own);
    }
    return st;
}

oc_status oc_guard_mutant_step(oc_guard_mutant mu, const oc_guard_config *cfg,
                               const oc_loss_scaler *scaler, oc_loss_scale_state *scaler_state,
                               size_t nsub, oc_sub_optimizer *subs, int64_t *position,
                               int64_t increment, float *grad_norm, oc_step_outcome *outcome)
{
    if ((unsigned)mu >= OC_GUARD_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (mu == OC_GUARD_CORRECT ||
        oc_guarded_step_check(cfg, scaler, scaler_state, nsub, subs, position, increment,
                              grad_norm, outcome) != OC_OK)
        return oc_ref_guarded_step(cfg, scaler, scaler_state, nsub, subs, position, increment,
                                   grad_norm, outcome);
    oc_guard_config as_mistaken = *cfg;                            /* STEP-GROUP-1, -CLIP-2 */
    for (size_t k = 0; mu == OC_GUARD_MUT_FIRST_SUB_CONFIG && k < nsub; k++) {
        as_mistaken.sub_clip_grad[k] = cfg->sub_clip_grad[0];
        as_mistaken.sub_skip_threshold[k] = cfg->sub_skip_threshold[0];
    }
    if (mu == OC_GUARD_MUT_MTP_IN_MAIN_NORM)
        as_mistaken.mtp_params = 0;
    if (mu == OC_GUARD_MUT_ONE_SCALER_FOR_CHAIN)                    /* STEP-SCALER-2 */
        as_mistaken.sub_scalers = 0;
    cfg = &as_mistaken;
    const int scaled = cfg->mode == OC_GUARD_SCALED;
    const int clip_first = mu == OC_GUARD_MUT_CLIP_BEFORE_UNSCALE;   /* STEP-ORDER-1 mistaken */
    const unsigned all = (unsigned)((1ull << nsub) - 1);
    float norm = 0.0f;
    oc_status st;
    if (clip_first && (st = norm_and_clip(mu, cfg, nsub, subs, all, &norm)) != OC_OK)
        return st;
    float inv[OC_GUARD_MAX_SUBS];
    oc_guard_inverse_scales(cfg, scaler_state, nsub, inv);
    unsigned bad = cfg->mode == OC_GUARD_UNCHECKED ? 0u
                                                   : oc_guard_unscale(nsub, subs, inv, scaled);
    int found_inf = bad != 0;
    const int scaler_late = mu == OC_GUARD_MUT_SCALER_UPDATE_AFTER_STEP; /* STEP-SCALER-1 */
    if (scaled && !scaler_late)
        oc_guard_update_scalers(cfg, scaler, scaler_state, nsub, bad);
    unsigned stepping = !found_inf ? all
                        : mu == OC_GUARD_MUT_SKIP_ONLY_OFFENDING_SUB ? all & ~bad : 0u;
    if (stepping != 0 && !clip_first &&
        (st = norm_and_clip(mu, cfg, nsub, subs, stepping, &norm)) != OC_OK)
        return st;
    oc_guard_config every_sub = *cfg;              /* STEP-CLIP-2 mistaken: no 'mtp' exemption */
    every_sub.mtp_params = 0;
    int norm_skip = oc_guard_norm_skips(mu == OC_GUARD_MUT_SKIP_WITHOUT_MAIN_PARAMS ? &every_sub
                                        : cfg, nsub, subs, norm);
    if (norm_skip)
        stepping = 0;
    if ((st = oc_guard_step_subs(nsub, subs, stepping)) != OC_OK)
        return st;
    for (size_t k = 0; mu == OC_GUARD_MUT_COUNTER_ADVANCED_ON_SKIP && k < nsub; k++)
        subs[k].step += !(stepping >> k & 1u);                      /* STEP-SKIP-1 mistaken */
    int taken = !found_inf && !norm_skip;
    if (taken && scaled && scaler_late)
        oc_guard_update_scalers(cfg, scaler, scaler_state, nsub, 0u);
    if (taken || mu == OC_GUARD_MUT_SCHEDULE_ADVANCED_ON_SKIP)     /* STEP-SCHED-1 mistaken */
        *position += increment;
    *grad_norm = norm;
    *outcome = found_inf ? OC_STEP_SKIPPED_INF : norm_skip ? OC_STEP_SKIPPED_NORM : OC_STEP_TAKEN;
    return OC_OK;
}
