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

/* SCHED-WARMUP-1 ... SCHED-END-1: which rule gives the lr at n. */
oc_lr_phase oc_schedule_lr_phase(const oc_schedule *s, int64_t n)
{
    if (s->warmup_steps > 0 && n <= s->warmup_steps)                /* SCHED-WARMUP-1 */
        return OC_LR_WARMUP;
    if (s->decay_style == OC_LR_CONSTANT)                           /* SCHED-CONST-1 */
        return OC_LR_MAX;
    return n > s->decay_steps ? OC_LR_END : OC_LR_DECAY;            /* SCHED-END-1 */
}

/* SCHED-WARMUP-1: init + (n / W) (max - init). */
double oc_schedule_warmup_lr(const oc_schedule *s, int64_t n)
{
    return oc_sched_interpolate(s->init_lr, s->max_lr, OC_SCHED_LINEAR, n, s->warmup_steps);
}

/* SCHED-ISQRT-1 for W <= n before the floor: max_lr sqrt(max(W,1)) / sqrt(max(n,1)), computed
 * as max_lr sqrt(max(W,1) / max(n,1)) (the root is <= 1, so lr <= max_lr). */
double oc_schedule_inverse_sqrt(const oc_schedule *s, int64_t n)
{
    int64_t W = s->warmup_steps;
    return oc_sched_scaled_sqrt_ratio(s->max_lr, W > 1 ? W : 1, n > 1 ? n : 1);
}

/* SCHED-DECAY-1 with SCHED-LINEAR-1 or SCHED-COSINE-1: the ratio's complement
 * 1 - r = num / den, formed from integers (ref/schedule_exact.c). */
double oc_schedule_decay_lr(const oc_schedule *s, int64_t num, int64_t den)
{
    return oc_sched_interpolate(s->min_lr, s->max_lr,
                                s->decay_style == OC_LR_LINEAR ? OC_SCHED_LINEAR
                                                               : OC_SCHED_HALF_COSINE,
                                num, den);
}

/* SCHED-WSD-1: max up to the anneal start a, then the complement of the anneal fraction
 * 1 - w = (S - (n - a)) / S. */
double oc_schedule_wsd_lr(const oc_schedule *s, int64_t n, int64_t a)
{
    int64_t S = s->wsd_decay_steps;
    if (n <= a)
        return s->max_lr;
    return oc_sched_interpolate(s->min_lr, s->max_lr, wsd_shapes[s->wsd_style], S - (n - a),
                                S);                                 /* 0 < n - a <= S */
}

/* SCHED-ISQRT-1, SCHED-DECAY-1, SCHED-WSD-1 for W <= n <= D. */
/*@ requires \valid_read(s) && sched_lr_ok(s);
    requires s->decay_style != OC_LR_CONSTANT;
    requires s->warmup_steps <= n <= s->decay_steps;
    assigns \nothing;
    ensures s->min_lr <= \result <= s->max_lr;
*/
static double decay_lr(const oc_schedule *s, int64_t n)
{
    int64_t W = s->warmup_steps, D = s->decay_steps;
    if (s->decay_style == OC_LR_INVERSE_SQRT) {                     /* floored at min_lr */
        double lr = oc_schedule_inverse_sqrt(s, n);
        return at_most(lr, s->min_lr) ? s->min_lr : lr;
    }
    if (s->decay_style == OC_LR_WSD)
        return oc_schedule_wsd_lr(s, n, D - s->wsd_decay_steps);
    return oc_schedule_decay_lr(s, D - n, D - W);
}

/* The learning rate at position n (SCHED-WARMUP-1 ... SCHED-WSD-1) for a valid schedule. */
double oc_schedule_lr(const oc_schedule *s, int64_t n)
{
    const oc_lr_phase phase = oc_schedule_lr_phase(s, n);
    if (phase == OC_LR_WARMUP)
        return oc_schedule_warmup_lr(s, n);
    if (phase == OC_LR_MAX)
        return s->max_lr;
    if (phase == OC_LR_END)
        return s->min_lr;
    return decay_lr(s, n);
}

/* SCHED-WD-1 inside the increment, times wd_mult: the linear ratio r = num / I, or the
 * increasing half cosine 0.5 (cos(pi (1 - r)) + 1) = sin^2(pi r / 2). */
double oc_schedule_wd_increment(const oc_schedule *s, int64_t num)
{
    return oc_sched_interpolate_scaled(s->start_wd, s->end_wd, s->wd_mult,
                                       s->wd_style == OC_WD_LINEAR ? OC_SCHED_LINEAR
                                                                   : OC_SCHED_HALF_COSINE,
                                       num, s->wd_incr_steps);
}

/* The weight decay at position n, multiplied by wd_mult (SCHED-WD-1, SCHED-MULT-1). */
double oc_schedule_wd(const oc_schedule *s, int64_t n)
{
    if (n > s->wd_incr_steps || s->wd_style == OC_WD_CONSTANT)
        return s->end_wd * s->wd_mult;
    return oc_schedule_wd_increment(s, n);
}

/* SCHED-ERR-1: validate everything, compute both values, then write them; on error nothing
 * is written. */
oc_status oc_ref_schedule_eval(const oc_schedule *s, int64_t samples, double *lr, double *wd)
{
    if (s == NULL || lr == NULL || wd == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st;
    if ((st = oc_buffer_check(lr, 1, sizeof(double))) != OC_OK ||
        (st = oc_buffer_check(wd, 1, sizeof(double))) != OC_OK ||
        (st = oc_buffer_disjoint(lr, sizeof *lr, wd, sizeof *wd)) != OC_OK)
        return st;
    if (samples < 0)                                                /* SCHED-POS-1 */
        return OC_ERR_BAD_STEP;
    if ((st = oc_schedule_check(s)) != OC_OK)                       /* SCHED-CFG-1 */
        return st;
    double l = oc_schedule_lr(s, samples), w = oc_schedule_wd(s, samples);
    *lr = l;
    *wd = w;
    return OC_OK;
}
