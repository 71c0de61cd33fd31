/* The guarded-step mutant catalogue (spec/guarded_step.md §3): the reference's step with one
 * catalogued mistake, recomposed from its stages (include/optcert/guarded_step.h). They live
 * beside the harness, not in ref/ (issue 16 item 3): the reference API has no mutant
 * parameter. */
#ifndef OPTCERT_MUTANTS_GUARDED_STEP_H
#define OPTCERT_MUTANTS_GUARDED_STEP_H

#include "optcert/guarded_step.h"

typedef enum oc_guard_mutant {
    OC_GUARD_CORRECT = 0,
    OC_GUARD_MUT_SKIP_ONLY_OFFENDING_SUB,  /* only the sub-optimizer holding the inf skips */
    OC_GUARD_MUT_SCALER_UPDATE_AFTER_STEP, /* scaler updated after the update: not on a skip */
    OC_GUARD_MUT_COUNTER_ADVANCED_ON_SKIP, /* sub-optimizers' step counters advance on a skip */
    OC_GUARD_MUT_SCHEDULE_ADVANCED_ON_SKIP,/* the schedule position advances on a skip */
    OC_GUARD_MUT_PER_OPTIMIZER_NORM,       /* each sub-optimizer clipped with its own norm */
    OC_GUARD_MUT_CLIP_BEFORE_UNSCALE,      /* norm and clipping on the scaled gradients */
    OC_GUARD_MUT_MTP_IN_MAIN_NORM,         /* the 'mtp' group counted in the main norm */
    OC_GUARD_MUT_FIRST_SUB_CONFIG,         /* every sub-optimizer with the first one's config */
    OC_GUARD_MUT_SKIP_WITHOUT_MAIN_PARAMS, /* the threshold checked by every sub-optimizer */
    OC_GUARD_MUT_ONE_SCALER_FOR_CHAIN,     /* Megatron's per-sub-optimizer scalers as one */
    OC_GUARD_MUTANT_COUNT
} oc_guard_mutant;

/* Stable short name and one-line description of a mutant (NULL if out of range). */
const char *oc_guard_mutant_name(oc_guard_mutant mu);
const char *oc_guard_mutant_description(oc_guard_mutant mu);

/* oc_ref_guarded_step with mistake mu (OC_GUARD_CORRECT: the reference itself); an unknown mu
 * is OC_ERR_BAD_PROFILE; on a step the reference rejects, the reference's status and nothing
 * written. */
oc_status oc_guard_mutant_step(oc_guard_mutant mu, const oc_guard_config *cfg,
                               const oc_loss_scaler *scaler, oc_loss_scale_state *scaler_state,
                               size_t nsub, oc_sub_optimizer *subs, int64_t *position,
                               int64_t increment, float *grad_norm, oc_step_outcome *outcome);

#endif
