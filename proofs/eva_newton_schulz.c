/* Eva driver for oc_ref_newton_schulz (ref/newton_schulz.c). The mutants
 * (conformance/mutants/newton_schulz.c) recombine its pieces on inputs of these ranges (other
 * tuples, step counts and eps modes among them); their own code is not analysed here.
 *
 * Analysed together with ref/newton_schulz.c and ref/buffers.c, with -warn-special-float
 * non-finite: "0 alarms" means that for every input in the ranges below no float/double
 * operation yields NaN or an infinity (normalisation, Gram products, the polynomial, the
 * final binary32 conversion), no access is out of
 * bounds or uninitialised, and no integer operation overflows.
 *
 * Stated ranges (every combination is analysed):
 *   shape              every rows, cols in [1, 3] (tall, wide, square, 1 x 1), one call each
 *   g                  fp32 in [-1e30, 1e30], any of them zero
 *   profile            every oc_ns_profile (its published tuples, schedule and eps mode)
 *   coefficients       additionally one arbitrary tuple with a, b, c in [-128, 128]
 *   steps              [1, 12] (every default count 4, 5, 8, 10, one more and one fewer, and
 *                      more steps than tuples; the per-step argument below does not depend on it)
 *   eps                [2^-149, 1];  norm_scale [1, 2]
 *
 * Why no infinity: the input is finite (checked), d >= eps >= 2^-149 so |x_ij| <= 1e30 * 2^149
 * after the normalisation; before every iteration NS-DOM-1 stops unless |x_ij| <= 2^64, and
 * from there one iteration with |a|, |b|, |c| <= 128 and k, n <= 3 stays below 2^350.
 */
#include "__fc_builtin.h"
#include "optcert/newton_schulz.h"

#define MAXN 3

static float g[MAXN * MAXN], out[MAXN * MAXN];
static double work[2 * MAXN * MAXN + 2 * MAXN * MAXN + 2 * MAXN];

int main(void)
{
    oc_status st = OC_OK;
    for (size_t rows = 1; rows <= MAXN; rows++)
        for (size_t cols = 1; cols <= MAXN; cols++) {
            for (int i = 0; i < MAXN * MAXN; i++)
                g[i] = Frama_C_nondet(0, 1) ? 0.0f : Frama_C_float_interval(-1e30f, 1e30f);
            oc_ns_hparams hp = {0};
            st |= oc_ns_profile_defaults(
                (oc_ns_profile)Frama_C_interval(0, OC_NS_PROFILE_COUNT - 1), &hp);
            if (Frama_C_nondet(0, 1)) { /* any single tuple within NS-HP-1 */
                hp.ncoef = 1;
                hp.coef[0][0] = Frama_C_double_interval(-128.0, 128.0);
                hp.coef[0][1] = Frama_C_double_interval(-128.0, 128.0);
                hp.coef[0][2] = Frama_C_double_interval(-128.0, 128.0);
            }
            hp.steps = Frama_C_interval(1, 12);
            hp.eps = Frama_C_double_interval(0x1p-149, 1.0);
            hp.norm_scale = Frama_C_double_interval(1.0, 2.0);
            st |= oc_ref_newton_schulz(&hp, rows, cols, g, out, work,
                                       sizeof work / sizeof work[0]);
        }
    /* The name table, in and out of range, and the profile parser. */
    const char *name =
        oc_ns_profile_name((oc_ns_profile)Frama_C_interval(0, OC_NS_PROFILE_COUNT));
    oc_ns_profile parsed = OC_NS_SIMPLE;
    oc_status st2 = oc_ns_profile_parse(Frama_C_nondet(0, 1) ? "quintic" : "cubic", &parsed);
    return (int)st + (int)st2 + (int)parsed + (name != 0);
}
