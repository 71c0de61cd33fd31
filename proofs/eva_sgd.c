/* Eva driver for oc_ref_sgd_step (ref/sgd.c).
 *
 * Analysed together with ref/sgd.c and ref/buffers.c, with -warn-special-float non-finite:
 * "0 alarms" means that for every input in the ranges below no float/double operation yields
 * NaN or an infinity (including the double -> float storage conversions of the momentum
 * buffer and of p), no access is out of bounds or uninitialised, and no integer operation
 * overflows.
 *
 * Stated ranges (each hyper-parameter independently; every combination is analysed):
 *   profile            torch, ema (and one value out of range)
 *   lr                 [0, 1]
 *   momentum           [0, 0.9999]        (torch default 0, usual 0.9; Muon 0.95)
 *   dampening          [0, 1]
 *   weight_decay       [0, 1]
 *   nesterov, maximize {0, 1}
 *   step               [1, 10^9]          (step 1 and later steps)
 *   n                  [0, N] elements, N = 4
 *   p, buf, g          fp32 in [-1e4, 1e4]
 * Combinations that oc_sgd_check rejects (nesterov without momentum, dampening or maximize
 * under ema, ...) are part of the analysed ranges.
 *
 * Why these bounds are enough: every intermediate value is a sum of products of inputs by
 * coefficients in [0, 1] (lr, wd, mu, 1 - mu, 1 - dampening), so |ge| <= 2e4, |buf'| <= 3e4,
 * |dir| <= 5e4 and |p'| <= 6e4: far below FLT_MAX. SGD has no division.
 *
 * A second call covers momentum = 0 with buf == NULL (allowed by sgd.h); the name function
 * and oc_sgd_profile_parse are exercised at the end.
 */
#include "__fc_builtin.h"
#include "optcert/sgd.h"
#include "eva_hparams.h"

#define N 4

static float p[N], buf[N], g[N];

static void fill(float *a, float lo, float hi)
{
    for (int i = 0; i < N; i++)
        a[i] = Frama_C_float_interval(lo, hi);
}

static void fill_state(void)
{
    fill(p, -1e4f, 1e4f);
    fill(buf, -1e4f, 1e4f);
    fill(g, -1e4f, 1e4f);
}

int main(void)
{
    fill_state();
    oc_sgd_hparams hp = sgd_hparams();
    int64_t step = Frama_C_long_long_interval(1, 1000000000);
    size_t n = Frama_C_size_t_interval(0, N);
    oc_status st = oc_ref_sgd_step(&hp, step, n, p, buf, g);

    /* momentum 0, buf NULL; fresh inputs (one step from the stated ranges, not two) */
    fill_state();
    hp = sgd_hparams();
    hp.momentum = 0.0;
    oc_status st2 = oc_ref_sgd_step(&hp, step, n, p, NULL, g);
    /* The name table, in and out of range, and the profile parser. */
    oc_sgd_profile pr = (oc_sgd_profile)Frama_C_interval(0, OC_SGD_PROFILE_COUNT);
    const char *name = oc_sgd_profile_name(pr);
    oc_sgd_profile parsed = OC_SGD_TORCH;
    oc_status st3 = oc_sgd_profile_parse(Frama_C_nondet(0, 1) ? "ema" : "adam", &parsed);
    return (int)st + (int)st2 + (int)st3 + (int)parsed + (name != 0);
}
