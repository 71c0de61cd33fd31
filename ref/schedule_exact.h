/* Extended-precision evaluation primitives of the schedule reference (ref/schedule_exact.c),
 * called by ref/schedule.c. Internal to ref/: not part of the public API.
 *
 * Each primitive is given a ratio as two integers num / den and binary64 end points, and
 * returns the binary64 value of one shape of spec/schedule.md §1, computed in `long double`
 * and rounded once (SCHED-TOL-1). The ACSL contracts below state the ranges that WP assumes
 * when it proves ref/schedule.c (SCHED-RANGE-1). No prover checks them against the code: Frama-C
 * 25's WP cannot read `long double` (proofs/STATUS.md, "ref/schedule.c"); the unit tests and,
 * for the linear shape, Eva do. */
#ifndef OPTCERT_REF_SCHEDULE_EXACT_H
#define OPTCERT_REF_SCHEDULE_EXACT_H

#include <stdint.h>

/* The coefficient c(x) in [0, 1] of a ratio x = num / den in [0, 1], c(0) = 0, c(1) = 1. */
typedef enum oc_sched_shape {
    OC_SCHED_LINEAR = 0,   /* x                                    SCHED-LINEAR-1, SCHED-WD-1 */
    OC_SCHED_HALF_COSINE,  /* sin^2(pi x / 2) = 0.5 (cos(pi (1 - x)) + 1)
                                                         SCHED-COSINE-1, SCHED-WSD-1, SCHED-WD-1 */
    OC_SCHED_EXP2M1,       /* 2^x - 1                                            SCHED-WSD-1 */
    OC_SCHED_ONE_MINUS_SQRT_COMPLEMENT, /* 1 - sqrt(1 - x)                        SCHED-WSD-1 */
    OC_SCHED_SHAPE_COUNT
} oc_sched_shape;

/*@ predicate sched_ends_ok(double lo, double hi) =
        \is_finite(lo) && \is_finite(hi) && 0.0 <= lo <= hi;
*/

/* lo + c(num / den) (hi - lo), rounded once to binary64; hi when c is 1. The linear shape also
 * accepts num > den (oc_schedule_warmup_lr extends the warmup line past W). */
/*@ requires sched_ends_ok(lo, hi);
    requires OC_SCHED_LINEAR <= shape < OC_SCHED_SHAPE_COUNT;
    requires 0 < den && 0 <= num;
    requires shape != OC_SCHED_LINEAR ==> num <= den;
    assigns \nothing;
    ensures num <= den ==> \is_finite(\result) && lo <= \result <= hi;
*/
double oc_sched_interpolate(double lo, double hi, oc_sched_shape shape, int64_t num, int64_t den);

/* (lo + c(num / den) (hi - lo)) * mult, rounded once to binary64 (SCHED-WD-1, SCHED-MULT-1);
 * where the interpolated value is lo or hi exactly, the binary64 product lo * mult or
 * hi * mult. */
/*@ requires sched_ends_ok(lo, hi);
    requires \is_finite(mult) && 0.0 <= mult;
    requires \is_finite(\round_double(\NearestEven, hi * mult));
    requires OC_SCHED_LINEAR <= shape < OC_SCHED_SHAPE_COUNT;
    requires 0 < den && 0 <= num <= den;
    assigns \nothing;
    ensures \is_finite(\result);
    ensures \round_double(\NearestEven, lo * mult) <= \result <=
            \round_double(\NearestEven, hi * mult);
*/
double oc_sched_interpolate_scaled(double lo, double hi, double mult, oc_sched_shape shape,
                                   int64_t num, int64_t den);

/* x sqrt(num / den), rounded once to binary64 (SCHED-ISQRT-1). */
/*@ requires \is_finite(x) && 0.0 <= x;
    requires 0 < num <= den;
    assigns \nothing;
    ensures \is_finite(\result) && 0.0 <= \result <= x;
*/
double oc_sched_scaled_sqrt_ratio(double x, int64_t num, int64_t den);

#endif
