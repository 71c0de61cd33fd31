/* The schedule mutant catalogue (spec/schedule.md §5): the reference's values with one
 * catalogued mistake, built from its pieces. They live beside the harness, not in ref/ (issue
 * 16 item 3): the reference API has no mutant parameter. */
#ifndef OPTCERT_MUTANTS_SCHEDULE_H
#define OPTCERT_MUTANTS_SCHEDULE_H

#include "optcert/schedule.h"

typedef enum oc_schedule_mutant {
    OC_SCHED_CORRECT = 0,
    OC_SCHED_MUT_COSINE_WITHOUT_WARMUP_OFFSET, /* decay_ratio = n / decay_steps */
    OC_SCHED_MUT_MIN_LR_NOT_FLOOR,             /* inverse-sqrt not clamped at min_lr; 0 past the end */
    OC_SCHED_MUT_WARMUP_OFF_BY_ONE,            /* warmup fraction (n + 1) / warmup_steps */
    OC_SCHED_MUT_WSD_DECAY_ONE_STEP_LATE,      /* anneal starts at decay_steps - wsd_decay_steps + 1 */
    OC_SCHED_MUT_WD_COSINE_DECREASING,         /* cos(pi r) instead of cos(pi (1 - r)) */
    OC_SCHED_MUTANT_COUNT
} oc_schedule_mutant;

const char *oc_schedule_mutant_name(oc_schedule_mutant mu);
const char *oc_schedule_mutant_description(oc_schedule_mutant mu);

/* oc_ref_schedule_eval with mistake mu (OC_SCHED_CORRECT: the reference itself); an unknown mu
 * is OC_ERR_BAD_PROFILE. */
oc_status oc_schedule_mutant_eval(oc_schedule_mutant mu, const oc_schedule *s, int64_t samples,
                                  double *lr, double *wd);

#endif
