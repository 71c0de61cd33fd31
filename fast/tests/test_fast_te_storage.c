/* The fast CPU backend's TE storage (FAST-TESTORE-1) against the reference
 * (spec/te_storage.md): every configuration, both directions, on random bit patterns of every
 * kind (normal, subnormal, zero, infinity, NaN) and on values near the E4M3 and binary16
 * rounding boundaries. Parameters, remainders and masters must agree bit for bit; moments and
 * scales bit for bit except that any NaN matches any NaN (TESTORE-TOL-1). */
#include <math.h>
#include <string.h>
#include "../../conformance/tests/cunit_main.h"
#include "optcert/fast.h"
#include "optcert/te_storage.h"

enum { N = 4099 }; /* above no chunk size: the scalar tails run too */

static uint64_t rng = 0x7e57u;
static uint32_t next(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 32);
}

static float from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Any binary32 pattern, or one near a boundary of the moment grids. */
static float sample(int kind)
{
    const uint32_t r = next();
    switch (kind % 4) {
    case 0: return from_bits(r);                                   /* every kind of value */
    case 1: return ldexpf(1.0f + (float)(r >> 9) * 0x1p-23f, (int)(r % 40) - 30);
    case 2: return (float)((int)(r % 33) - 16) * 28.0f; /* multiples of 448 / 16 */
    default: return ldexpf((float)(r % 4096), -(int)(r % 160));   /* tiny, subnormal */
    }
}

static int same(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, 4) == 0; }

static float moment_value(oc_te_moment f, const void *buf, size_t i)
{
    switch (f) {
    case OC_TE_MOM_F32: return ((const float *)buf)[i];
    case OC_TE_MOM_FP8: return oc_fp8_e4m3_decode(((const uint8_t *)buf)[i]);
    default: return oc_widen(f == OC_TE_MOM_BF16 ? OC_FMT_BF16 : OC_FMT_F16,
                             ((const uint16_t *)buf)[i]);
    }
}

static uint16_t pr[N], pf[N], rr[N], rf[N];
static float mr[N], mf[N], w[3][N], lr_[3][N], lf[3][N];
static float mom_r[2][N], mom_f[2][N]; /* the widest element */

/* FAST-TESTORE-1, TESTORE-SPLIT-1/2, TESTORE-SCALE-1, TESTORE-Q16-1, TESTORE-FP8-1. */
static void test_against_reference(void)
{
    long mismatches = 0;
    for (int kind = 0; kind < 8; kind++)
        for (int mode = 0; mode < OC_TE_MASTER_COUNT; mode++)
            for (int fa = 0; fa < OC_TE_MOM_COUNT; fa++) {
                const oc_te_config c = {(oc_te_master)mode, {(oc_te_moment)fa,
                                                             (oc_te_moment)((fa + kind) % 4)}};
                for (size_t i = 0; i < N; i++) {
                    w[0][i] = from_bits(next());
                    w[1][i] = sample(kind);
                    w[2][i] = fabsf(sample(kind + 1));
                }
                if (kind >= 4) /* finite moments: scales and quantized values are finite */
                    for (size_t i = 0; i < N; i++)
                        for (int k = 1; k < 3; k++)
                            w[k][i] = isfinite(w[k][i]) ? w[k][i] : 1.0f;
                float *work[3] = {w[0], w[1], w[2]};
                oc_te_state r = {pr, rr, mr, {mom_r[0], mom_r[1]}, {0.5f, 2.0f}};
                oc_te_state f = {pf, rf, mf, {mom_f[0], mom_f[1]}, {0.5f, 2.0f}};
                CU_ASSERT_EQUAL_FATAL(oc_ref_te_storage(&c, OC_TE_STORE, N, &r, work), OC_OK);
                CU_ASSERT_EQUAL_FATAL(oc_fast_te_storage(&c, OC_TE_STORE, N, &f, work), OC_OK);
                for (size_t i = 0; i < N; i++) {
                    mismatches += pr[i] != pf[i];
                    mismatches += mode == OC_TE_MASTER_REMAINDER && rr[i] != rf[i];
                    mismatches += mode == OC_TE_MASTER_F32 && !same(mr[i], mf[i]);
                    for (int k = 0; k < 2; k++)
                        mismatches += !same(moment_value(c.moment[k], mom_r[k], i),
                                            moment_value(c.moment[k], mom_f[k], i));
                }
                for (int k = 0; k < 2; k++)
                    mismatches += !same(r.scale[k], f.scale[k]);
                /* Load the reference's stored state both ways. */
                f = r;
                float *outr[3] = {lr_[0], lr_[1], lr_[2]}, *outf[3] = {lf[0], lf[1], lf[2]};
                CU_ASSERT_EQUAL_FATAL(oc_ref_te_storage(&c, OC_TE_LOAD, N, &r, outr), OC_OK);
                CU_ASSERT_EQUAL_FATAL(oc_fast_te_storage(&c, OC_TE_LOAD, N, &f, outf), OC_OK);
                for (int k = 0; k < 3; k++)
                    for (size_t i = 0; i < N; i++)
                        mismatches += k == 0 ? memcmp(&lr_[0][i], &lf[0][i], 4) != 0
                                             : !same(lr_[k][i], lf[k][i]);
            }
    CU_ASSERT_EQUAL(mismatches, 0);
}

/* FAST-TESTORE-1 with TESTORE-ERR-1: the reference's statuses, nothing written. */
static void test_rejections(void)
{
    float m[1] = {1}, v[1] = {2}, w0[1] = {3}, w1[1] = {4}, w2[1] = {5};
    uint16_t p[1] = {7}, rem[1] = {9};
    float *work[3] = {w0, w1, w2};
    oc_te_state s = {p, rem, NULL, {m, v}, {-1.0f, 1.0f}};
    oc_te_config c = {OC_TE_MASTER_REMAINDER, {OC_TE_MOM_FP8, OC_TE_MOM_F32}};
    CU_ASSERT_EQUAL(oc_fast_te_storage(&c, OC_TE_STORE, 1, &s, work), OC_ERR_BAD_HPARAM);
    s.scale[0] = 1.0f;
    CU_ASSERT_EQUAL(oc_fast_te_storage(&c, OC_TE_STORE, 0, &s, work), OC_ERR_BAD_HPARAM);
    c.master = OC_TE_MASTER_F32;
    CU_ASSERT_EQUAL(oc_fast_te_storage(&c, OC_TE_LOAD, 1, &s, work), OC_ERR_NULL_POINTER);
    CU_ASSERT(p[0] == 7 && rem[0] == 9 && m[0] == 1 && v[0] == 2 && w0[0] == 3 && w1[0] == 4 &&
              w2[0] == 5);
}

void register_suites(void)
{
    ADD_SUITE("fast-te-storage",
              {"bit-identical to the reference (FAST-TESTORE-1, TESTORE-TOL-1)",
               test_against_reference},
              {"rejections (FAST-TESTORE-1, TESTORE-ERR-1)", test_rejections});
}
