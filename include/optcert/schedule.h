/* Learning-rate and weight-decay schedules (Megatron's OptimizerParamScheduler), spec/schedule.md.
 * Positions are counted in samples (SCHED-POS-1). Values are binary64, as Python floats are. */
#ifndef OPTCERT_SCHEDULE_H
#define OPTCERT_SCHEDULE_H

#include <stdint.h>
#include "optcert/acsl.h"
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

/*@ // SCHED-CFG-1: what oc_schedule_check accepts.
    predicate sched_lr_ok(oc_schedule *s) =
        finite_ge0(s->min_lr) && finite_ge0(s->max_lr) && s->min_lr <= s->max_lr &&
        finite_ge0(s->init_lr) && s->init_lr <= s->max_lr &&
        0 < s->decay_steps && 0 <= s->warmup_steps < s->decay_steps &&
        OC_LR_CONSTANT <= s->decay_style < OC_LR_DECAY_STYLE_COUNT &&
        (s->decay_style == OC_LR_WSD ==>
             0 < s->wsd_decay_steps <= s->decay_steps &&
             OC_WSD_LINEAR <= s->wsd_style < OC_WSD_DECAY_STYLE_COUNT);
    predicate sched_wd_ok(oc_schedule *s) =
        finite_ge0(s->start_wd) && finite_ge0(s->end_wd) && s->start_wd <= s->end_wd &&
        OC_WD_CONSTANT <= s->wd_style < OC_WD_INCR_STYLE_COUNT &&
        (s->wd_style == OC_WD_CONSTANT ==> s->start_wd == s->end_wd) &&
        0 < s->wd_incr_steps &&
        finite_ge0(s->wd_mult) &&
        \is_finite(\round_double(\NearestEven, s->end_wd * s->wd_mult));
    predicate sched_ok(oc_schedule *s) = sched_lr_ok(s) && sched_wd_ok(s);
*/

/* Checks a schedule against SCHED-CFG-1. */
/*@ requires s_readable: s == \null || \valid_read(s);
    assigns \nothing;
    ensures null_s: s == \null ==> \result == OC_ERR_NULL_POINTER;
    ensures ok_lr: \result == OC_OK ==> s != \null && sched_lr_ok(s);
    ensures ok_wd: \result == OC_OK ==> sched_wd_ok(s);
    ensures accepts: s != \null && sched_ok(s) ==> \result == OC_OK;
*/
oc_status oc_schedule_check(const oc_schedule *s);

/* The pieces of a valid schedule's values at position n >= 0, each one rule of §1 (the
 * harness's mutant variants, conformance/mutants/schedule.c, recombine them). */
typedef enum oc_lr_phase {
    OC_LR_WARMUP = 0, /* W > 0 and n <= W                               SCHED-WARMUP-1 */
    OC_LR_MAX,        /* after warmup, constant style                    SCHED-CONST-1 */
    OC_LR_END,        /* after warmup, n > D, other styles               SCHED-END-1 */
    OC_LR_DECAY,      /* after warmup, n <= D: the style's decay  SCHED-ISQRT-1, SCHED-DECAY-1 */
} oc_lr_phase;
/*@ requires valid_s: \valid_read(s) && sched_lr_ok(s);
    requires n_nonneg: 0 <= n;
    assigns \nothing;
    behavior warmup:
      assumes 0 < s->warmup_steps && n <= s->warmup_steps;
      ensures phase: \result == OC_LR_WARMUP;
    behavior constant:
      assumes !(0 < s->warmup_steps && n <= s->warmup_steps);
      assumes s->decay_style == OC_LR_CONSTANT;
      ensures phase: \result == OC_LR_MAX;
    behavior end:
      assumes !(0 < s->warmup_steps && n <= s->warmup_steps);
      assumes s->decay_style != OC_LR_CONSTANT && n > s->decay_steps;
      ensures phase: \result == OC_LR_END;
    behavior decay:
      assumes !(0 < s->warmup_steps && n <= s->warmup_steps);
      assumes s->decay_style != OC_LR_CONSTANT && n <= s->decay_steps;
      ensures phase: \result == OC_LR_DECAY;
    complete behaviors;
    disjoint behaviors;
*/
oc_lr_phase oc_schedule_lr_phase(const oc_schedule *s, int64_t n);
/* SCHED-WARMUP-1: init + (max - init) n / W (W > 0; for n > W, the line extended). */
/*@ requires valid_s: \valid_read(s) && sched_lr_ok(s);
    requires warmup: 0 < s->warmup_steps && 0 <= n;
    assigns \nothing;
    ensures range: n <= s->warmup_steps ==> s->init_lr <= \result <= s->max_lr;
*/
double oc_schedule_warmup_lr(const oc_schedule *s, int64_t n);
/* SCHED-ISQRT-1 before the floor at min: max sqrt(max(W, 1)) / sqrt(max(n, 1)), n >= W. */
/*@ requires valid_s: \valid_read(s) && sched_lr_ok(s);
    requires after_warmup: s->warmup_steps <= n;
    assigns \nothing;
    ensures range: \is_finite(\result) && 0.0 <= \result <= s->max_lr;
*/
double oc_schedule_inverse_sqrt(const oc_schedule *s, int64_t n);
/* SCHED-DECAY-1, linear and cosine: min + coeff (max - min) with the complement of the decay
 * ratio 1 - r = num / den (0 <= num <= den, den > 0; the rule's is (D - n) / (D - W)). */
/*@ requires valid_s: \valid_read(s) && sched_lr_ok(s);
    requires style: s->decay_style == OC_LR_LINEAR || s->decay_style == OC_LR_COSINE;
    requires ratio: 0 <= num <= den && 0 < den;
    assigns \nothing;
    ensures range: s->min_lr <= \result <= s->max_lr;
*/
double oc_schedule_decay_lr(const oc_schedule *s, int64_t num, int64_t den);
/* SCHED-WSD-1 at n <= D with the anneal starting after position a (the rule's a = D - S;
 * D - S <= a <= D). */
/*@ requires valid_s: \valid_read(s) && sched_lr_ok(s);
    requires style: s->decay_style == OC_LR_WSD;
    requires anneal_start: s->decay_steps - s->wsd_decay_steps <= a <= s->decay_steps;
    requires before_end: n <= s->decay_steps;
    assigns \nothing;
    ensures range: s->min_lr <= \result <= s->max_lr;
*/
double oc_schedule_wsd_lr(const oc_schedule *s, int64_t n, int64_t a);
/* SCHED-WD-1 times wd_mult inside the increment, linear or cosine style: at ratio r = num / I
 * (0 <= num <= I; the rule's num is n). */
/*@ requires valid_s: \valid_read(s) && sched_wd_ok(s);
    requires style: s->wd_style == OC_WD_LINEAR || s->wd_style == OC_WD_COSINE;
    requires ratio: 0 <= num <= s->wd_incr_steps;
    assigns \nothing;
    ensures range: \round_double(\NearestEven, s->start_wd * s->wd_mult) <= \result <=
            \round_double(\NearestEven, s->end_wd * s->wd_mult);
*/
double oc_schedule_wd_increment(const oc_schedule *s, int64_t num);
/* The lr and the weight decay (multiplied by wd_mult) at position n. */
/*@ requires valid_s: \valid_read(s) && sched_lr_ok(s);
    requires n_nonneg: 0 <= n;
    assigns \nothing;
    ensures range: \min(s->min_lr, s->init_lr) <= \result <= s->max_lr;
*/
double oc_schedule_lr(const oc_schedule *s, int64_t n);
/*@ requires valid_s: \valid_read(s) && sched_wd_ok(s);
    requires n_nonneg: 0 <= n;
    assigns \nothing;
    ensures range: \round_double(\NearestEven, s->start_wd * s->wd_mult) <= \result <=
            \round_double(\NearestEven, s->end_wd * s->wd_mult);
*/
double oc_schedule_wd(const oc_schedule *s, int64_t n);

/* lr and weight decay (already multiplied by wd_mult) at position `samples` >= 0
 * (SCHED-POS-1). On error nothing is written. */
/*@ requires s_readable: s == \null || \valid_read(s);
    requires lr_writable: lr == \null || \valid(lr);
    requires wd_writable: wd == \null || \valid(wd);
    requires separated: lr != \null && wd != \null ==> \separated(lr, wd);
    assigns *lr, *wd;
    behavior invalid:
      assumes s == \null || lr == \null || wd == \null || samples < 0 || !sched_ok(s);
      assigns \nothing;
      ensures rejected: \result != OC_OK;
    behavior maybe_valid:
      assumes s != \null && lr != \null && wd != \null && 0 <= samples && sched_ok(s);
      ensures unchanged_on_error: \result != OC_OK ==> *lr == \old(*lr) && *wd == \old(*wd);
      ensures lr_range: \result == OC_OK ==>
              \min(\old(s->min_lr), \old(s->init_lr)) <= *lr <= \old(s->max_lr);
      ensures wd_range: \result == OC_OK ==>
              \round_double(\NearestEven, \old(s->start_wd) * \old(s->wd_mult)) <= *wd <=
              \round_double(\NearestEven, \old(s->end_wd) * \old(s->wd_mult));
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_schedule_eval(const oc_schedule *s, int64_t samples, double *lr, double *wd);

#endif
