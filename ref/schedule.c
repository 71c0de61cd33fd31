/* Learning-rate and weight-decay schedule reference (spec/schedule.md), the schedule of
 * Megatron-LM's OptimizerParamScheduler (SCHED-PROF-MEGATRON). Scalar C11, no allocation, no I/O, no globals.
 *
 * Schedule reference, part 1 of 2: validation, names, and which phase a sample position is in
 * (warmup, decay, WSD stable or anneal, past the end) with the integer numerator and
 * denominator of its ratio, in integers and binary64 only. The values are computed by the
 * extended-precision primitives of ref/schedule_exact.c (part 2), whose contracts in
 * ref/schedule_exact.h state their ranges; with those contracts WP proves SCHED-RANGE-1 here
 * (proofs/STATUS.md). The ratios' complements (D - n) / (D - W) etc. are formed exactly from
 * integers, for accuracy (ref/schedule_exact.c explains).
 */
#include <stddef.h>
#include "optcert/schedule.h"
#include "optcert/buffers.h"
#include "schedule_exact.h"

/*@ predicate finite_ge0(double x) = \is_finite(x) && 0.0 <= x;
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

static const char *const mutant_names[OC_SCHED_MUTANT_COUNT] = {
    "correct",
    "cosine-without-warmup-offset",
    "min-lr-not-floor",
    "warmup-off-by-one",
    "wsd-decay-one-step-late",
    "wd-cosine-decreasing",
};

static const char *const mutant_descriptions[OC_SCHED_MUTANT_COUNT] = {
    "the reference itself",
    "linear/cosine decay ratio n/decay_steps, ignoring the warmup (timm warmup_prefix=False)",
    "inverse-sqrt not clamped at min_lr, and 0 instead of min_lr past decay_steps",
    "warmup fraction (n+1)/warmup_steps instead of n/warmup_steps (one position ahead)",
    "WSD anneal starts at decay_steps - wsd_decay_steps + 1, one sample late",
    "weight-decay cosine increment uses cos(pi r) instead of cos(pi (1-r)): it decreases",
};

/*@ assigns \nothing; */
const char *oc_schedule_mutant_name(oc_schedule_mutant mu)
{
    return (unsigned)mu < OC_SCHED_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

/*@ assigns \nothing; */
const char *oc_schedule_mutant_description(oc_schedule_mutant mu)
{
    return (unsigned)mu < OC_SCHED_MUTANT_COUNT ? mutant_descriptions[mu] : NULL;
}

/*@ assigns \nothing;
    ensures \result != 0 <==> finite_ge0(x);
*/
static int is_finite_ge0(double x) { return x >= 0.0 && x <= 0x1.fffffffffffffp+1023; }

/* a <= b for finite a, b. A function of its own because its contract is the one fact about
 * binary64 comparison that the WP proof of SCHED-RANGE-1 needs and that the provers of
 * proofs/setup.sh do not prove (proofs/STATUS.md, "ref/schedule.c"). */
/*@ requires \is_finite(a) && \is_finite(b);
    assigns \nothing;
    ensures \result != 0 <==> a <= b;
*/
static int at_most(double a, double b) { return a <= b; }

/* SCHED-CFG-1: the asserts of Megatron's constructor and get_wd, plus finiteness, the enums'
 * ranges and the fields Megatron leaves unchecked (warmup_steps >= 0, init_lr >= 0,
 * wsd_decay_steps, wd_incr_steps > 0, wd_mult >= 0, a finite end_wd * wd_mult). Comparisons
 * are written so that NaN fails every one of them. The WSD fields are checked only for the
 * WSD style (Megatron reads them only there). */
/*@ requires s == \null || \valid_read(s);
    assigns \nothing;
    ensures s == \null ==> \result == OC_ERR_NULL_POINTER;
    ensures \result == OC_OK ==> s != \null && sched_lr_ok(s);
    ensures \result == OC_OK ==> sched_wd_ok(s);
    ensures s != \null && sched_ok(s) ==> \result == OC_OK;
*/
oc_status oc_schedule_check(const oc_schedule *s)
{
    if (s == NULL)
        return OC_ERR_NULL_POINTER;
    if (!is_finite_ge0(s->min_lr) || !is_finite_ge0(s->max_lr) ||
        !at_most(s->min_lr, s->max_lr) || !is_finite_ge0(s->init_lr) ||
        !at_most(s->init_lr, s->max_lr))
        return OC_ERR_BAD_HPARAM;
    if (!(s->decay_steps > 0) || !(s->warmup_steps >= 0) || !(s->warmup_steps < s->decay_steps))
        return OC_ERR_BAD_HPARAM;
    if ((unsigned)s->decay_style >= OC_LR_DECAY_STYLE_COUNT)
        return OC_ERR_BAD_HPARAM;
    if (s->decay_style == OC_LR_WSD &&
        (!(s->wsd_decay_steps > 0) || !(s->wsd_decay_steps <= s->decay_steps) ||
         (unsigned)s->wsd_style >= OC_WSD_DECAY_STYLE_COUNT))
        return OC_ERR_BAD_HPARAM;
    if (!is_finite_ge0(s->start_wd) || !is_finite_ge0(s->end_wd) ||
        !at_most(s->start_wd, s->end_wd))
        return OC_ERR_BAD_HPARAM;
    if ((unsigned)s->wd_style >= OC_WD_INCR_STYLE_COUNT ||                 /* start_wd <= end_wd: */
        (s->wd_style == OC_WD_CONSTANT && !at_most(s->end_wd, s->start_wd)))  /* start != end */
        return OC_ERR_BAD_HPARAM;
    if (!(s->wd_incr_steps > 0) || !is_finite_ge0(s->wd_mult) ||
        !is_finite_ge0(s->end_wd * s->wd_mult))
        return OC_ERR_BAD_HPARAM;
    return OC_OK;
}

/* The anneal shape of each WSD style (SCHED-WSD-1), for the complement 1 - w of the anneal
 * fraction w: 1 - w, 0.5 (cos(pi w) + 1), 2 * 0.5^w - 1 = 2^(1 - w) - 1, 1 - sqrt(w). */
static const oc_sched_shape wsd_shapes[OC_WSD_DECAY_STYLE_COUNT] = {
    [OC_WSD_LINEAR] = OC_SCHED_LINEAR,
    [OC_WSD_COSINE] = OC_SCHED_HALF_COSINE,
    [OC_WSD_EXPONENTIAL] = OC_SCHED_EXP2M1,
    [OC_WSD_MINUS_SQRT] = OC_SCHED_ONE_MINUS_SQRT_COMPLEMENT,
};

/* SCHED-ISQRT-1 for W <= n <= D: max_lr sqrt(max(W,1)) / sqrt(max(n,1)), computed as
 * max_lr sqrt(max(W,1) / max(n,1)) (the root is <= 1, so lr <= max_lr), floored at min_lr. */
/*@ requires \valid_read(s) && sched_lr_ok(s);
    requires s->warmup_steps <= n <= s->decay_steps;
    assigns \nothing;
    ensures mu != OC_SCHED_MUT_MIN_LR_NOT_FLOOR ==> s->min_lr <= \result <= s->max_lr;
*/
static double sched_inverse_sqrt_lr(const oc_schedule *s, int64_t n, oc_schedule_mutant mu)
{
    int64_t W = s->warmup_steps;
    double lr = oc_sched_scaled_sqrt_ratio(s->max_lr, W > 1 ? W : 1, n > 1 ? n : 1);
    if (mu == OC_SCHED_MUT_MIN_LR_NOT_FLOOR)
        return lr;
    return at_most(lr, s->min_lr) ? s->min_lr : lr;
}

/* SCHED-DECAY-1 with SCHED-LINEAR-1, SCHED-COSINE-1 or SCHED-WSD-1 for W <= n <= D: the ratio's
 * complement 1 - r = (D - n) / (D - W), or 1 - w = (L - (n - A)) / L in the WSD anneal. */
/*@ requires \valid_read(s) && sched_lr_ok(s);
    requires s->decay_style == OC_LR_LINEAR || s->decay_style == OC_LR_COSINE ||
             s->decay_style == OC_LR_WSD;
    requires s->warmup_steps <= n <= s->decay_steps;
    requires OC_SCHED_CORRECT <= mu < OC_SCHED_MUTANT_COUNT;
    assigns \nothing;
    ensures s->min_lr <= \result <= s->max_lr;
*/
static double sched_decay_lr(const oc_schedule *s, int64_t n, oc_schedule_mutant mu)
{
    int64_t W = s->warmup_steps, D = s->decay_steps;
    if (s->decay_style == OC_LR_WSD) {                              /* SCHED-WSD-1 */
        int64_t L = s->wsd_decay_steps, A = D - L;                  /* 0 <= A < D */
        if (mu == OC_SCHED_MUT_WSD_DECAY_ONE_STEP_LATE)
            A += 1;                                                 /* still <= D */
        if (n <= A)
            return s->max_lr;
        return oc_sched_interpolate(s->min_lr, s->max_lr, wsd_shapes[s->wsd_style],
                                    L - (n - A), L);                /* 0 < n - A <= L */
    }
    int64_t den = mu == OC_SCHED_MUT_COSINE_WITHOUT_WARMUP_OFFSET ? D : D - W;  /* 1 - n / D */
    return oc_sched_interpolate(s->min_lr, s->max_lr,
                                s->decay_style == OC_LR_LINEAR ? OC_SCHED_LINEAR
                                                               : OC_SCHED_HALF_COSINE,
                                D - n, den);
}

/* The learning rate at position n (SCHED-WARMUP-1 ... SCHED-WSD-1) for a valid schedule. */
/*@ requires \valid_read(s) && sched_lr_ok(s);
    requires 0 <= n;
    requires OC_SCHED_CORRECT <= mu < OC_SCHED_MUTANT_COUNT;
    assigns \nothing;
    ensures mu == OC_SCHED_CORRECT ==> \min(s->min_lr, s->init_lr) <= \result <= s->max_lr;
*/
static double sched_lr(const oc_schedule *s, int64_t n, oc_schedule_mutant mu)
{
    int64_t W = s->warmup_steps;
    if (W > 0 && n <= W)           /* SCHED-WARMUP-1; the mutant's n + 1 <= W < D cannot overflow */
        return oc_sched_interpolate(s->init_lr, s->max_lr, OC_SCHED_LINEAR,
                                    mu == OC_SCHED_MUT_WARMUP_OFF_BY_ONE ? n + 1 : n, W);
    if (s->decay_style == OC_LR_CONSTANT)                           /* SCHED-CONST-1 */
        return s->max_lr;
    if (n > s->decay_steps)                                         /* SCHED-END-1 */
        return mu == OC_SCHED_MUT_MIN_LR_NOT_FLOOR ? 0.0 : s->min_lr;
    if (s->decay_style == OC_LR_INVERSE_SQRT)
        return sched_inverse_sqrt_lr(s, n, mu);
    return sched_decay_lr(s, n, mu);
}

/* The weight decay at position n, multiplied by wd_mult (SCHED-WD-1, SCHED-MULT-1). */
/*@ requires \valid_read(s) && sched_wd_ok(s);
    requires 0 <= n;
    requires OC_SCHED_CORRECT <= mu < OC_SCHED_MUTANT_COUNT;
    assigns \nothing;
    ensures \round_double(\NearestEven, s->start_wd * s->wd_mult) <= \result <=
            \round_double(\NearestEven, s->end_wd * s->wd_mult);
*/
static double sched_wd(const oc_schedule *s, int64_t n, oc_schedule_mutant mu)
{
    int64_t N = s->wd_incr_steps;
    if (n > N || s->wd_style == OC_WD_CONSTANT)
        return s->end_wd * s->wd_mult;
    if (s->wd_style == OC_WD_LINEAR)
        return oc_sched_interpolate_scaled(s->start_wd, s->end_wd, s->wd_mult, OC_SCHED_LINEAR,
                                           n, N);
    /* 0.5 (cos(pi (1 - r)) + 1) = sin^2(pi r / 2); the mutant's 0.5 (cos(pi r) + 1) takes 1 - r */
    return oc_sched_interpolate_scaled(s->start_wd, s->end_wd, s->wd_mult, OC_SCHED_HALF_COSINE,
                                       mu == OC_SCHED_MUT_WD_COSINE_DECREASING ? N - n : n, N);
}

/* SCHED-ERR-1: validate everything, compute both values, then write them; on error nothing
 * is written. */
/*@ requires s == \null || \valid_read(s);
    requires lr == \null || \valid(lr);
    requires wd == \null || \valid(wd);
    requires lr != \null && wd != \null ==> \separated(lr, wd);
    assigns *lr, *wd;
    behavior invalid:
      assumes s == \null || lr == \null || wd == \null || samples < 0 || !sched_ok(s) ||
              !(OC_SCHED_CORRECT <= mutant < OC_SCHED_MUTANT_COUNT);
      assigns \nothing;
      ensures \result != OC_OK;
    behavior maybe_valid:
      assumes s != \null && lr != \null && wd != \null && 0 <= samples && sched_ok(s) &&
              OC_SCHED_CORRECT <= mutant < OC_SCHED_MUTANT_COUNT;
      ensures \result != OC_OK ==> *lr == \old(*lr) && *wd == \old(*wd);
      ensures \result == OC_OK && mutant == OC_SCHED_CORRECT ==>
              \min(\old(s->min_lr), \old(s->init_lr)) <= *lr <= \old(s->max_lr);
      ensures \result == OC_OK ==>
              \round_double(\NearestEven, \old(s->start_wd) * \old(s->wd_mult)) <= *wd <=
              \round_double(\NearestEven, \old(s->end_wd) * \old(s->wd_mult));
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_schedule_eval(const oc_schedule *s, int64_t samples, double *lr, double *wd,
                               oc_schedule_mutant mutant)
{
    if (s == NULL || lr == NULL || wd == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st;
    if ((st = oc_buffer_check(lr, 1, sizeof(double))) != OC_OK ||
        (st = oc_buffer_check(wd, 1, sizeof(double))) != OC_OK ||
        (st = oc_buffer_disjoint(lr, sizeof *lr, wd, sizeof *wd)) != OC_OK)
        return st;
    if ((unsigned)mutant >= OC_SCHED_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (samples < 0)                                                /* SCHED-POS-1 */
        return OC_ERR_BAD_STEP;
    if ((st = oc_schedule_check(s)) != OC_OK)                       /* SCHED-CFG-1 */
        return st;
    double l = sched_lr(s, samples, mutant), w = sched_wd(s, samples, mutant);
    *lr = l;
    *wd = w;
    return OC_OK;
}
