/* Eva driver for ref/clip.c: oc_ref_clip_step over up to V views of up to N elements, every
 * profile and norm type (and one out of range of each).
 *
 * Analysed with ref/clip.c, proofs/fmax.c and -warn-special-float non-finite, -eva-precision 8:
 * "0 alarms" means that for every input in the ranges below no float/double operation yields
 * NaN or an infinity (the compensated sum of squares, the square root, the coefficient's
 * division, the products and their conversions to binary32 included), no access is out of
 * bounds and no integer operation overflows.
 *
 * Stated ranges: profile, inf_norm, distributed: every value (and one out of range); max_norm
 * in [-2^20, 2^20]; skip_threshold any finite value >= 2^-20 (Megatron's default +inf is only
 * compared with the norm: `norm > +inf` is false; the driver does not build +inf, since Eva
 * flags the construction of a non-finite value itself); tp, pp, dp sizes in [0, 4]; view ranks
 * in [-1, 8]; sub-optimizer index in [0, 7] (it indexes the factors: Eva does not carry the
 * range check of oc_clip_check into the caller; test_ref_clip.c covers its rejection of other
 * values); tensor_parallel, shared in {0, 1}; gradients any binary32 value
 * in [-2^60, 2^60] (finite: CLIP-FINITE-1 rejects the others before any arithmetic).
 * Bounds: squares below 2^120, their sum below 2^124; the coefficient is at most 2^20 / 1e-6
 * < 2^40 in magnitude, so every product is below 2^100. The mutants (conformance/mutants/
 * clip.c) are not analysed here.
 */
#include <math.h>
#include "__fc_builtin.h"
#include "optcert/clip.h"

#define V 2
#define N 2 /* 2 views of 2 elements: every rank/flag combination, Eva stays exact */

int main(void)
{
    static float g[V][N];
    oc_clip_view views[V];
    for (int i = 0; i < V; i++) {
        for (int j = 0; j < N; j++)
            g[i][j] = Frama_C_float_interval(-0x1p60f, 0x1p60f);
        views[i] = (oc_clip_view){Frama_C_interval(-1, 8), Frama_C_interval(-1, 8),
                                  Frama_C_interval(-1, 8), Frama_C_interval(0, 7),
                                  Frama_C_interval(0, 1), Frama_C_interval(0, 1),
                                  (size_t)Frama_C_interval(0, N), g[i]};
    }
    oc_clip_config c = {(oc_clip_profile)Frama_C_interval(0, OC_CLIP_PROFILE_COUNT),
                        Frama_C_double_interval(-0x1p20, 0x1p20), Frama_C_interval(0, 2),
                        Frama_C_double_interval(0x1p-20, 0x1.fffffffffffffp+1023),
                        Frama_C_interval(0, 1), Frama_C_interval(0, 4), Frama_C_interval(0, 4),
                        Frama_C_interval(0, 4)};
    float norm;
    int skipped;
    oc_status st = oc_ref_clip_step(&c, (size_t)Frama_C_interval(0, V), views, &norm, &skipped);
    oc_clip_profile p = OC_CLIP_MEGATRON;
    oc_status st2 = oc_clip_profile_parse(Frama_C_nondet(0, 1) ? "torch" : "optax", &p);
    return (int)st + (int)st2 + (int)p;
}
