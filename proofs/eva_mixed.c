/* Eva driver for oc_ref_mixed_step and oc_mixed_check (ref/mixed.c) around the reference
 * steps of Adam, SGD and Lion: every algorithm, every storage combination (param and state
 * each f32, bf16 or f16; the master exists iff param is 16-bit).
 *
 * Analysed with ref/mixed.c, ref/formats.c, the three algorithm files, ref/buffers.c,
 * proofs/fmax.c and proofs/fma.c, with Eva's octagon domain (as for proofs/eva_formats.c) and
 * -warn-special-float non-finite: "0 alarms" means that for every input below no float or
 * double operation yields NaN or an infinity (including the widenings and the algorithm's
 * storage conversions), no access is out of bounds or uninitialised, no shift is out of range
 * and no integer operation overflows.
 *
 * Stated ranges: the hyper-parameters, step and fp32 ranges of proofs/eva_adam.c,
 * proofs/eva_sgd.c and proofs/eva_lion.c (Adam: eps >= 1e-12, beta <= 0.9999, all four
 * profiles; SGD and Lion: every profile and one out of range; amsgrad in {0, 1} and SGD
 * momentum = 0 or in (0, 0.9999] in separate calls, as the state count depends on them);
 * n in [0, N], N = 2 (the elements are independent; N = 2 keeps the run short);
 *   master, g, fp32 param and state   fp32 in [-1e4, 1e4] (Adam v, vmax: [0, 1e8])
 *   16-bit param and state            every bit pattern of one sign whose value is finite and
 *                                     within the same ranges: bf16 |x| <= 9984 (0x461c),
 *                                     f16 |x| <= 1e4 (0x70e2); Adam v, vmax >= 0, bf16 <=
 *                                     9.96e7 (0x4cbe), f16 every finite value (<= 65504).
 * Eva keeps a 16-bit pattern interval exact only for one sign, so each 16-bit tensor is
 * analysed once with its non-negative and once with its non-positive patterns (the step is
 * element-wise: each element's result depends on its own inputs only, so this covers every
 * sign combination of an element's inputs).
 */
#include <stddef.h>
#include "__fc_builtin.h"
#include "optcert/mixed.h"
#include "eva_hparams.h"

#define N 2

static float master[N], g[N], param32[N], state32[OC_MIXED_MAX_STATE][N];
static uint16_t param16[N], state16[OC_MIXED_MAX_STATE][N];
static volatile int sink; /* volatile: the results do not keep Eva's states apart */

static void fill32(float *a, float lo, float hi)
{
    for (int i = 0; i < N; i++)
        a[i] = Frama_C_float_interval(lo, hi);
}

/* Every pattern sign + [0, top]. */
static void fill16(uint16_t *a, uint16_t sign, uint16_t top)
{
    for (int i = 0; i < N; i++)
        a[i] = (uint16_t)(sign + Frama_C_interval(0, top));
}

/* The largest pattern of 16-bit format f whose value is <= 1e4 (big = 0: p, m, buf, g) or
 * <= 1e8 (big = 1: Adam's v, vmax). */
static uint16_t top16(oc_format f, int big)
{
    if (f == OC_FMT_BF16)
        return big ? 0x4cbe : 0x461c;
    return big ? 0x7bff : 0x70e2;
}

/* One step of alg under storage (pf, sf); param_neg, state_neg: the sign of the 16-bit
 * param and of the signed 16-bit state (Adam's v and vmax are non-negative); with_state:
 * Adam with AMSGrad, SGD with momentum > 0 (else amsgrad = 0, momentum = 0), so that the
 * number of state tensors is known to Eva. */
static void run(oc_algorithm alg, oc_format pf, oc_format sf, int param_neg, int state_neg,
                int with_state)
{
    oc_adam_hparams adam = adam_hparams();
    adam.amsgrad = with_state;
    oc_sgd_hparams sgd = sgd_hparams();
    sgd.momentum = with_state ? Frama_C_double_interval(0x1p-1074, 0.9999) : 0.0;
    oc_lion_hparams lion = lion_hparams();
    const void *hp = alg == OC_ALG_ADAM ? (const void *)&adam
                     : alg == OC_ALG_SGD ? (const void *)&sgd
                                         : (const void *)&lion;
    fill32(master, -1e4f, 1e4f);
    fill32(g, -1e4f, 1e4f);
    fill32(param32, -1e4f, 1e4f);
    if (pf != OC_FMT_F32)
        fill16(param16, param_neg ? 0x8000 : 0, top16(pf, 0));
    void *state[OC_MIXED_MAX_STATE];
    for (int k = 0; k < OC_MIXED_MAX_STATE; k++) {
        const int nonneg = alg == OC_ALG_ADAM && k > 0;
        if (sf == OC_FMT_F32) {
            fill32(state32[k], nonneg ? 0.0f : -1e4f, nonneg ? 1e8f : 1e4f);
            state[k] = state32[k];
        } else {
            fill16(state16[k], state_neg && !nonneg ? 0x8000 : 0, top16(sf, nonneg));
            state[k] = state16[k];
        }
    }
    oc_storage s = {pf, sf};
    int64_t step = Frama_C_long_long_interval(1, 1000000000);
    size_t n = Frama_C_size_t_interval(0, N);
    void *param = pf == OC_FMT_F32 ? (void *)param32 : param16;
    float *m = pf == OC_FMT_F32 ? NULL : master;
    sink = oc_mixed_check(alg, hp, &s, step, n, param, m, state, g);
    sink = oc_ref_mixed_step(alg, hp, &s, step, n, param, m, state, g);
}

/* Every sign of the 16-bit tensors of this combination, with and without the optional
 * state (Lion: always one state tensor). */
static void run_signs(oc_algorithm alg, oc_format pf, oc_format sf)
{
    for (int param_neg = 0; param_neg <= (pf != OC_FMT_F32); param_neg++)
        for (int state_neg = 0; state_neg <= (sf != OC_FMT_F32); state_neg++)
            for (int with_state = alg == OC_ALG_LION; with_state <= 1; with_state++)
                run(alg, pf, sf, param_neg, state_neg, with_state);
}

int main(void)
{
    /*@ loop unroll 3; */
    for (int alg = 0; alg < OC_ALG_COUNT; alg++)
        /*@ loop unroll 3; */
        for (int pf = 0; pf < OC_FMT_COUNT; pf++)
            /*@ loop unroll 3; */
            for (int sf = 0; sf < OC_FMT_COUNT; sf++)
                run_signs((oc_algorithm)alg, (oc_format)pf, (oc_format)sf);
    /* Rejections before any write: unknown algorithm and format, missing or extra master. */
    oc_storage bad = {(oc_format)Frama_C_interval(0, OC_FMT_COUNT), OC_FMT_COUNT};
    void *state[OC_MIXED_MAX_STATE] = {state32[0], state32[1], state32[2]};
    oc_sgd_hparams sgd = sgd_hparams();
    sink = oc_ref_mixed_step(OC_ALG_COUNT, &sgd, &bad, 1, N, param32, NULL, state, g);
    oc_storage f16 = {OC_FMT_F16, OC_FMT_F32};
    sink = oc_ref_mixed_step(OC_ALG_SGD, &sgd, &f16, 1, N, param16, NULL, state, g);
    /* The state count. */
    return oc_algorithm_state_count(Frama_C_nondet(0, 1) ? OC_ALG_SGD : OC_ALG_COUNT,
                                    Frama_C_nondet(0, 1) ? (const void *)&sgd : NULL);
}
