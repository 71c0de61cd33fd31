/* Eva driver for oc_ref_adam_step (ref/adam.c).
 *
 * Analysed together with ref/adam.c, ref/buffers.c and proofs/fmax.c, with
 * -warn-special-float non-finite: "0 alarms" means that for every input in the ranges below
 * no float/double operation yields NaN or an infinity (including the double -> float
 * storage conversions), no access is out of bounds or uninitialised, and no integer
 * operation overflows. pow and sqrt are evaluated by Eva's builtins (Frama_C_pow,
 * Frama_C_sqrt); fmax by the body in proofs/fmax.c.
 *
 * Stated ranges (each hyper-parameter independently; every combination is analysed):
 *   profile            torch, optax, paper, keras (all four)
 *   lr                 [0, 1]
 *   beta1, beta2       [0, 0.9999]        (torch/optax/keras defaults: 0.9, 0.999)
 *   eps                [1e-12, 1e-3]      (defaults: 1e-8 torch/optax, 1e-7 keras)
 *   weight_decay       [0, 1]
 *   eps_root           [0, 1e-3]          (optax; its default is 0)
 *   schedule_multiplier[0, 1]             (paper's eta_t)
 *   decoupled, amsgrad, maximize in {0, 1}
 *   step               [1, 10^9]
 *   n                  [0, N] elements, N = 4
 *   p, m, g            fp32 in [-1e4, 1e4]
 *   v, vmax            fp32 in [0, 1e8]
 * Values outside HP-1 (e.g. lr < 0, beta >= 1) are rejected by oc_adam_check before any
 * arithmetic, and the options a profile does not define (eps_root != 0 outside optax, ...)
 * make it return OC_ERR_UNSUPPORTED; both outcomes are part of the analysed ranges.
 *
 * Why these bounds are enough: Eva is non-relational, so it bounds the direction by
 * |m1| / bc1 / eps <= 2e4 / 1e-4 / 1e-12 = 2e20 (bc1 >= 1 - 0.9999) and the new parameter
 * by about 2e20, far below FLT_MAX (3.4e38); g^2 <= (2e4)^2 (g plus the L2 term wd*p).
 * The lower bound on eps and the upper bound on beta are what keep the quotients finite:
 * eps > 0 and beta < 1 alone (what oc_adam_check enforces) allow eps = 4.9e-324 and
 * bc1 = 1.1e-16, for which |m| / bc1 / eps overflows binary64 -- a consequence of the
 * hyper-parameter values, not of the code.
 *
 * A second call covers amsgrad = 0 with vmax == NULL (allowed by adam.h); the name
 * function and oc_adam_profile_parse are exercised at the end.
 */
#include "__fc_builtin.h"
#include "optcert/adam.h"
#include "eva_hparams.h"

#define N 4

static float p[N], m[N], v[N], vmax[N], g[N];

static void fill(float *a, float lo, float hi)
{
    for (int i = 0; i < N; i++)
        a[i] = Frama_C_float_interval(lo, hi);
}

static void fill_state(void)
{
    fill(p, -1e4f, 1e4f);
    fill(m, -1e4f, 1e4f);
    fill(v, 0.0f, 1e8f);
    fill(vmax, 0.0f, 1e8f);
    fill(g, -1e4f, 1e4f);
}

int main(void)
{
    fill_state();
    oc_adam_hparams hp = adam_hparams();
    int64_t step = Frama_C_long_long_interval(1, 1000000000);
    size_t n = Frama_C_size_t_interval(0, N);
    oc_status st = oc_ref_adam_step(&hp, step, n, p, m, v, vmax, g);

    /* amsgrad off, vmax NULL; fresh inputs (one step from the stated ranges, not two) */
    fill_state();
    hp = adam_hparams();
    hp.amsgrad = 0;
    oc_status st2 = oc_ref_adam_step(&hp, step, n, p, m, v, NULL, g);
    /* The name table, in and out of range, and the profile parser. */
    oc_adam_profile pr = (oc_adam_profile)Frama_C_interval(0, OC_ADAM_PROFILE_COUNT);
    const char *name = oc_adam_profile_name(pr);
    oc_adam_profile parsed = OC_ADAM_TORCH;
    oc_status st3 = oc_adam_profile_parse(Frama_C_nondet(0, 1) ? "keras" : "adam", &parsed);
    return (int)st + (int)st2 + (int)st3 + (int)parsed + (name != 0);
}
