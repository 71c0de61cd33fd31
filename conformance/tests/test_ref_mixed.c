/* Unit tests of the storage formats (ref/formats.c) and the mixed-precision step
 * (ref/mixed.c) against spec/mixed.md. Conversions are checked against an independent oracle:
 * the nearest 16-bit value found by binary search over the table of widened values, with
 * differences taken exactly in binary64. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cunit_main.h"
#include "../mutants/mixed.h"

static float f32_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static uint16_t max_finite(oc_format f) { return f == OC_FMT_BF16 ? 0x7f7f : 0x7bff; }
static uint16_t infinity_bits(oc_format f) { return f == OC_FMT_BF16 ? 0x7f80 : 0x7c00; }

/* MP-CONV-1 by search: the largest encoding whose value is <= |x|, then the nearer of it and
 * the next one (ties to the even encoding; past the largest finite value the "next" one is
 * the next power of two, i.e. overflow). truncate: the lower one. */
static uint16_t oracle(oc_format f, float x, int truncate)
{
    double ax = fabs((double)x);
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    if (isinf(ax))
        return sign | infinity_bits(f);
    int lo = 0, hi = max_finite(f);
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((double)oc_widen(f, (uint16_t)mid) <= ax)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (truncate)
        return sign | (uint16_t)lo;
    double a = oc_widen(f, (uint16_t)lo);
    double b = lo == max_finite(f) /* past it: the next power of two */
                   ? ldexp(1.0, f == OC_FMT_BF16 ? 128 : 16)
                   : oc_widen(f, (uint16_t)(lo + 1));
    int up = ax - a > b - ax || (ax - a == b - ax && (lo & 1));
    return sign | (uint16_t)(up ? lo + 1 : lo); /* lo + 1 past max_finite is the infinity */
}

static long check_value(oc_format f, float x)
{
    long bad = 0;
    if (isnan(x))
        return 0;
    bad += oc_narrow(f, x) != oracle(f, x, 0);
    bad += oc_narrow_toward_zero(f, x) != oracle(f, x, 1);
    return bad;
}

/* Every rounding boundary: the midpoint between each pair of neighbouring 16-bit values (a
 * binary32 value) and its binary32 neighbours, both signs. */
static void test_narrow_midpoints(void)
{
    for (int f = OC_FMT_BF16; f <= OC_FMT_F16; f++) {
        long bad = 0;
        for (uint32_t h = 0; h < max_finite((oc_format)f); h++) {
            double mid = ((double)oc_widen(f, (uint16_t)h) + oc_widen(f, (uint16_t)(h + 1))) / 2;
            float m = (float)mid;
            CU_ASSERT_EQUAL_FATAL((double)m, mid); /* the midpoint is a binary32 value */
            float cand[] = {m, nextafterf(m, 0), nextafterf(m, INFINITY), -m};
            for (int k = 0; k < 4; k++)
                bad += check_value((oc_format)f, cand[k]);
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
}

/* A spread of binary32 bit patterns over every exponent. */
static void test_narrow_spread(void)
{
    uint64_t s = 12345;
    for (int f = OC_FMT_BF16; f <= OC_FMT_F16; f++) {
        long bad = 0;
        for (int i = 0; i < 1 << 20; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            bad += check_value((oc_format)f, f32_of((uint32_t)(s >> 32)));
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
}

/* Overflow, subnormals, zeros, infinities, NaN (MP-CONV-1) and exact widening (MP-CONV-2). */
static void test_specials(void)
{
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_F16, 65504.0f), 0x7bff);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_F16, 65519.996f), 0x7bff);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_F16, 65520.0f), 0x7c00);
    CU_ASSERT_EQUAL(oc_narrow_toward_zero(OC_FMT_F16, 1e6f), 0x7bff);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_F16, -1e6f), 0xfc00);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_F16, 0x1p-24f), 0x0001);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_F16, 0x1p-25f), 0x0000);    /* tie to even: zero */
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_F16, 0x1.8p-24f), 0x0002);  /* tie to even: 2 */
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_BF16, FLT_MAX), 0x7f80);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_BF16, 0x1p-149f), 0x0000);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_BF16, -0.0f), 0x8000);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_BF16, 1.0f + 0x1p-8f), 0x3f80);  /* tie to even: down */
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_BF16, 1.0f + 0x3p-8f), 0x3f82);  /* tie to even: up */
    for (int f = OC_FMT_BF16; f <= OC_FMT_F16; f++) {
        float qn = f32_of(0x7fc00000u), sn = f32_of(0xff800001u); /* quiet NaN, -signalling */
        uint16_t a = oc_narrow(f, qn), b = oc_narrow(f, sn);
        CU_ASSERT(isnan(oc_widen(f, a)) && !signbit(oc_widen(f, a)));
        CU_ASSERT(isnan(oc_widen(f, b)) && signbit(oc_widen(f, b)));
        CU_ASSERT((bits_of(oc_widen(f, b)) & 0x00400000u) != 0); /* quiet */
        long bad = 0;
        for (uint32_t h = 0; h < 0x10000; h++) {
            float w = oc_widen(f, (uint16_t)h);
            bad += !isnan(w) && oc_narrow(f, w) != h; /* widening exact, narrowing inverts */
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
    CU_ASSERT_EQUAL(oc_widen(OC_FMT_F16, 0x0001), 0x1p-24f);
    CU_ASSERT_EQUAL(oc_widen(OC_FMT_BF16, 0x0001), 0x1p-133f);
    CU_ASSERT_EQUAL(oc_narrow(OC_FMT_F32, 1.0f), 0);
    CU_ASSERT_EQUAL(oc_widen(OC_FMT_F32, 0x3f80), 0.0f); /* not a 16-bit format */
    CU_ASSERT_STRING_EQUAL(oc_format_name(OC_FMT_BF16), "bf16");
    oc_format f;
    CU_ASSERT_EQUAL(oc_format_parse("f16", &f), OC_OK);
    CU_ASSERT_EQUAL(f, OC_FMT_F16);
    CU_ASSERT_EQUAL(oc_format_parse("fp16", &f), OC_ERR_BAD_PROFILE);
    CU_ASSERT_EQUAL(oc_format_parse(NULL, &f), OC_ERR_BAD_PROFILE);
    CU_ASSERT_PTR_NULL(oc_format_name(OC_FMT_COUNT));
}

enum { N = 700 }; /* more than the reference's chunk, not a multiple of it */

typedef struct mp_case {
    float master[N], g[N], state[3][N];
    uint16_t param[N], state16[3][N];
} mp_case;

static void fill(mp_case *c, oc_format sf)
{
    for (int i = 0; i < N; i++) {
        c->master[i] = 1.0f + 0x1p-20f * (float)(i * 37 % 1000) - 0.5f * (float)(i % 3);
        c->g[i] = 0.01f * (float)((i * 13) % 21 - 10);
        c->state[0][i] = 1e-3f * (float)(i % 7 - 3);
        c->state[1][i] = 1e-5f * (float)(i % 5 + 1);
        for (int k = 0; k < 2 && sf != OC_FMT_F32; k++) {
            c->state16[k][i] = oc_narrow(sf, c->state[k][i]);
            c->state[k][i] = oc_widen(sf, c->state16[k][i]);
        }
    }
}

static const oc_adam_hparams adamw = {.profile = OC_ADAM_TORCH, .lr = 0x1p-10, .beta1 = 0.875,
                                      .beta2 = 0.9921875, .eps = 0x1p-27, .weight_decay = 0.0625,
                                      .schedule_multiplier = 1, .decoupled = 1};

/* MP-STORE-1, MP-STORE-2: the mixed step is the fp32 step followed by the narrowings. */
static void test_composition(void)
{
    for (int sf = OC_FMT_F32; sf <= OC_FMT_BF16; sf++) {
        static mp_case c, fp;
        fill(&c, (oc_format)sf);
        for (int i = 0; i < N; i++)
            c.param[i] = oc_narrow(OC_FMT_BF16, c.master[i]);
        fp = c;
        oc_storage s = {OC_FMT_BF16, (oc_format)sf};
        void *st[] = {sf == OC_FMT_F32 ? (void *)c.state[0] : c.state16[0],
                      sf == OC_FMT_F32 ? (void *)c.state[1] : c.state16[1]};
        CU_ASSERT_EQUAL_FATAL(oc_ref_mixed_step(OC_ALG_ADAM, &adamw, &s, 5, N, c.param,
                                                c.master, st, c.g), OC_OK);
        CU_ASSERT_EQUAL_FATAL(oc_ref_adam_step(&adamw, 5, N, fp.master, fp.state[0],
                                               fp.state[1], NULL, fp.g), OC_OK);
        long bad = 0;
        for (int i = 0; i < N; i++) {
            bad += bits_of(c.master[i]) != bits_of(fp.master[i]);
            bad += c.param[i] != oc_narrow(OC_FMT_BF16, fp.master[i]);
            for (int k = 0; k < 2; k++)
                bad += sf == OC_FMT_F32 ? bits_of(c.state[k][i]) != bits_of(fp.state[k][i])
                                        : c.state16[k][i] != oc_narrow(OC_FMT_BF16, fp.state[k][i]);
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
}

/* MP-MASTER-1: sub-ulp updates move the master, not the bf16 parameter; the mutant that
 * re-creates the master from the parameter loses them. */
static void test_master_accumulates(void)
{
    static float master[N], mut_master[N], g[N], buf[N], mbuf[N];
    static uint16_t param[N], mut_param[N];
    oc_sgd_hparams sgd = {.profile = OC_SGD_TORCH, .lr = 0x1p-16};
    oc_storage s = {OC_FMT_BF16, OC_FMT_F32};
    for (int i = 0; i < N; i++) {
        master[i] = mut_master[i] = 1.0f;
        param[i] = mut_param[i] = oc_narrow(OC_FMT_BF16, 1.0f);
        g[i] = 1.0f;
    }
    void *st[] = {buf}, *mst[] = {mbuf};
    for (int t = 1; t <= 64; t++) {
        CU_ASSERT_EQUAL(oc_ref_mixed_step(OC_ALG_SGD, &sgd, &s, t, N, param, master, st, g),
                        OC_OK);
        CU_ASSERT_EQUAL(oc_mixed_mutant_step(OC_MIXED_MUT_MASTER_FROM_PARAM, OC_ALG_SGD, &sgd, &s,
                                             t, N, mut_param, mut_master, mst, g), OC_OK);
    }
    CU_ASSERT_EQUAL(master[0], 1.0f - 64 * 0x1p-16f); /* exact: dyadic steps */
    CU_ASSERT_EQUAL(param[0], oc_narrow(OC_FMT_BF16, 1.0f - 0x1p-10f));
    CU_ASSERT_EQUAL(mut_master[0], 1.0f - 0x1p-16f); /* every step starts again from 1 */
    CU_ASSERT_EQUAL(mut_param[0], oc_narrow(OC_FMT_BF16, 1.0f));
}

/* oc_ref_mixed_step's status, asserted equal to what oc_mixed_check predicts (MP-ERR-1). */
static oc_status checked_step(oc_algorithm alg, const void *hp, const oc_storage *s, int64_t t,
                              size_t n, void *param, float *master, void *const *state,
                              const float *g)
{
    oc_status st = oc_mixed_check(alg, hp, s, t, n, param, master, state, g);
    CU_ASSERT_EQUAL(oc_ref_mixed_step(alg, hp, s, t, n, param, master, state, g), st);
    return st;
}

/* MP-ERR-1: every rejection leaves every buffer as it was. */
static void test_rejections(void)
{
    static mp_case c, before;
    fill(&c, OC_FMT_BF16);
    for (int i = 0; i < N; i++)
        c.param[i] = oc_narrow(OC_FMT_F16, c.master[i]);
    before = c;
    oc_storage s = {OC_FMT_F16, OC_FMT_BF16};
    void *st[] = {c.state16[0], c.state16[1]};
    oc_adam_hparams nan_lr = adamw;
    nan_lr.lr = NAN;
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &nan_lr, &s, 1, N, c.param, c.master, st,
                                      c.g), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &s, 0, N, c.param, c.master, st,
                                      c.g), OC_ERR_BAD_STEP);
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &s, 1, N, c.param, NULL, st, c.g),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &s, 1, N - 1,
                                      (char *)c.param + 1, c.master, st, c.g),
                    OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &s, 1, N, c.param,
                                      (float *)(void *)c.param, st, c.g), OC_ERR_ALIASING);
    void *overlap[] = {c.state16[0], c.state16[0] + 1};
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &s, 1, N, c.param, c.master,
                                      overlap, c.g), OC_ERR_ALIASING);
    oc_storage bad_fmt = {OC_FMT_F16, OC_FMT_COUNT};
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &bad_fmt, 1, N, c.param, c.master,
                                      st, c.g), OC_ERR_BAD_PROFILE);
    bad_fmt = (oc_storage){OC_FMT_COUNT, OC_FMT_BF16};
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &bad_fmt, 1, N, c.param, c.master,
                                      st, c.g), OC_ERR_BAD_PROFILE);
    oc_storage fp32 = {OC_FMT_F32, OC_FMT_F32};
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &fp32, 1, N, c.master, c.master,
                                      st, c.g), OC_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(checked_step(OC_ALG_COUNT, &adamw, &s, 1, N, c.param, c.master, st,
                                      c.g), OC_ERR_BAD_PROFILE);
    /* n = 0: state may be NULL (nothing is read), the hyper-parameters are still checked. */
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &adamw, &s, 1, 0, c.param, c.master, NULL,
                                      c.g), OC_OK);
    CU_ASSERT_EQUAL(checked_step(OC_ALG_ADAM, &nan_lr, &s, 1, 0, c.param, c.master, NULL,
                                      c.g), OC_ERR_BAD_HPARAM);
    CU_ASSERT(memcmp(&c, &before, sizeof c) == 0);
}

static void test_catalogue(void)
{
    for (int mu = 0; mu < OC_MIXED_MUTANT_COUNT; mu++) {
        CU_ASSERT_PTR_NOT_NULL(oc_mixed_mutant_name((oc_mixed_mutant)mu));
        CU_ASSERT_PTR_NOT_NULL(oc_mixed_mutant_description((oc_mixed_mutant)mu));
    }
    CU_ASSERT_PTR_NULL(oc_mixed_mutant_name(OC_MIXED_MUTANT_COUNT));
    oc_sgd_hparams sgd = {.profile = OC_SGD_TORCH, .momentum = 0.5};
    oc_adam_hparams ams = adamw;
    ams.amsgrad = 1;
    oc_lion_hparams lion = {.profile = OC_LION_TORCH};
    CU_ASSERT_EQUAL(oc_algorithm_state_count(OC_ALG_ADAM, &adamw), 2);
    CU_ASSERT_EQUAL(oc_algorithm_state_count(OC_ALG_ADAM, &ams), 3);
    CU_ASSERT_EQUAL(oc_algorithm_state_count(OC_ALG_SGD, &sgd), 1);
    sgd.momentum = 0;
    CU_ASSERT_EQUAL(oc_algorithm_state_count(OC_ALG_SGD, &sgd), 0);
    CU_ASSERT_EQUAL(oc_algorithm_state_count(OC_ALG_LION, &lion), 1);
    CU_ASSERT_EQUAL(oc_algorithm_state_count(OC_ALG_COUNT, &lion), -1);
}

void register_suites(void)
{
    ADD_SUITE("formats",
              {"narrowing at every rounding boundary (MP-CONV-1, MP-FMT-1)", test_narrow_midpoints},
              {"narrowing over 2^20 bit patterns (MP-CONV-1)", test_narrow_spread},
              {"specials and widening (MP-CONV-1, MP-CONV-2)", test_specials});
    ADD_SUITE("mixed-step",
              {"fp32 step then narrowing (MP-STORE-1, MP-STORE-2, MP-STORE-3)", test_composition},
              {"master accumulates sub-ulp updates (MP-MASTER-1)", test_master_accumulates},
              {"rejections write nothing (MP-ERR-1)", test_rejections},
              {"catalogue and state counts (MP-COMB-1)", test_catalogue});
}
