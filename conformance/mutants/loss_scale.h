/* The loss-scale mutant catalogue (spec/loss_scale.md §5): the reference's update with one
 * catalogued mistake, built from its pieces. They live beside the harness, not in ref/ (issue
 * 16 item 3): the reference API has no mutant parameter. */
#ifndef OPTCERT_MUTANTS_LOSS_SCALE_H
#define OPTCERT_MUTANTS_LOSS_SCALE_H

#include "optcert/loss_scale.h"

typedef enum oc_loss_scale_mutant {
    OC_LS_CORRECT = 0,
    OC_LS_MUT_BACKOFF_ON_FIRST_INF,       /* hysteresis ignored: every inf backs off */
    OC_LS_MUT_HYSTERESIS_KEPT_ON_GROWTH,  /* hysteresis tracker not reset when the scale grows */
    OC_LS_MUT_GROWTH_TRACKER_KEPT_ON_INF, /* growth tracker not reset by an inf */
    OC_LS_MUT_GROWTH_INTERVAL_OFF_BY_ONE, /* grows after growth_interval + 1 clean steps */
    OC_LS_MUT_NO_MIN_SCALE,               /* backoff not clamped at min_scale */
    OC_LS_MUT_HYSTERESIS_RESET_ON_CLEAN,  /* hysteresis tracker reset by every clean step */
    OC_LS_MUTANT_COUNT
} oc_loss_scale_mutant;

const char *oc_loss_scale_mutant_name(oc_loss_scale_mutant mu);
const char *oc_loss_scale_mutant_description(oc_loss_scale_mutant mu);

/* oc_ref_loss_scale_update with mistake mu (OC_LS_CORRECT: the reference itself); an unknown
 * mu is OC_ERR_BAD_PROFILE. growth-interval-off-by-one accepts a growth tracker up to
 * growth_interval (it counts up to it). */
oc_status oc_loss_scale_mutant_update(oc_loss_scale_mutant mu, const oc_loss_scaler *c,
                                      oc_loss_scale_state *s, int found_inf);

#endif
