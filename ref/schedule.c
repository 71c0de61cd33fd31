/* Learning-rate and weight-decay schedule reference (spec/schedule.md), the schedule of
 * Megatron-LM's OptimizerParamScheduler (SCHED-PROF-MEGATRON). Scalar C11, no allocation, no I/O, no globals.
 *
 * Exact-class reference (SCHED-TOL-1): every value is evaluated in extended precision
 * (`long double`: a 64-bit significand on x86-64, 113 bits on aarch64) and rounded once to
 * binary64. The formulas are those of §1 in exact arithmetic, written in forms that do not
 * cancel: Megatron's 0.5 (cos(pi r) + 1) near r = 1, 1 - r near r = 1 and 2 * 0.5^w - 1 near
 * w = 1 all lose most of their digits when the coefficient is small; here the complement
 * 1 - r = (D - n) / (D - W) is formed exactly from integers and the coefficients become
 * sin^2(pi (1 - r) / 2), (1 - r), 2^(1 - w) - 1 = expm1((1 - w) ln 2) and
 * (1 - w) / (1 + sqrt(w)). With every term of min + coeff (max - min) non-negative, the
 * extended result is within a few units of 2^-64 relative of exact, so the one rounding to
 * binary64 lands within 1 ulp (measured: at most 0.5 ulp on the committed vectors).
 *
 * What the range proof (SCHED-RANGE-1) assumes about libm, stated as contracts on the wrappers
 * below: sinl(x) in [0, 1] for x in [0, pi/2]; expm1l(x) in [0, 1] for x in [0, ln 2];
 * sqrtl is correctly rounded (monotone, sqrt(1) = 1). Rounding to binary64 is monotone and the
 * ends of every range are binary64 values, so a range that holds in extended precision holds
 * after the final rounding.
 */
#include <math.h>
#include <stddef.h>
#include "optcert/schedule.h"
#include "optcert/buffers.h"

/*@ predicate finite_ge0(double x) = \is_finite(x) && 0.0 <= x;
    predicate sched_ok(oc_schedule *s) =
        finite_ge0(s->min_lr) && finite_ge0(s->max_lr) && s->min_lr <= s->max_lr &&
        finite_ge0(s->init_lr) && s->init_lr <= s->max_lr &&
        0 < s->decay_steps && 0 <= s->warmup_steps < s->decay_steps &&
        OC_LR_CONSTANT <= s->decay_style < OC_LR_DECAY_STYLE_COUNT &&
        (s->decay_style == OC_LR_WSD ==>
             0 < s->wsd_decay_steps <= s->decay_steps &&
             OC_WSD_LINEAR <= s->wsd_style < OC_WSD_DECAY_STYLE_COUNT) &&
        finite_ge0(s->start_wd) && finite_ge0(s->end_wd) && s->start_wd <= s->end_wd &&
        OC_WD_CONSTANT <= s->wd_style < OC_WD_INCR_STYLE_COUNT &&
        (s->wd_style == OC_WD_CONSTANT ==> s->start_wd == s->end_wd) &&
        0 < s->wd_incr_steps &&
        finite_ge0(s->wd_mult) &&
        \is_finite(\round_double(\NearestEven, s->end_wd * s->wd_mult));
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

/* SCHED-CFG-1: the asserts of Megatron's constructor and get_wd, plus finiteness, the enums'
 * ranges and the fields Megatron leaves unchecked (warmup_steps >= 0, init_lr >= 0,
 * wsd_decay_steps, wd_incr_steps > 0, wd_mult >= 0, a finite end_wd * wd_mult). Comparisons
 * are written so that NaN fails every one of them. The WSD fields are checked only for the
 * WSD style (Megatron reads them only there). */
/*@ requires s == \null || \valid_read(s);
    assigns \nothing;
    ensures s == \null ==> \result == OC_ERR_NULL_POINTER;
    ensures \result == OC_OK <==> s != \null && sched_ok(s);
*/
oc_status oc_schedule_check(const oc_schedule *s)
{
    if (s == NULL)
        return OC_ERR_NULL_POINTER;
    if (!is_finite_ge0(s->min_lr) || !is_finite_ge0(s->max_lr) || !(s->min_lr <= s->max_lr) ||
        !is_finite_ge0(s->init_lr) || !(s->init_lr <= s->max_lr))
        return OC_ERR_BAD_HPARAM;
    if (!(s->decay_steps > 0) || !(s->warmup_steps >= 0) || !(s->warmup_steps < s->decay_steps))
        return OC_ERR_BAD_HPARAM;
    if ((unsigned)s->decay_style >= OC_LR_DECAY_STYLE_COUNT)
        return OC_ERR_BAD_HPARAM;
    if (s->decay_style == OC_LR_WSD &&
        (!(s->wsd_decay_steps > 0) || !(s->wsd_decay_steps <= s->decay_steps) ||
         (unsigned)s->wsd_style >= OC_WSD_DECAY_STYLE_COUNT))
        return OC_ERR_BAD_HPARAM;
    if (!is_finite_ge0(s->start_wd) || !is_finite_ge0(s->end_wd) || !(s->start_wd <= s->end_wd))
        return OC_ERR_BAD_HPARAM;
    if ((unsigned)s->wd_style >= OC_WD_INCR_STYLE_COUNT ||
        (s->wd_style == OC_WD_CONSTANT && s->start_wd != s->end_wd))
        return OC_ERR_BAD_HPARAM;
    if (!(s->wd_incr_steps > 0) || !is_finite_ge0(s->wd_mult) ||
        !is_finite_ge0(s->end_wd * s->wd_mult))
        return OC_ERR_BAD_HPARAM;
    return OC_OK;
}

typedef long double ext; /* extended precision of the intermediate values */

static const ext sched_pi = 3.141592653589793238462643383279502884L; /* M_PI is not C11 */
static const ext sched_ln2 = 0.693147180559945309417232121458176568L;

/* libm, with what the range proof assumes of it (see the header comment). */
/*@ requires 0.0 <= x <= 1.0;
    assigns \nothing;
    ensures 0.0 <= \result <= 1.0;
*/
static ext sched_sin_half_pi(ext x) { return sinl(sched_pi * x / 2); }

/*@ requires 0.0 <= x <= 1.0;
    assigns \nothing;
    ensures 0.0 <= \result <= 1.0;
*/
static ext sched_exp2m1(ext x) { return expm1l(x * sched_ln2); }

/*@ requires 0.0 <= x <= 1.0;
    assigns \nothing;
    ensures 0.0 <= \result <= 1.0;
    ensures x == 1.0 ==> \result == 1.0;
*/
static ext sched_sqrt(ext x) { return sqrtl(x); }

/* num / den for 0 <= num <= den, den > 0 (int64 values convert exactly to ext). */
/*@ requires 0 <= num <= den && 0 < den;
    assigns \nothing;
    ensures 0.0 <= \result <= 1.0;
*/
static ext ratio(int64_t num, int64_t den) { return (ext)num / (ext)den; }

/* The half cosine 0.5 (cos(pi x) + 1) of SCHED-COSINE-1, SCHED-WSD-1 and SCHED-WD-1, given the
 * complement c = 1 - x: it equals sin^2(pi c / 2), which keeps full relative accuracy where the
 * coefficient is small (x near 1). */
/*@ requires 0.0 <= c <= 1.0;
    assigns \nothing;
    ensures 0.0 <= \result <= 1.0;
*/
static ext half_cosine_of_complement(ext c)
{
    ext s = sched_sin_half_pi(c);
    return s * s;
}

/* lo + c (hi - lo), the form of SCHED-DECAY-1 (Megatron's min_lr + coeff * delta_lr), in
 * extended precision, rounded once to binary64. All terms are non-negative, so the result is
 * >= lo; for c = 1 it is hi exactly; for c < 1 the extended value exceeds hi by less than half
 * a binary64 ulp of hi, so its rounding is <= hi. */
/*@ requires \is_finite(lo) && \is_finite(hi) && 0.0 <= lo <= hi;
    requires 0.0 <= c <= 1.0;
    assigns \nothing;
    ensures lo <= \result <= hi;
    ensures c == 1.0 ==> \result == hi;
    ensures c == 0.0 ==> \result == lo;
*/
static double sched_lerp(double lo, double hi, ext c)
{
    if (c == 1)
        return hi;
    return (double)(lo + c * ((ext)hi - (ext)lo));
}

/* The learning rate at position n (SCHED-WARMUP-1 ... SCHED-WSD-1) for a valid schedule. */
/*@ requires \valid_read(s) && sched_ok(s);
    requires 0 <= n;
    requires OC_SCHED_CORRECT <= mu < OC_SCHED_MUTANT_COUNT;
    assigns \nothing;
    ensures mu == OC_SCHED_CORRECT ==> \min(s->min_lr, s->init_lr) <= \result <= s->max_lr;
*/
static double sched_lr(const oc_schedule *s, int64_t n, oc_schedule_mutant mu)
{
    int64_t W = s->warmup_steps, D = s->decay_steps;
    double max_lr = s->max_lr, min_lr = s->min_lr;
    if (W > 0 && n <= W) {                                          /* SCHED-WARMUP-1 */
        if (mu == OC_SCHED_MUT_WARMUP_OFF_BY_ONE)                   /* n + 1 <= D: no overflow */
            return (double)(s->init_lr + (ext)(n + 1) / W * ((ext)max_lr - s->init_lr));
        return sched_lerp(s->init_lr, max_lr, ratio(n, W));
    }
    if (s->decay_style == OC_LR_CONSTANT)                           /* SCHED-CONST-1 */
        return max_lr;
    if (n > D)                                                      /* SCHED-END-1 */
        return mu == OC_SCHED_MUT_MIN_LR_NOT_FLOOR ? 0.0 : min_lr;
    if (s->decay_style == OC_LR_INVERSE_SQRT) {                     /* SCHED-ISQRT-1 */
        /* max_lr sqrt(max(W,1)) / sqrt(max(n,1)) as max_lr sqrt(max(W,1) / max(n,1)): here
         * max(W,1) <= max(n,1) (W = 0, or n > W), so the root is <= 1 and lr <= max_lr. */
        double lr = (double)(max_lr * sched_sqrt(ratio(W > 1 ? W : 1, n > 1 ? n : 1)));
        if (mu == OC_SCHED_MUT_MIN_LR_NOT_FLOOR)
            return lr;
        return lr > min_lr ? lr : min_lr;
    }
    ext coeff;
    if (s->decay_style == OC_LR_WSD) {                              /* SCHED-WSD-1 */
        int64_t L = s->wsd_decay_steps, A = D - L;                  /* 0 <= A < D */
        if (mu == OC_SCHED_MUT_WSD_DECAY_ONE_STEP_LATE)
            A += 1;                                                 /* still <= D */
        if (n <= A) {
            coeff = 1;
        } else {
            ext w = ratio(n - A, L), c = ratio(A + L - n, L);       /* c = 1 - w, exactly */
            switch (s->wsd_style) {
            case OC_WSD_LINEAR:
                coeff = c;
                break;
            case OC_WSD_COSINE:
                coeff = half_cosine_of_complement(c);
                break;
            case OC_WSD_EXPONENTIAL:                                /* 2 * 0.5^w - 1 = 2^c - 1 */
                coeff = sched_exp2m1(c);
                break;
            default:                                                /* 1 - sqrt(w) */
                coeff = c / (1 + sched_sqrt(w));
                break;
            }
        }
    } else {                                                        /* SCHED-DECAY-1 */
        ext c = mu == OC_SCHED_MUT_COSINE_WITHOUT_WARMUP_OFFSET
                    ? ratio(D - n, D)                               /* 1 - n / D */
                    : ratio(D - n, D - W);                          /* 1 - r, W <= n <= D */
        if (s->decay_style == OC_LR_LINEAR)
            coeff = c;                                              /* SCHED-LINEAR-1 */
        else
            coeff = half_cosine_of_complement(c);                   /* SCHED-COSINE-1 */
    }
    return sched_lerp(min_lr, max_lr, coeff);                       /* SCHED-DECAY-1 */
}

/* The weight decay at position n, before the group multiplier (SCHED-WD-1). */
/*@ requires \valid_read(s) && sched_ok(s);
    requires 0 <= n;
    requires OC_SCHED_CORRECT <= mu < OC_SCHED_MUTANT_COUNT;
    assigns \nothing;
    ensures s->start_wd <= \result <= s->end_wd;
*/
static ext sched_wd(const oc_schedule *s, int64_t n, oc_schedule_mutant mu)
{
    int64_t N = s->wd_incr_steps;
    if (n > N || s->wd_style == OC_WD_CONSTANT)
        return s->end_wd;
    ext coeff;
    if (s->wd_style == OC_WD_LINEAR)
        coeff = ratio(n, N);
    else if (mu == OC_SCHED_MUT_WD_COSINE_DECREASING)
        coeff = half_cosine_of_complement(ratio(N - n, N));         /* 0.5 (cos(pi r) + 1) */
    else
        coeff = half_cosine_of_complement(ratio(n, N));             /* 0.5 (cos(pi (1-r)) + 1) */
    if (coeff == 1)
        return s->end_wd;
    return s->start_wd + coeff * ((ext)s->end_wd - s->start_wd);
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
              \min(s->min_lr, s->init_lr) <= *lr <= s->max_lr;
      ensures \result == OC_OK && mutant == OC_SCHED_CORRECT ==>
              \round_double(\NearestEven, s->start_wd * s->wd_mult) <= *wd <=
              \round_double(\NearestEven, s->end_wd * s->wd_mult);
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
    double l = sched_lr(s, samples, mutant);
    /* SCHED-MULT-1: at the ends of the increment the binary64 product is the correctly rounded
     * value; inside, the extended product is rounded once (rounding an extended product of an
     * end value would round twice). */
    ext x = sched_wd(s, samples, mutant);
    double w = x == s->end_wd     ? s->end_wd * s->wd_mult
               : x == s->start_wd ? s->start_wd * s->wd_mult
                                  : (double)(x * s->wd_mult);
    *lr = l;
    *wd = w;
    return OC_OK;
}
