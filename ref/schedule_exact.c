/* Schedule reference, part 2 of 2: the extended-precision evaluation primitives (contracts and
 * the shapes: ref/schedule_exact.h). ref/schedule.c decides which phase a position is in and
 * which integers num / den form the ratio; this file turns them into values. Scalar C11, no
 * allocation, no I/O, no globals.
 *
 * Exact-class evaluation (SCHED-TOL-1): every value is evaluated in extended precision
 * (`long double`: a 64-bit significand on x86-64, 113 bits on aarch64) and rounded once to
 * binary64. The formulas are those of spec/schedule.md §1 in exact arithmetic, written in forms
 * that do not cancel: Megatron's 0.5 (cos(pi r) + 1) near r = 1, 1 - r near r = 1 and
 * 2 * 0.5^w - 1 near w = 1 all lose most of their digits when the coefficient is small; here
 * the caller forms the complement 1 - r exactly from integers and the coefficients become
 * sin^2(pi (1 - r) / 2), (1 - r), 2^(1 - w) - 1 = expm1((1 - w) ln 2) and
 * (1 - w) / (1 + sqrt(w)). With every term of lo + c (hi - lo) non-negative, the extended result
 * is within a few units of 2^-64 relative of exact, so the one rounding to binary64 lands
 * within 1 ulp (measured: at most 0.5 ulp on the committed vectors).
 *
 * Why the range contracts of ref/schedule_exact.h hold, given libm: sinl(x) in [0, 1] for
 * x in [0, pi/2]; expm1l(x) in [0, 1] for x in [0, ln 2] (a libm error of a unit of 2^-64
 * above 1 is absorbed by the final rounding); sqrtl is correctly rounded (monotone,
 * sqrt(1) = 1). So every coefficient is in [0, 1], lo + c (hi - lo) >= lo, and for c < 1 the
 * extended value exceeds hi by less than half a binary64 ulp of hi; rounding to binary64 is
 * monotone and the ends are binary64 values, so the range holds after the final rounding.
 */
#include <math.h>
#include "schedule_exact.h"

typedef long double ext; /* extended precision of the intermediate values */

static const ext sched_pi = 3.141592653589793238462643383279502884L; /* M_PI is not C11 */
static const ext sched_ln2 = 0.693147180559945309417232121458176568L;

/* c(num / den) of the shape (int64 values convert exactly to ext). */
static ext coefficient(oc_sched_shape shape, int64_t num, int64_t den)
{
    ext x = (ext)num / (ext)den;
    switch (shape) {
    case OC_SCHED_HALF_COSINE: {
        ext s = sinl(sched_pi * x / 2);
        return s * s;
    }
    case OC_SCHED_EXP2M1:
        return expm1l(x * sched_ln2);
    case OC_SCHED_ONE_MINUS_SQRT_COMPLEMENT:                   /* (1 - y) / (1 + sqrt(y)) */
        return x / (1 + sqrtl((ext)(den - num) / (ext)den));   /* y = 1 - x, exactly */
    default:
        return x;
    }
}

double oc_sched_interpolate(double lo, double hi, oc_sched_shape shape, int64_t num, int64_t den)
{
    ext c = coefficient(shape, num, den);
    if (c == 1)
        return hi;
    return (double)(lo + c * ((ext)hi - (ext)lo));
}

/* At the ends the binary64 product is the correctly rounded value; inside, the extended
 * product is rounded once (rounding an extended product of an end value would round twice). */
double oc_sched_interpolate_scaled(double lo, double hi, double mult, oc_sched_shape shape,
                                   int64_t num, int64_t den)
{
    ext c = coefficient(shape, num, den);
    if (c == 1)
        return hi * mult;
    ext x = lo + c * ((ext)hi - (ext)lo);
    return x == hi ? hi * mult : x == lo ? lo * mult : (double)(x * mult);
}

double oc_sched_scaled_sqrt_ratio(double x, int64_t num, int64_t den)
{
    return (double)(x * sqrtl((ext)num / (ext)den));
}
