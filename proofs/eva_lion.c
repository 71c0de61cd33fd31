/* Eva driver for oc_ref_lion_step (ref/lion.c).
 *
 * Analysed together with ref/lion.c and ref/buffers.c, with -warn-special-float non-finite:
 * "0 alarms" means that for every input in the ranges below no float/double operation yields
 * NaN or an infinity (including the two double -> float stores), no access is out of bounds
 * or uninitialised, and no integer operation overflows.
 *
 * Stated ranges (each hyper-parameter independently; every combination is analysed):
 *   profile            torch (and one value out of range)
 *   lr                 [0, 1]              (Lion's usual lr: 1e-4 .. 3e-4)
 *   beta1, beta2       [0, 0.9999]         (defaults 0.9, 0.99)
 *   weight_decay       [0, 10]             (usual 0.01 .. 1; lr * wd is what is applied)
 *   step               [1, 10^9]
 *   n                  [0, N] elements, N = 4
 *   p, m, g            fp32 in [-1e4, 1e4]
 *
 * Why these bounds are enough: the sign is in {-1, 0, 1}, m' is a convex combination of m and
 * g (|m'| <= 1e4), and |p'| <= |p| (1 + lr wd) + lr <= 1.1e5. The exact-sign code (TwoSum,
 * TwoProduct, Grow-Expansion) only adds and multiplies values of these magnitudes. Its fma
 * call uses Frama-C's libc contract, not a builtin (see proofs/STATUS.md).
 */
#include "__fc_builtin.h"
#include "optcert/lion.h"
#include "eva_hparams.h"

#define N 4

static float p[N], m[N], g[N];

static void fill(float *a, float lo, float hi)
{
    for (int i = 0; i < N; i++)
        a[i] = Frama_C_float_interval(lo, hi);
}

int main(void)
{
    fill(p, -1e4f, 1e4f);
    fill(m, -1e4f, 1e4f);
    fill(g, -1e4f, 1e4f);
    oc_lion_hparams hp = lion_hparams();
    int64_t step = Frama_C_long_long_interval(1, 1000000000);
    size_t n = Frama_C_size_t_interval(0, N);
    oc_status st = oc_ref_lion_step(&hp, step, n, p, m, g);

    /* The name table, in and out of range, and the profile parser. */
    oc_lion_profile pr = (oc_lion_profile)Frama_C_interval(0, OC_LION_PROFILE_COUNT);
    const char *name = oc_lion_profile_name(pr);
    oc_lion_profile parsed = OC_LION_TORCH;
    oc_status st3 = oc_lion_profile_parse(Frama_C_nondet(0, 1) ? "torch" : "adam", &parsed);
    return (int)st + (int)st3 + (int)parsed + (name != 0);
}
