/* Unit tests of TE's storage reference (ref/te_storage.c) and of its mutants
 * (conformance/mutants/te_storage.c) against spec/te_storage.md. Expected
 * values are written from the rules (bit patterns, powers of two, closed forms), not taken from
 * the reference. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include "cunit_main.h"
#include "judge.h"
#include "optcert/te_storage.h"
#include "../mutants/te_storage.h"
#include "vectors.h"

typedef union { float f; uint32_t u; } f32u;
static uint32_t bits(float x) { return (f32u){.f = x}.u; }
static float from_bits(uint32_t u) { return (f32u){.u = u}.f; }

/* TESTORE-SPLIT-2: reconstruct(split(u)) == u for every high half with the low halves around
 * the round-up boundary and the extremes (test_te_storage_exhaustive, label heavy, runs all
 * 2^32; the WP part split_wp proves it). */
static void test_roundtrip(void)
{
    static const uint32_t lows[] = {0x0000, 0x0001, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff};
    uint32_t bad = 0;
    for (uint32_t hi = 0; hi < 0x10000u; hi++)
        for (size_t j = 0; j < sizeof lows / sizeof lows[0]; j++) {
            const uint32_t u = hi << 16 | lows[j];
            bad += oc_te_join(oc_te_split_param(u), (uint16_t)(u & 0xffffu)) != u;
        }
    CU_ASSERT_EQUAL(bad, 0);
}

/* TESTORE-SPLIT-1: the remainder's sign decides the round-up; ties go away from zero. */
static void test_split_ties_and_sign(void)
{
    CU_ASSERT_EQUAL(oc_te_split_param(0x3f807fffu), 0x3f80); /* below half: kept */
    CU_ASSERT_EQUAL(oc_te_split_param(0x3f808000u), 0x3f81); /* tie, even high half: up */
    CU_ASSERT_EQUAL(oc_te_split_param(0x3f818000u), 0x3f82); /* tie, odd: up (RNE agrees) */
    CU_ASSERT_EQUAL(oc_te_split_param(0x3f808001u), 0x3f81);
    CU_ASSERT_EQUAL(oc_te_split_param(0xbf808000u), 0xbf81); /* negative: magnitude up */
    /* The one difference from round-to-nearest-even (MP-CONV-1): even ties. */
    for (uint32_t hi = 0x3f00; hi < 0x3f10; hi++) {
        const uint32_t u = hi << 16 | 0x8000u;
        const uint16_t rne = hi & 1u ? (uint16_t)(hi + 1) : (uint16_t)hi;
        CU_ASSERT_EQUAL(oc_te_split_param(u), hi + 1);
        CU_ASSERT_EQUAL(oc_te_split_param(u) != rne, !(hi & 1u));
    }
    /* The parameter is the nearest bf16 on values: |x - param| <= half a bf16 ulp. */
    const float x = from_bits(0x40490fdbu); /* pi */
    const float p = from_bits((uint32_t)oc_te_split_param(bits(x)) << 16);
    CU_ASSERT(fabsf(x - p) <= 0x1p-7f);
}

/* TESTORE-SPLIT-1: carries through the exponent; overflow to infinity; NaN wraps. */
static void test_split_carry(void)
{
    CU_ASSERT_EQUAL(oc_te_split_param(0x3fffc000u), 0x4000); /* 1.99.. -> 2 */
    CU_ASSERT_EQUAL(oc_te_split_param(0x007f8000u), 0x0080); /* subnormal -> smallest normal */
    CU_ASSERT_EQUAL(oc_te_split_param(0x7f7f8000u), 0x7f80); /* 2^128 - 2^119 -> inf */
    CU_ASSERT_EQUAL(oc_te_split_param(0x7f7f7fffu), 0x7f7f);
    CU_ASSERT_EQUAL(oc_te_split_param(0x7f800000u), 0x7f80); /* inf */
    CU_ASSERT_EQUAL(oc_te_split_param(0x7fffffffu), 0x8000); /* NaN -> -0.0 */
    CU_ASSERT_EQUAL(oc_te_split_param(0xffffffffu), 0x0000); /* NaN -> +0.0 */
    CU_ASSERT_EQUAL(oc_te_split_param(0x80000000u), 0x8000); /* -0 */
    CU_ASSERT_EQUAL(oc_te_join(0x8000, 0xffff), 0x7fffffffu);
    CU_ASSERT_EQUAL(oc_te_join(0x0000, 0xffff), 0xffffffffu);
}

/* TESTORE-FMT-1, TESTORE-FP8-1: E4M3 values, rounding, saturation, NaN. */
static void test_fp8(void)
{
    CU_ASSERT_EQUAL(oc_fp8_e4m3_decode(0x7e), 448.0f);
    CU_ASSERT_EQUAL(oc_fp8_e4m3_decode(0x08), 0x1p-6f);
    CU_ASSERT_EQUAL(oc_fp8_e4m3_decode(0x01), 0x1p-9f);
    CU_ASSERT_EQUAL(oc_fp8_e4m3_decode(0x38), 1.0f);
    CU_ASSERT_EQUAL(oc_fp8_e4m3_decode(0xb8), -1.0f);
    CU_ASSERT(isnan(oc_fp8_e4m3_decode(0x7f)) && isnan(oc_fp8_e4m3_decode(0xff)));
    /* Every finite byte decodes and encodes back (both zeros included). */
    for (unsigned b = 0; b < 256; b++)
        if ((b & 0x7fu) != 0x7fu)
            CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(oc_fp8_e4m3_decode((uint8_t)b)), b);
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(1.0625f), 0x38);  /* tie 1 | 1.125: even */
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(1.1875f), 0x3a);  /* tie 1.125 | 1.25: even */
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(0x1p-10f), 0x00); /* tie 0 | 2^-9 */
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(0x1.8p-10f), 0x01);
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(0x1.ep-7f), 0x08); /* subnormal carries to normal */
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(464.0f), 0x7e);    /* tie 448 | 480: even, 448 */
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(464.03125f), 0x7e); /* saturated */
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(-INFINITY), 0xfe);
    CU_ASSERT_EQUAL(oc_fp8_e4m3_encode(NAN) & 0x7f, 0x7f);
}

static oc_te_state state(uint16_t *param, uint16_t *rem, float *master, void *m, void *v)
{
    oc_te_state s = {param, rem, master, {m, v}, {1.0f, 1.0f}};
    return s;
}

/* TESTORE-MASTER-1: the three master modes store and load. */
static void test_master_modes(void)
{
    uint16_t param[2], rem[2];
    float master[2], m[2], v[2], w0[2] = {0x1.0101p0f, -3.0f}, w1[2] = {0}, w2[2] = {0};
    float *work[3] = {w0, w1, w2};
    oc_te_state s = state(param, rem, master, m, v);
    oc_te_config c = {OC_TE_MASTER_REMAINDER, {OC_TE_MOM_F32, OC_TE_MOM_F32}};
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 2, &s, work), OC_OK);
    CU_ASSERT_EQUAL(param[0], 0x3f81); /* bits 0x3f808080: remainder 0x8080 negative */
    CU_ASSERT_EQUAL(rem[0], 0x8080);
    float back[2], z1[2], z2[2], *out[3] = {back, z1, z2};
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_LOAD, 2, &s, out), OC_OK);
    CU_ASSERT_EQUAL(bits(back[0]), bits(w0[0]));
    CU_ASSERT_EQUAL(back[1], -3.0f);
    /* The fresh remainder is zero: the master is the widened parameter (fused_adam L414). */
    rem[0] = 0;
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_LOAD, 2, &s, out), OC_OK);
    CU_ASSERT_EQUAL(bits(back[0]), 0x3f810000u);
    /* f32 and off: the parameter rounded to nearest even (tie 0x3f808000 stays 0x3f80). */
    w0[0] = from_bits(0x3f808000u);
    for (int mode = OC_TE_MASTER_OFF; mode <= OC_TE_MASTER_F32; mode++) {
        c.master = (oc_te_master)mode;
        CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 2, &s, work), OC_OK);
        CU_ASSERT_EQUAL(param[0], 0x3f80);
        CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_LOAD, 2, &s, out), OC_OK);
        CU_ASSERT_EQUAL(bits(back[0]), mode == OC_TE_MASTER_F32 ? 0x3f808000u : 0x3f800000u);
    }
}

/* TESTORE-SCALE-1, TESTORE-SCALE-2, TESTORE-Q16-1: fp16 moments with absmax 32752 * 2^-10
 * (scale 2^-10 exactly): stored values are x * 2^10, read back exactly. The incoming scale is
 * ignored (the new tensor's absmax decides). */
static void test_f16_moments(void)
{
    uint16_t param[3], m[3], v[3];
    float w0[3] = {1, 1, 1}, w1[3] = {32752.0f * 0x1p-10f, -1.0f, 0.0f},
          w2[3] = {0x1p-10f, 2.0f * 0x1p-10f, 3.0f * 0x1p-10f};
    float *work[3] = {w0, w1, w2};
    oc_te_state s = state(param, NULL, NULL, m, v);
    s.scale[0] = 0x1p-20f; /* stale: must not be used (TESTORE-SCALE-2) */
    oc_te_config c = {OC_TE_MASTER_OFF, {OC_TE_MOM_F16, OC_TE_MOM_F16}};
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 3, &s, work), OC_OK);
    CU_ASSERT_EQUAL(s.scale[0], 0x1p-10f);
    CU_ASSERT_EQUAL(m[0], 0x77ff); /* 32752 */
    CU_ASSERT_EQUAL(m[1], 0xe400); /* -1024 */
    CU_ASSERT_EQUAL(m[2], 0x0000);
    CU_ASSERT_EQUAL(s.scale[1], 3.0f * 0x1p-10f / 32752.0f);
    float b0[3], b1[3], b2[3], *out[3] = {b0, b1, b2};
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_LOAD, 3, &s, out), OC_OK);
    CU_ASSERT_EQUAL(b1[0], w1[0]);
    CU_ASSERT_EQUAL(b1[1], -1.0f);
    /* The mutant keeps the stale scale 2^-20: 32 * 2^20 overflows binary16. */
    s.scale[0] = 0x1p-20f;
    CU_ASSERT_EQUAL(
        oc_te_mutant_storage(OC_TE_MUT_SCALE_FROM_OLD_ABSMAX, &c, OC_TE_STORE, 3, &s, work), OC_OK);
    CU_ASSERT_EQUAL(m[0], 0x7c00);
    CU_ASSERT_EQUAL(s.scale[0], 0x1p-20f);
    /* f16-full-range: the scale is half TE's. */
    CU_ASSERT_EQUAL(oc_te_mutant_storage(OC_TE_MUT_F16_FULL_RANGE, &c, OC_TE_STORE, 3, &s, work),
                    OC_OK);
    CU_ASSERT_EQUAL(s.scale[0], 32752.0f * 0x1p-10f / 65504.0f);
}

/* TESTORE-FP8-1, TESTORE-TINY-1: FP8 scale 1/448 exact product; tiny absmax: q = inf. */
static void test_fp8_moments(void)
{
    uint16_t param[2];
    uint8_t m[2], v[2];
    float w0[2] = {1, 1}, w1[2] = {448.0f, 1.0f}, w2[2] = {0x1p-130f, 0.0f};
    float *work[3] = {w0, w1, w2};
    oc_te_state s = state(param, NULL, NULL, m, v);
    oc_te_config c = {OC_TE_MASTER_OFF, {OC_TE_MOM_FP8, OC_TE_MOM_FP8}};
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 2, &s, work), OC_OK);
    CU_ASSERT_EQUAL(s.scale[0], 1.0f);
    CU_ASSERT_EQUAL(m[0], 0x7e);
    CU_ASSERT_EQUAL(m[1], 0x38);
    CU_ASSERT_EQUAL(v[0], 0x7e);          /* 2^-130 * inf, saturated */
    CU_ASSERT_EQUAL(v[1] & 0x7f, 0x7f);   /* 0 * inf: NaN */
    float b0[2], b1[2], b2[2], *out[3] = {b0, b1, b2};
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_LOAD, 2, &s, out), OC_OK);
    CU_ASSERT_EQUAL(b2[0], 0.0f); /* scale_inv = 1 / inf = 0 */
    CU_ASSERT(isnan(b2[1]));
    /* Without saturation the non-zero entry is NaN too. */
    CU_ASSERT_EQUAL(oc_te_mutant_storage(OC_TE_MUT_FP8_NO_SATURATION, &c, OC_TE_STORE, 2, &s, work),
                    OC_OK);
    CU_ASSERT_EQUAL(v[0], 0x7f);
}

/* TESTORE-ERR-1: rejections write nothing. */
static void test_rejections(void)
{
    uint16_t param[1] = {0x1234}, rem[1] = {0x5678};
    float m[1] = {1}, v[1] = {2}, w0[1] = {7}, w1[1] = {8}, w2[1] = {9};
    float *work[3] = {w0, w1, w2};
    oc_te_state s = state(param, rem, NULL, m, v);
    oc_te_config c = {OC_TE_MASTER_REMAINDER, {OC_TE_MOM_F16, OC_TE_MOM_F32}};
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 0, &s, work),
                    OC_ERR_BAD_HPARAM);
    s.scale[0] = -1.0f;
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_LOAD, 1, &s, work),
                    OC_ERR_BAD_HPARAM);
    s.scale[0] = 1.0f;
    c.master = OC_TE_MASTER_F32;
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 1, &s, work),
                    OC_ERR_NULL_POINTER);
    c.moment[1] = OC_TE_MOM_COUNT;
    c.master = OC_TE_MASTER_REMAINDER;
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 1, &s, work),
                    OC_ERR_BAD_HPARAM);
    /* enums out of range and a missing remainder: the harness turns the schema's names into
     * the enums and allocates every buffer (VEC-PLUG-2) */
    c.moment[1] = OC_TE_MOM_F32;
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_DIRECTION_COUNT, 1, &s, work), OC_ERR_BAD_HPARAM);
    c.master = OC_TE_MASTER_COUNT;
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 1, &s, work), OC_ERR_BAD_HPARAM);
    c.master = OC_TE_MASTER_REMAINDER;
    s.remainder = NULL;
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, 1, &s, work), OC_ERR_NULL_POINTER);
    CU_ASSERT(param[0] == 0x1234 && rem[0] == 0x5678 && m[0] == 1 && v[0] == 2 && w0[0] == 7 &&
              w1[0] == 8 && w2[0] == 9);
}

/* TESTORE-TOL-1: the same inputs give the same bits (no state, no rounding freedom): two
 * stores of random values under every configuration agree byte for byte, and a load of the
 * stored state gives back masters bit for bit in the remainder and f32 modes. */
static void test_deterministic(void)
{
    enum { N = 64 };
    uint32_t seed = 12345;
    float w0[N], w1[N], w2[N], b0[N], b1[N], b2[N];
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        w0[i] = from_bits(seed & 0xbfffffffu); /* finite: exponent below 0x7f */
        w1[i] = ldexpf((float)(seed >> 8) / 16777216.0f - 0.5f, -(int)(seed % 20));
        w2[i] = w1[i] * w1[i];
    }
    float *work[3] = {w0, w1, w2}, *out[3] = {b0, b1, b2};
    for (int mode = 0; mode < OC_TE_MASTER_COUNT; mode++)
        for (int f = 0; f < OC_TE_MOM_COUNT; f++) {
            uint16_t pa[N] = {0}, pb[N] = {0}, ra[N] = {0}, rb[N] = {0};
            float ma[N] = {0}, mb[N] = {0}, m1[N] = {0}, m2[N] = {0}, v1[N] = {0}, v2[N] = {0};
            oc_te_state a = state(pa, ra, ma, m1, v1), b = state(pb, rb, mb, m2, v2);
            const oc_te_config c = {(oc_te_master)mode, {(oc_te_moment)f, (oc_te_moment)f}};
            CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, N, &a, work), OC_OK);
            CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_STORE, N, &b, work), OC_OK);
            CU_ASSERT(memcmp(pa, pb, sizeof pa) == 0 && memcmp(m1, m2, sizeof m1) == 0 &&
                      memcmp(v1, v2, sizeof v1) == 0 && a.scale[0] == b.scale[0]);
            CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_LOAD, N, &a, out), OC_OK);
            for (int i = 0; mode != OC_TE_MASTER_OFF && i < N; i++)
                CU_ASSERT_EQUAL(bits(b0[i]), bits(w0[i]));
        }
}

/* The mutants of the split and the reconstruction show their mistakes. */
static void test_split_mutants(void)
{
    uint16_t param[1], rem[1];
    float m[1], v[1], w0[1] = {from_bits(0x3f808000u)}, w1[1] = {0}, w2[1] = {0};
    float *work[3] = {w0, w1, w2};
    oc_te_state s = state(param, rem, NULL, m, v);
    const oc_te_config c = {OC_TE_MASTER_REMAINDER, {OC_TE_MOM_F32, OC_TE_MOM_F32}};
    CU_ASSERT_EQUAL(oc_te_mutant_storage(OC_TE_MUT_SPLIT_TRUNCATE, &c, OC_TE_STORE, 1, &s, work),
                    OC_OK);
    CU_ASSERT_EQUAL(param[0], 0x3f80);
    CU_ASSERT_EQUAL(oc_te_mutant_storage(OC_TE_MUT_SPLIT_TIES_EVEN, &c, OC_TE_STORE, 1, &s, work),
                    OC_OK);
    CU_ASSERT_EQUAL(param[0], 0x3f80);
    float b0[1], b1[1], b2[1], *out[3] = {b0, b1, b2};
    /* TE's reconstruction of the ties-even pair loses one bf16 ulp. */
    CU_ASSERT_EQUAL(oc_ref_te_storage(&c, OC_TE_LOAD, 1, &s, out), OC_OK);
    CU_ASSERT_EQUAL(bits(b0[0]), 0x3f7f8000u);
    param[0] = 0x3f81;
    CU_ASSERT_EQUAL(oc_te_mutant_storage(OC_TE_MUT_JOIN_NO_UNDO, &c, OC_TE_LOAD, 1, &s, out), OC_OK);
    CU_ASSERT_EQUAL(bits(b0[0]), 0x3f818000u);
    CU_ASSERT_STRING_EQUAL(oc_te_mutant_name(OC_TE_MUT_JOIN_NO_UNDO), "join-no-undo");
    CU_ASSERT_PTR_NULL(oc_te_mutant_name(OC_TE_MUTANT_COUNT));
}

/* VEC-FMT-19: the committed family reads with one packed output per case whose entries the
 * harness names (parameter, remainder or master, moments, scales); bit patterns out of their
 * format's range and a missing direction are format errors. */
static void test_vector_format(void)
{
    oc_family fam;
    oc_diag d = {{0}};
    CU_ASSERT_EQUAL_FATAL(oc_family_load(OPTCERT_SOURCE_DIR "/vectors/te-storage-fusedadam/"
                                         "te-storage-fusedadam.json", &fam, &d), OC_OK);
    int stores = 0, loads = 0;
    for (size_t k = 0; k < fam.ncases; k++) {
        const oc_case *c = &fam.cases[k];
        const size_t n = json_array_size(json_object_get(json_object_get(c->test, "inputs"),
                                                         "param"));
        CU_ASSERT_EQUAL(c->nstate, 1);
        if (n) { /* load: master, exp_avg, exp_avg_sq */
            loads++;
            CU_ASSERT_EQUAL(c->n, 3 * n);
            CU_ASSERT_STRING_EQUAL(oc_quantity(c, 0, c->n - 1), "expAvgSq");
        } else {
            stores++;
            CU_ASSERT_STRING_EQUAL(oc_quantity(c, 0, 0), "param");
            CU_ASSERT_STRING_EQUAL(oc_quantity(c, 0, c->n - 1), "expAvgSqScale");
        }
    }
    CU_ASSERT(stores > 10 && loads > 10);
    oc_family_free(&fam);
    static const char *const head =
        "{\"schema\": \"optcert-vectors/1\", \"family\": \"te-storage-fusedadam\", "
        "\"algorithm\": \"te-storage\", \"profile\": \"fusedadam\", \"testGroups\": [{"
        "\"type\": \"TeStorage\", \"hparams\": {\"master\": \"remainder\", \"expAvg\": "
        "\"fp8\", \"expAvgSq\": \"f32\"}, \"tests\": [{\"tcId\": 1, \"comment\": \"\", "
        "\"flags\": [], \"specRules\": [\"TESTORE-ERR-1\"], \"result\": \"invalid\", ";
    static const char *const bodies[] = {
        "\"direction\": \"load\", \"inputs\": {\"param\": [1], \"remainder\": [2], "
        "\"expAvg\": [255], \"expAvgSq\": [4294967295], \"scales\": [\"0x1p+0\", \"0x1p+0\"]}}]}]}",
        "\"direction\": \"load\", \"inputs\": {\"param\": [1], \"remainder\": [2], "
        "\"expAvg\": [256], \"expAvgSq\": [0], \"scales\": [\"0x1p+0\", \"0x1p+0\"]}}]}]}",
        "\"direction\": \"load\", \"inputs\": {\"param\": [65536], \"remainder\": [2], "
        "\"expAvg\": [1], \"expAvgSq\": [0], \"scales\": [\"0x1p+0\", \"0x1p+0\"]}}]}]}",
        "\"inputs\": {\"param\": [1], \"remainder\": [2], "
        "\"expAvg\": [1], \"expAvgSq\": [0], \"scales\": [\"0x1p+0\", \"0x1p+0\"]}}]}]}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, "%s%s", head, bodies[i]);
        oc_status st = test_load_family_text(text, &fam);
        CU_ASSERT_EQUAL(st, i == 0 ? OC_OK : OC_ERR_FORMAT);
        if (st == OC_OK)
            oc_family_free(&fam);
    }
}

void register_suites(void)
{
    ADD_SUITE("te-storage",
              {"reconstruct(split(u)) == u around every round-up boundary (TESTORE-SPLIT-2)",
               test_roundtrip},
              {"split rounds ties away from zero by the remainder's sign (TESTORE-SPLIT-1)",
               test_split_ties_and_sign},
              {"split carries and wraps (TESTORE-SPLIT-1, TESTORE-SPLIT-2)", test_split_carry},
              {"E4M3 rounding and saturation (TESTORE-FMT-1, TESTORE-FP8-1)", test_fp8},
              {"master modes (TESTORE-MASTER-1, TESTORE-MOM-1)", test_master_modes},
              {"fp16 moments and scale order (TESTORE-SCALE-1, TESTORE-SCALE-2, TESTORE-Q16-1)",
               test_f16_moments},
              {"FP8 moments, tiny absmax (TESTORE-FP8-1, TESTORE-TINY-1)", test_fp8_moments},
              {"rejections write nothing (TESTORE-ERR-1)", test_rejections},
              {"storage is an exact function of its inputs (TESTORE-TOL-1)", test_deterministic},
              {"split mutants (TESTORE-SPLIT-1, TESTORE-SPLIT-2)", test_split_mutants},
              {"vector format (VEC-FMT-19)", test_vector_format});
}
