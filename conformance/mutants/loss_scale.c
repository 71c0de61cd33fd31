/* Loss-scale mutants (spec/loss_scale.md §5): the reference's one-update step
 * (oc_loss_scale_next) with the stage the mistake concerns done the mistaken way. */
#include <stddef.h>
#include "loss_scale.h"

static const char *const names[OC_LS_MUTANT_COUNT] = {
    "correct",
    "backoff-on-first-inf",
    "hysteresis-kept-on-growth",
    "growth-tracker-kept-on-inf",
    "growth-interval-off-by-one",
    "no-min-scale",
    "hysteresis-reset-on-clean-step",
};

static const char *const descriptions[OC_LS_MUTANT_COUNT] = {
    "the reference itself",
    "hysteresis ignored: the first inf already multiplies the scale by the backoff factor",
    "the hysteresis tracker is not reset to `hysteresis` when the scale grows",
    "an inf does not reset the growth tracker (growth counts clean steps, not consecutive ones)",
    "the scale grows after growth_interval + 1 consecutive clean steps",
    "the backed-off scale is not clamped at min_scale",
    "every clean step resets the hysteresis tracker (apex/TE update_scale_hysteresis)",
};

const char *oc_loss_scale_mutant_name(oc_loss_scale_mutant mu)
{
    return (unsigned)mu < OC_LS_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_loss_scale_mutant_description(oc_loss_scale_mutant mu)
{
    return (unsigned)mu < OC_LS_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* The update of a valid state with mistake mu. */
static oc_loss_scale_state next(oc_loss_scale_mutant mu, oc_loss_scaler c, oc_loss_scale_state s,
                                int inf)
{
    const int megatron = c.profile == OC_LS_MEGATRON;
    if (c.profile == OC_LS_MEGATRON_CONSTANT)
        return s;
    if (mu == OC_LS_MUT_BACKOFF_ON_FIRST_INF && inf && megatron) {
        /* LS-HYST-1 mistaken: every inf backs off as if the tracker were exhausted */
        oc_loss_scale_state exhausted = s;
        exhausted.hysteresis_tracker = 1;
        oc_loss_scale_state r = oc_loss_scale_next(c, exhausted, inf);
        r.hysteresis_tracker = s.hysteresis_tracker - 1;
        return r;
    }
    oc_loss_scale_state r = oc_loss_scale_next(c, s, inf);
    const int grew = !inf && r.growth_tracker == 0;
    if (mu == OC_LS_MUT_GROWTH_TRACKER_KEPT_ON_INF && inf) /* LS-INF-1 mistaken */
        r.growth_tracker = s.growth_tracker;
    if (mu == OC_LS_MUT_NO_MIN_SCALE && inf && megatron && r.hysteresis_tracker <= 0)
        r.scale = s.scale * c.backoff_factor;              /* LS-BACKOFF-1 without the clamp */
    if (mu == OC_LS_MUT_HYSTERESIS_KEPT_ON_GROWTH && grew && megatron)
        r.hysteresis_tracker = s.hysteresis_tracker;       /* LS-HYST-1 mistaken */
    if (mu == OC_LS_MUT_HYSTERESIS_RESET_ON_CLEAN && !inf && megatron)
        r.hysteresis_tracker = c.hysteresis;               /* LS-HYST-1 mistaken */
    return r;
}

oc_status oc_loss_scale_mutant_update(oc_loss_scale_mutant mu, const oc_loss_scaler *c,
                                      oc_loss_scale_state *s, int found_inf)
{
    if ((unsigned)mu >= OC_LS_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (mu == OC_LS_CORRECT || c == NULL || s == NULL)
        return oc_ref_loss_scale_update(c, s, found_inf);
    oc_status st = oc_loss_scaler_check(c);
    if (st != OC_OK)
        return st;
    /* growth-interval-off-by-one (LS-GROW-1 mistaken): the reference counting to one more */
    oc_loss_scaler cfg = *c;
    cfg.growth_interval += mu == OC_LS_MUT_GROWTH_INTERVAL_OFF_BY_ONE;
    if ((st = oc_loss_scale_state_check(&cfg, s)) != OC_OK)
        return st;
    *s = next(mu, cfg, *s, found_inf);
    return OC_OK;
}
