/* Learning-rate and weight-decay schedules (Megatron's OptimizerParamScheduler), spec/schedule.md.
 * Positions are counted in samples (SCHED-POS-1). Values are binary64, as Python floats are. */
#ifndef OPTCERT_SCHEDULE_H
#define OPTCERT_SCHEDULE_H

#include <stdint.h>
#include "optcert/status.h"

typedef enum oc_lr_decay_style {
    OC_LR_CONSTANT = 0, OC_LR_LINEAR, OC_LR_COSINE, OC_LR_INVERSE_SQRT, OC_LR_WSD,
    OC_LR_DECAY_STYLE_COUNT
} oc_lr_decay_style;

typedef enum oc_wsd_decay_style {
    OC_WSD_LINEAR = 0, OC_WSD_COSINE, OC_WSD_EXPONENTIAL, OC_WSD_MINUS_SQRT,
    OC_WSD_DECAY_STYLE_COUNT
} oc_wsd_decay_style;

typedef enum oc_wd_incr_style {
    OC_WD_CONSTANT = 0, OC_WD_LINEAR, OC_WD_COSINE, OC_WD_INCR_STYLE_COUNT
} oc_wd_incr_style;

/* One parameter group's schedule. max_lr and min_lr are the group's values (Megatron's
 * param_group 'max_lr'/'min_lr', which carry any per-group lr multiplier). */
typedef struct oc_schedule {
    double init_lr, max_lr, min_lr;   /* 0 <= min_lr <= max_lr, 0 <= init_lr <= max_lr  SCHED-CFG-1 */
    int64_t warmup_steps;             /* >= 0, < decay_steps                              SCHED-CFG-1 */
    int64_t decay_steps;              /* > 0                                              SCHED-CFG-1 */
    oc_lr_decay_style decay_style;
    int64_t wsd_decay_steps;          /* WSD only: 0 < wsd_decay_steps <= decay_steps     SCHED-CFG-1 */
    oc_wsd_decay_style wsd_style;
    double start_wd, end_wd;          /* 0 <= start_wd <= end_wd; equal when constant     SCHED-CFG-1 */
    int64_t wd_incr_steps;            /* > 0                                              SCHED-CFG-1 */
    oc_wd_incr_style wd_style;
    double wd_mult;                   /* per-group multiplier of the weight decay, >= 0  SCHED-MULT-1 */
} oc_schedule;

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

/* Checks a schedule against SCHED-CFG-1. */
oc_status oc_schedule_check(const oc_schedule *s);

/* lr and weight decay (already multiplied by wd_mult) at position `samples` >= 0
 * (SCHED-POS-1). On error nothing is written. */
oc_status oc_ref_schedule_eval(const oc_schedule *s, int64_t samples, double *lr, double *wd,
                               oc_schedule_mutant mutant);

#endif
