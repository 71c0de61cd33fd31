/* CUnit suite of the fast CPU backend's matrix steps (spec/fast.md FAST-NS-*, FAST-MUON-1,
 * FAST-MUONCLIP-1): the CBLAS Newton–Schulz against the reference on random wide, tall and
 * square inputs within the NS-TOL-1 bound of its class (computed per input by the generator's
 * model), the bf16 mode outside the fp32 bound (the check has teeth), the caller's workspace, and
 * bad input: the reference's status and nothing written. The golden vectors are judged by
 * `optcert certify --impl fast-cpu` (ctest fast_cpu_certify). */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../conformance/tests/cunit_main.h"
#include "../../vectors/gen/ns_model.h"
#include "optcert/fast.h"
#include "../common/elementwise.h"
#include "../cpu/internal.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static double rnd_unit(void) /* uniform in [-1, 1) */
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1p-52 - 1.0;
}

static float *random_matrix(size_t len, double scale)
{
    float *x = malloc(len * sizeof *x);
    for (size_t i = 0; i < len; i++)
        x[i] = (float)(scale * rnd_unit());
    return x;
}

/* ||Y_fast - Y_ref||_F over the fp32 and bf16 NS-TOL-1 bounds of this input (the reference is
 * within the exact class, whose bound is added to the distance). */
static void ns_ratios(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                      const float *got, const float *ref, double ratio[2])
{
    size_t len = rows * cols, k = rows < cols ? rows : cols, n = rows < cols ? cols : rows;
    double sumsq = 0, diff = 0, tol[NS_NCLASSES][2];
    for (size_t i = 0; i < len; i++) {
        sumsq += (double)g[i] * g[i];
        diff += ((double)got[i] - ref[i]) * ((double)got[i] - ref[i]);
    }
    double sn = hp->norm_scale * sqrt(sumsq);
    double d = hp->eps_mode == OC_NS_EPS_ADD ? sn + hp->eps : fmax(sn, hp->eps);
    double *x0 = malloc(len * sizeof *x0), *sv = malloc(k * sizeof *sv);
    for (size_t i = 0; i < len; i++)
        x0[i] = g[i] / d;
    CU_ASSERT_FATAL(ns_singular_values(x0, rows, cols, sv) == 0);
    CU_ASSERT_FATAL(ns_tolerances(hp, sv, k, n, tol, NULL) == 0);
    ratio[0] = (sqrt(diff) + tol[NS_CLASS_EXACT][0]) / tol[NS_CLASS_FP32][0];
    ratio[1] = (sqrt(diff) + tol[NS_CLASS_EXACT][0]) / tol[NS_CLASS_BF16][0];
    free(x0);
    free(sv);
}

static const size_t shapes[][2] = {{1, 1}, {1, 17}, {17, 1}, {8, 8}, {5, 13}, {13, 5},
                                   {48, 160}, {160, 48}, {96, 96}};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

/* FAST-NS-1, FAST-NS-2: every profile, every shape, two scales; fp32 within the fp32 bound,
 * bf16 within the bf16 bound and, on most inputs, outside the fp32 one. */
static void test_ns_within_class_bounds(void)
{
    double worst[2] = {0, 0};
    int bf16_outside_fp32 = 0, cases = 0;
    for (int pr = 0; pr < OC_NS_PROFILE_COUNT; pr++)
        for (size_t s = 0; s < NSHAPES; s++)
            for (int scale = 0; scale < 2; scale++) {
                oc_ns_hparams hp;
                oc_ns_profile_defaults((oc_ns_profile)pr, &hp);
                size_t rows = shapes[s][0], cols = shapes[s][1], len = rows * cols;
                float *g = random_matrix(len, scale ? 1e3 : 1e-3);
                float *ref = malloc(len * sizeof *ref), *out = malloc(len * sizeof *out);
                size_t wl = oc_ns_work_len(rows, cols);
                double *work = malloc(wl * sizeof *work), r[2];
                CU_ASSERT_FATAL(oc_ref_newton_schulz(&hp, rows, cols, g, ref, work, wl) == OC_OK);
                CU_ASSERT_EQUAL(oc_fast_newton_schulz(&hp, OC_FAST_NS_FP32, rows, cols, g, out,
                                                      NULL, 0), OC_OK);
                ns_ratios(&hp, rows, cols, g, out, ref, r);
                CU_ASSERT(r[0] <= 1.0);
                worst[0] = fmax(worst[0], r[0]);
                CU_ASSERT_EQUAL(oc_fast_newton_schulz(&hp, OC_FAST_NS_BF16, rows, cols, g, out,
                                                      NULL, 0), OC_OK);
                ns_ratios(&hp, rows, cols, g, out, ref, r);
                CU_ASSERT(r[1] <= 1.0);
                worst[1] = fmax(worst[1], r[1]);
                bf16_outside_fp32 += r[0] > 1.0;
                cases++;
                free(g), free(ref), free(out), free(work);
            }
    printf("\n    worst ||Y - Y_ref||_F / bound: fp32 %.3g, bf16 %.3g; bf16 outside the fp32 "
           "bound on %d of %d inputs\n", worst[0], worst[1], bf16_outside_fp32, cases);
    CU_ASSERT(bf16_outside_fp32 >= cases / 2);
}

/* FAST-NS-3: the caller's workspace gives the same bits as an allocated one; a short one is
 * rejected. */
static void test_ns_workspace(void)
{
    oc_ns_hparams hp;
    oc_ns_profile_defaults(OC_NS_QUINTIC, &hp);
    for (size_t s = 0; s < NSHAPES; s++) {
        size_t rows = shapes[s][0], cols = shapes[s][1], len = rows * cols;
        size_t wl = oc_fast_ns_work_len(rows, cols);
        float *g = random_matrix(len, 1.0), *a = malloc(len * sizeof *a);
        float *b = malloc(len * sizeof *b), *work = malloc(wl * sizeof *work);
        CU_ASSERT_EQUAL(oc_fast_newton_schulz(&hp, OC_FAST_NS_FP32, rows, cols, g, a, NULL, 0),
                        OC_OK);
        CU_ASSERT_EQUAL(oc_fast_newton_schulz(&hp, OC_FAST_NS_FP32, rows, cols, g, b, work, wl),
                        OC_OK);
        CU_ASSERT(memcmp(a, b, len * sizeof *a) == 0);
        CU_ASSERT_EQUAL(oc_fast_newton_schulz(&hp, OC_FAST_NS_FP32, rows, cols, g, b, work,
                                              wl - 1), OC_ERR_BAD_SHAPE);
        free(g), free(a), free(b), free(work);
    }
}

/* FAST-NS-3, the passes between the products cut among OpenBLAS's threads: shapes whose every
 * pass splits (k = 512: the Gram completion has k^2 / 2 = 2^17 entries, two parts of 2^16).
 * The schedule (a, b, c) = (1, 0, 0) makes B' = I, so each iterate is X_0 = G / d exactly; with
 * entries +-1 and +-3 whose squares sum to 2^20, d = 2^10 and the output is G / 1024 bit for
 * bit, every element: a part the normalisation, the domain check or the final copy skipped
 * leaves the NaN the output was filled with. */
enum { BIG_K = 512, BIG_N = 640, BIG_LEN = BIG_K * BIG_N, BIG_THREES = 90112 };

static void identity_schedule(oc_ns_hparams *hp, double a, int steps)
{
    oc_ns_profile_defaults(OC_NS_QUINTIC, hp); /* NS-NORM-1: d = max(||G||_F, eps) */
    for (int t = 0; t < OC_NS_MAX_COEFS; t++)
        hp->coef[t][0] = a, hp->coef[t][1] = 0.0, hp->coef[t][2] = 0.0;
    hp->steps = steps;
}

static void test_ns_split_passes(void)
{
    oc_ns_hparams hp;
    identity_schedule(&hp, 1.0, 5);
    float *g = malloc(BIG_LEN * sizeof *g), *out = malloc(BIG_LEN * sizeof *out);
    for (size_t i = 0; i < BIG_LEN; i++) /* 327680 + 8 * 90112 = 2^20 */
        g[i] = (float)((i % 2 ? -1 : 1) * (i * 7 % BIG_LEN < BIG_THREES ? 3 : 1));
    for (int tall = 0; tall < 2; tall++) {
        size_t rows = tall ? BIG_N : BIG_K, cols = tall ? BIG_K : BIG_N, wrong = 0;
        for (size_t i = 0; i < BIG_LEN; i++)
            out[i] = NAN;
        CU_ASSERT_EQUAL(oc_fast_newton_schulz(&hp, OC_FAST_NS_FP32, rows, cols, g, out, NULL, 0),
                        OC_OK);
        for (size_t i = 0; i < BIG_LEN; i++)
            wrong += out[i] != g[i] * 0x1p-10f;
        CU_ASSERT_EQUAL(wrong, 0);
        if (wrong)
            printf("\n    newton_schulz %zux%zu: %zu of %d entries are not G / 1024\n", rows,
                   cols, wrong, BIG_LEN);
    }
    free(g), free(out);
}

/* FAST-NS-3: the OpenBLAS this program loaded is the OpenMP build the passes share a team with
 * (not the system's default libopenblas.so.0, the pthread build, whose threads spin beside
 * them). */
static void test_ns_openblas_openmp(void)
{
    CU_ASSERT_EQUAL(openblas_get_parallel(), OPENBLAS_OPENMP);
}

/* FAST-NS-6: oneDNN's bf16 products with the strides Newton-Schulz uses (a transposed operand
 * for X X^T, a row-major result), on small integers whose products and sums are exact in
 * binary32: the result is the exact product, entry by entry; a column-major result (only
 * oneDNN's reference kernel takes it) is refused. Skipped, and said so, on a CPU without native
 * bf16 products. */
static void test_bf16_products(void)
{
    if (!oc_fast_bf16_matmul_native()) {
        printf("\n    skipped: no native bf16 products on this CPU (FAST-NS-6)\n");
        return;
    }
    enum { M = 24, K = 40, N = 33 };
    uint16_t a[M * K], bt[N * K];
    float c[M * N], want[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = oc_fast_to_bf16((float)(i * 7 % 11) - 5.0f);
    for (int i = 0; i < N * K; i++)
        bt[i] = oc_fast_to_bf16((float)(i * 5 % 13) - 6.0f);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0.0f;
            for (int l = 0; l < K; l++)
                s += (float)((i * K + l) * 7 % 11 - 5) * (float)((j * K + l) * 5 % 13 - 6);
            want[i * N + j] = s;
        }
    size_t sa[2] = {K, 1}, sb[2] = {1, K}, sc[2] = {N, 1}, scol[2] = {1, M};
    CU_ASSERT_EQUAL(oc_fast_bf16_matmul(M, N, K, a, sa, bt, sb, c, sc), OC_OK);
    CU_ASSERT(memcmp(c, want, sizeof c) == 0);
    CU_ASSERT_EQUAL(oc_fast_bf16_matmul(M, N, K, a, sa, bt, sb, c, scol), OC_ERR_INTERNAL);
}

/* NS-DOM-1 in every part of the split check: one entry 1 (d = 1) at the start or the end of
 * G, X <- 128 X: 2^63 after nine iterations (accepted: the entry is 2^63, the rest 0), 2^70
 * after ten (OC_ERR_NONFINITE, out untouched). */
static void test_ns_split_domain(void)
{
    float *g = calloc(BIG_LEN, sizeof *g), *out = malloc(BIG_LEN * sizeof *out);
    const size_t at[] = {0, BIG_LEN - 1};
    oc_ns_hparams hp;
    for (int w = 0; w < 2; w++) {
        g[at[w]] = 1.0f;
        for (int steps = 9; steps <= 10; steps++) {
            identity_schedule(&hp, 128.0, steps);
            for (size_t i = 0; i < BIG_LEN; i++)
                out[i] = -1.0f;
            oc_status st = oc_fast_newton_schulz(&hp, OC_FAST_NS_FP32, BIG_K, BIG_N, g, out, NULL, 0);
            CU_ASSERT_EQUAL(st, steps == 9 ? OC_OK : OC_ERR_NONFINITE);
            size_t wrong = 0;
            for (size_t i = 0; i < BIG_LEN; i++)
                wrong += out[i] != (steps == 10 ? -1.0f : i == at[w] ? 0x1p63f : 0.0f);
            CU_ASSERT_EQUAL(wrong, 0);
            if (st != (steps == 9 ? OC_OK : OC_ERR_NONFINITE) || wrong)
                printf("\n    newton_schulz, entry %zu, %d steps: status %d, %zu entries wrong\n",
                       at[w], steps, st, wrong);
        }
        g[at[w]] = 0.0f;
    }
    free(g), free(out);
}

/* One call: the fast status equals the reference's; on error out keeps its contents. */
static void ns_expect(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                      float *out, oc_status want)
{
    size_t len = rows * cols < 64 ? rows * cols : 64, wl = 4096;
    double *work = malloc(wl * sizeof *work);
    float snap[64];
    if (out)
        memcpy(snap, out, len * sizeof *out);
    oc_status ref = oc_ref_newton_schulz(hp, rows, cols, g, out, work, wl);
    oc_status got = oc_fast_newton_schulz(hp, OC_FAST_NS_FP32, rows, cols, g, out, NULL, 0);
    CU_ASSERT_EQUAL(ref, want);
    CU_ASSERT_EQUAL(got, want);
    if (got != want)
        printf("\n    newton_schulz %zux%zu: status %d, want %d\n", rows, cols, got, want);
    if (out && want != OC_OK)
        CU_ASSERT(memcmp(snap, out, len * sizeof *out) == 0);
    free(work);
}

/* FAST-NS-5, the screen of NS-DOM-1 by the Gram diagonal. Row 0 of an 8 x 64 G holds 64 ones
 * (X_0 = 2^-3), grown by 128 a step (the last tuple repeated after the schedule's end).
 * An overflowing diagonal alone is no error: grown nine times, then by 4 (2^62), then kept
 * (a = 1): from the eleventh step A_00 = 64 x 2^124 overflows, the pass over X finds every
 * entry <= 2^64 and the result is the reference's, 2^62. An iterate beyond 2^64 is one even
 * when a later one comes back: grown ten times (2^67), then divided by 128 twice (2^53): the
 * reference's OC_ERR_NONFINITE, out untouched. */
static void test_ns_domain_screen(void)
{
    oc_ns_hparams hp;
    float g[8 * 64] = {0}, out[8 * 64];
    double work[4096];
    for (int j = 0; j < 64; j++)
        g[j] = 1.0f;
    identity_schedule(&hp, 128.0, 14);
    hp.schedule = OC_NS_REPEAT_LAST, hp.ncoef = 11, hp.coef[9][0] = 4.0, hp.coef[10][0] = 1.0;
    CU_ASSERT_EQUAL(oc_ref_newton_schulz(&hp, 8, 64, g, out, work, 4096), OC_OK);
    CU_ASSERT_EQUAL(out[0], 0x1p62f);
    CU_ASSERT_EQUAL(oc_fast_newton_schulz(&hp, OC_FAST_NS_FP32, 8, 64, g, out, NULL, 0), OC_OK);
    size_t wrong = 0;
    for (int i = 0; i < 8 * 64; i++)
        wrong += out[i] != (i < 64 ? 0x1p62f : 0.0f);
    CU_ASSERT_EQUAL(wrong, 0);
    identity_schedule(&hp, 128.0, 12);
    hp.schedule = OC_NS_REPEAT_LAST, hp.ncoef = 11, hp.coef[10][0] = 1.0 / 128;
    ns_expect(&hp, 8, 64, g, out, OC_ERR_NONFINITE);
}

/* NS-ERR-1, NS-DOM-1: the reference's statuses, nothing written. */
static void test_ns_bad_input(void)
{
    oc_ns_hparams ok, hp;
    oc_ns_profile_defaults(OC_NS_SIMPLE, &ok);
    float buf[2 * 64 + 1], *g = buf, *out = buf + 64;
    for (int i = 0; i < 64; i++)
        g[i] = (float)rnd_unit(), out[i] = -7.0f;
    ns_expect(NULL, 4, 4, g, out, OC_ERR_NULL_POINTER);
    ns_expect(&ok, 0, 4, g, out, OC_ERR_BAD_SHAPE);
    ns_expect(&ok, (size_t)1 << 13, (size_t)1 << 12, g, out, OC_ERR_BAD_SHAPE);
#define BAD_HP(field, value, status) \
    hp = ok, hp.field = value, ns_expect(&hp, 4, 4, g, out, status)
    BAD_HP(steps, 0, OC_ERR_BAD_HPARAM);
    BAD_HP(steps, 100, OC_ERR_BAD_HPARAM);
    BAD_HP(ncoef, 0, OC_ERR_BAD_HPARAM);
    BAD_HP(ncoef, 17, OC_ERR_BAD_HPARAM);
    BAD_HP(eps, 0.0, OC_ERR_BAD_HPARAM);
    BAD_HP(eps, NAN, OC_ERR_BAD_HPARAM);
    BAD_HP(norm_scale, 0.5, OC_ERR_BAD_HPARAM);
    BAD_HP(schedule, (oc_ns_schedule)7, OC_ERR_BAD_HPARAM);
    BAD_HP(eps_mode, (oc_ns_eps_mode)7, OC_ERR_BAD_HPARAM);
    BAD_HP(profile, OC_NS_PROFILE_COUNT, OC_ERR_BAD_PROFILE);
    BAD_HP(coef[0][2], 200.0, OC_ERR_BAD_HPARAM);
    BAD_HP(coef[0][0], NAN, OC_ERR_BAD_HPARAM);
#undef BAD_HP
    ns_expect(&ok, 4, 4, NULL, out, OC_ERR_NULL_POINTER);
    ns_expect(&ok, 4, 4, g, NULL, OC_ERR_NULL_POINTER);
    ns_expect(&ok, 4, 4, (const float *)((char *)g + 2), out, OC_ERR_MISALIGNED);
    ns_expect(&ok, 4, 4, g, g + 8, OC_ERR_ALIASING);
    g[5] = NAN;
    ns_expect(&ok, 4, 4, g, out, OC_ERR_NONFINITE);
    g[5] = -INFINITY;
    ns_expect(&ok, 4, 16, g, out, OC_ERR_NONFINITE);
    g[5] = 0.25f;
    /* NS-DOM-1: X <- 100 X grows past 2^64 in the tenth iteration (|X_0| <= 1). */
    hp = ok, hp.coef[0][0] = 100.0, hp.coef[0][1] = 0.0, hp.coef[0][2] = 0.0, hp.steps = 12;
    ns_expect(&hp, 4, 4, g, out, OC_ERR_NONFINITE);
    hp.steps = 9; /* 100^9 < 2^64: the same schedule stays in the domain */
    ns_expect(&hp, 4, 4, g, out, OC_OK);
}

/* One bad Muon call: the reference's status, p and m unchanged. */
static void muon_expect(const oc_muon_hparams *hp, size_t rows, size_t cols, float *p, float *m,
                        const float *g, oc_status want)
{
    size_t len = rows * cols <= 64 ? rows * cols : 0, wl = 4096;
    double *work = malloc(wl * sizeof *work);
    float *scratch = malloc(3 * 64 * sizeof *scratch), sp[64], sm[64];
    const float *pv = p ? p : sm; /* p's contents, or nothing to compare when p is NULL */
    if (p == NULL)
        len = 0;
    memcpy(sp, pv, len * sizeof *pv), memcpy(sm, m, len * sizeof *m);
    oc_status ref = oc_ref_muon_step(hp, rows, cols, p, m, g, work, wl, scratch);
    CU_ASSERT_EQUAL(ref, want);
    CU_ASSERT(memcmp(sp, pv, len * sizeof *pv) == 0 && memcmp(sm, m, len * sizeof *m) == 0);
    oc_status got = oc_fast_muon_step(hp, OC_FAST_NS_FP32, rows, cols, p, m, g, NULL, 0);
    CU_ASSERT_EQUAL(got, want);
    CU_ASSERT(memcmp(sp, pv, len * sizeof *pv) == 0 && memcmp(sm, m, len * sizeof *m) == 0);
    free(work);
    free(scratch);
}

/* MUON-ERR-1 (and NS-DOM-1 inside the step): the reference's statuses, p and m unchanged. */
static void test_muon_bad_input(void)
{
    oc_muon_hparams ok, hp;
    oc_muon_profile_defaults(OC_MUON_KELLER, &ok);
    float p[64], m[64], g[64 + 1];
    for (int i = 0; i < 64; i++)
        p[i] = (float)rnd_unit(), m[i] = (float)rnd_unit(), g[i] = (float)rnd_unit();
    muon_expect(NULL, 8, 8, p, m, g, OC_ERR_NULL_POINTER);
#define BAD_HP(field, value, status) \
    hp = ok, hp.field = value, muon_expect(&hp, 8, 8, p, m, g, status)
    BAD_HP(momentum, 1.0, OC_ERR_BAD_HPARAM);
    BAD_HP(lr, -1.0, OC_ERR_BAD_HPARAM);
    BAD_HP(weight_decay, NAN, OC_ERR_BAD_HPARAM);
    BAD_HP(extra_scale, 0.0, OC_ERR_BAD_HPARAM);
    BAD_HP(form, (oc_muon_momentum)5, OC_ERR_BAD_HPARAM);
    BAD_HP(scale, (oc_muon_scale)5, OC_ERR_BAD_HPARAM);
    BAD_HP(profile, OC_MUON_PROFILE_COUNT, OC_ERR_BAD_PROFILE);
    BAD_HP(ns.steps, 0, OC_ERR_BAD_HPARAM);
    hp = ok, hp.ns.coef[0][0] = 100.0, hp.ns.coef[0][1] = 0.0, hp.ns.coef[0][2] = 0.0;
    hp.ns.steps = 12;
    muon_expect(&hp, 8, 8, p, m, g, OC_ERR_NONFINITE);
#undef BAD_HP
    muon_expect(&ok, 0, 8, p, m, g, OC_ERR_BAD_SHAPE);
    muon_expect(&ok, 8, 8, NULL, m, g, OC_ERR_NULL_POINTER);
    muon_expect(&ok, 8, 8, p, m, (const float *)((char *)g + 2), OC_ERR_MISALIGNED);
    muon_expect(&ok, 4, 8, p, p + 8, g, OC_ERR_ALIASING);
    m[63] = INFINITY;
    muon_expect(&ok, 8, 8, p, m, g, OC_ERR_NONFINITE);
}

/* FAST-MUON-2: the one-block partition is the plain step bit for bit, and row-parallel blocks
 * with the local scale shape are the plain step on each block. */
static void test_muon_blocks_compose(void)
{
    oc_muon_hparams hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp);
    hp.weight_decay = 0.1;
    enum { R = 12, C = 10, N = R * C };
    float *p = random_matrix(N, 1.0), *m = random_matrix(N, 0.1), *g = random_matrix(N, 1.0);
    float p1[N], m1[N], p2[N], m2[N];
    memcpy(p1, p, sizeof p1), memcpy(m1, m, sizeof m1), memcpy(p2, p, sizeof p2), memcpy(m2, m, sizeof m2);
    oc_muon_partition whole = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    CU_ASSERT_EQUAL(oc_fast_muon_block_step(&hp, OC_FAST_NS_FP32, &whole, R, C, p1, m1, g, NULL, 0),
                    OC_OK);
    CU_ASSERT_EQUAL(oc_fast_muon_step(&hp, OC_FAST_NS_FP32, R, C, p2, m2, g, NULL, 0), OC_OK);
    CU_ASSERT(memcmp(p1, p2, sizeof p1) == 0 && memcmp(m1, m2, sizeof m1) == 0);
    CU_ASSERT(memcmp(p1, p, sizeof p1) != 0);
    oc_muon_partition rows2 = {2, OC_MUON_TP_ROWS, OC_MUON_SCALE_LOCAL, 0, 0, 0};
    memcpy(p1, p, sizeof p1), memcpy(m1, m, sizeof m1), memcpy(p2, p, sizeof p2), memcpy(m2, m, sizeof m2);
    CU_ASSERT_EQUAL(oc_fast_muon_block_step(&hp, OC_FAST_NS_FP32, &rows2, R, C, p1, m1, g, NULL, 0),
                    OC_OK);
    for (size_t h = 0; h < 2; h++)
        CU_ASSERT_EQUAL(oc_fast_muon_step(&hp, OC_FAST_NS_FP32, R / 2, C, p2 + h * N / 2,
                                          m2 + h * N / 2, g + h * N / 2, NULL, 0), OC_OK);
    CU_ASSERT(memcmp(p1, p2, sizeof p1) == 0 && memcmp(m1, m2, sizeof m1) == 0);
    rows2.scale_shape = OC_MUON_SCALE_GLOBAL; /* teeth: the global shape scales differently */
    memcpy(p1, p, sizeof p1), memcpy(m1, m, sizeof m1);
    CU_ASSERT_EQUAL(oc_fast_muon_block_step(&hp, OC_FAST_NS_FP32, &rows2, R, C, p1, m1, g, NULL, 0),
                    OC_OK);
    CU_ASSERT(memcmp(p1, p2, sizeof p1) != 0);
    free(p), free(m), free(g);
}

/* FAST-MUON-4: a caller's workspace gives the bits of an allocated one, for the plain step and
 * for row blocks; a short, misaligned or overlapping one is rejected with p and m unchanged. */
static void test_muon_workspace(void)
{
    oc_muon_hparams hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp);
    hp.weight_decay = 0.1;
    enum { R = 12, C = 10, N = R * C };
    oc_muon_partition rows2 = {2, OC_MUON_TP_ROWS, OC_MUON_SCALE_LOCAL, 0, 0, 0};
    const oc_muon_partition *parts[2] = {NULL, &rows2};
    float *p = random_matrix(N, 1.0), *m = random_matrix(N, 0.1), *g = random_matrix(N, 1.0);
    for (int k = 0; k < 2; k++) {
        size_t wl = oc_fast_muon_work_len(parts[k], R, C);
        float p1[N], m1[N], p2[N], m2[N], *work = malloc((wl + 1) * sizeof *work);
        CU_ASSERT(wl >= 2 * N + oc_fast_ns_work_len(k ? R / 2 : R, C));
        memcpy(p1, p, sizeof p1), memcpy(m1, m, sizeof m1), memcpy(p2, p, sizeof p2), memcpy(m2, m, sizeof m2);
#define STEP(pp, mm, w, l) (parts[k] ? oc_fast_muon_block_step(&hp, OC_FAST_NS_FP32, parts[k], R, C, \
                                                               pp, mm, g, w, l) \
                                     : oc_fast_muon_step(&hp, OC_FAST_NS_FP32, R, C, pp, mm, g, w, l))
        CU_ASSERT_EQUAL(STEP(p1, m1, NULL, 0), OC_OK);
        CU_ASSERT_EQUAL(STEP(p2, m2, work, wl), OC_OK);
        CU_ASSERT(memcmp(p1, p2, sizeof p1) == 0 && memcmp(m1, m2, sizeof m1) == 0);
        CU_ASSERT(memcmp(p1, p, sizeof p1) != 0 && memcmp(m1, m, sizeof m1) != 0);
        /* FAST-MUON-1: the last pass writes m' = mu m + w g, the direction pass's binary32
         * expression, bit for bit */
        float mu = (float)hp.momentum, w = (float)(hp.form == OC_MUON_SGD ? 1.0 : 1.0 - hp.momentum);
        size_t m_wrong = 0;
        for (size_t i = 0; i < N; i++)
            m_wrong += m1[i] != mu * m[i] + w * g[i];
        CU_ASSERT_EQUAL(m_wrong, 0);
        CU_ASSERT_EQUAL(STEP(p2, m2, work, wl - 1), OC_ERR_BAD_SHAPE);
        CU_ASSERT_EQUAL(STEP(p2, m2, (float *)((char *)work + 2), wl), OC_ERR_MISALIGNED);
        CU_ASSERT_EQUAL(STEP(p2, m2, m2 + 1, wl), OC_ERR_ALIASING);
        CU_ASSERT(memcmp(p1, p2, sizeof p1) == 0 && memcmp(m1, m2, sizeof m1) == 0);
#undef STEP
        free(work);
    }
    CU_ASSERT_EQUAL(oc_fast_muon_work_len(&rows2, R + 1, C), 0); /* 13 rows do not split in 2 */
    free(p), free(m), free(g);
}

/* One bad block step: the reference's status, p and m unchanged. */
static void block_expect(const oc_muon_hparams *hp, const oc_muon_partition *part, size_t rows,
                         size_t cols, float *p, float *m, const float *g, oc_status want)
{
    size_t wl = 4096, sl = 5 * 64;
    double *work = malloc(wl * sizeof *work);
    float *scratch = malloc(sl * sizeof *scratch), sp[64], sm[64];
    size_t bytes = rows * cols * sizeof(float); /* rows cols <= 64 */
    memcpy(sp, p, bytes), memcpy(sm, m, bytes);
    CU_ASSERT_EQUAL(oc_ref_muon_block_step(hp, part, rows, cols, p, m, g, work, wl, scratch, sl), want);
    CU_ASSERT_EQUAL(oc_fast_muon_block_step(hp, OC_FAST_NS_FP32, part, rows, cols, p, m, g, NULL, 0),
                    want);
    CU_ASSERT(memcmp(sp, p, bytes) == 0 && memcmp(sm, m, bytes) == 0);
    free(work), free(scratch);
}

/* MUON-ERR-1 with MUON-BLK-TP-1 / MUON-BLK-QKV-1: the reference's statuses in its order. */
static void test_muon_block_bad_input(void)
{
    oc_muon_hparams ok, hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &ok);
    oc_muon_partition part = {2, OC_MUON_TP_COLS, OC_MUON_SCALE_GLOBAL, 0, 0, 0}, bad;
    float p[64], m[64], g[64];
    for (int i = 0; i < 64; i++)
        p[i] = (float)rnd_unit(), m[i] = (float)rnd_unit(), g[i] = (float)rnd_unit();
    block_expect(&ok, NULL, 8, 8, p, m, g, OC_ERR_NULL_POINTER);
    block_expect(NULL, &part, 8, 8, p, m, g, OC_ERR_NULL_POINTER);
    bad = part, bad.tp_size = 3;
    block_expect(&ok, &bad, 8, 8, p, m, g, oc_muon_partition_check(&bad, 8, 8));
    hp = ok, hp.lr = -1.0; /* the partition is judged first */
    block_expect(&hp, &bad, 8, 8, p, m, g, oc_muon_partition_check(&bad, 8, 8));
    block_expect(&hp, &part, 8, 8, p, m, g, OC_ERR_BAD_HPARAM);
    bad = part, bad.tp_dim = OC_MUON_TP_NONE;
    block_expect(&ok, &bad, 8, 8, p, m, g, oc_muon_partition_check(&bad, 8, 8));
    bad = part, bad.qkv_heads = 2, bad.qkv_groups = 1, bad.qkv_head_dim = 3;
    block_expect(&ok, &bad, 8, 8, p, m, g, oc_muon_partition_check(&bad, 8, 8));
    CU_ASSERT_NOT_EQUAL(oc_muon_partition_check(&bad, 8, 8), OC_OK);
    block_expect(&ok, &part, 4, 8, p, p + 16, g, OC_ERR_ALIASING);
    g[5] = NAN;
    block_expect(&ok, &part, 8, 8, p, m, g, OC_ERR_NONFINITE);
}

/* FAST-ROUTE-1 (ROUTE-ERR-1, ROUTE-RULE-1): the reference's status and route, nothing written
 * on error. */
static void test_routed_step(void)
{
    oc_route_hparams hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp.muon);
    hp.adamw = (oc_adam_hparams){OC_ADAM_TORCH, 1e-3, 0.9, 0.95, 1e-8, 0.1, 0.0, 1.0, 1, 0, 0};
    oc_param_info mat = {"decoder.layers.0.mlp.linear_fc1.weight", 2, {8, 8}, 0};
    oc_param_info head = {"output_layer.weight", 2, {8, 8}, 1};
    oc_param_info bias = {"decoder.layers.0.mlp.linear_fc1.bias", 1, {64}, 0};
    const oc_param_info *infos[] = {&mat, &head, &bias};
    float p[64], m[64], v[64], g[64], rp[64], rm[64], rv[64];
    size_t wl = 4096, sl = 3 * 64;
    double *work = malloc(wl * sizeof *work);
    float *scratch = malloc(sl * sizeof *scratch);
    for (size_t k = 0; k < 3; k++) {
        for (int i = 0; i < 64; i++)
            rp[i] = p[i] = (float)rnd_unit(), rm[i] = m[i] = 0.1f * (float)rnd_unit(),
            rv[i] = v[i] = 0.01f, g[i] = (float)rnd_unit();
        oc_route want = (oc_route)7, got = (oc_route)7;
        CU_ASSERT_EQUAL(oc_ref_routed_step(&hp, infos[k], 3, rp, rm, rv, g, &want, work, wl,
                                           scratch, sl), OC_OK);
        CU_ASSERT_EQUAL(oc_fast_routed_step(&hp, OC_FAST_NS_FP32, infos[k], 3, p, m, v, g, &got),
                        OC_OK);
        CU_ASSERT_EQUAL(got, want);
        CU_ASSERT_EQUAL(want, k == 0 ? OC_ROUTE_MUON : OC_ROUTE_ADAMW);
        double worst = 0.0;
        for (int i = 0; i < 64; i++)
            worst = fmax(worst, fabs((double)p[i] - rp[i]) / (fabs(rp[i]) + 1e-30));
        CU_ASSERT(worst < 1e-5); /* coarse: the certify families judge the class bounds */
    }
    memcpy(rp, p, sizeof p), memcpy(rm, m, sizeof m), memcpy(rv, v, sizeof v);
    oc_route r = (oc_route)7;
    oc_route_hparams bad = hp;
    bad.adamw.amsgrad = 1;
    CU_ASSERT_EQUAL(oc_fast_routed_step(&bad, OC_FAST_NS_FP32, &mat, 3, p, m, v, g, &r),
                    oc_ref_routed_step(&bad, &mat, 3, p, m, v, g, &r, work, wl, scratch, sl));
    bad = hp, bad.muon.lr = -1.0; /* checked even for a parameter routed to AdamW */
    CU_ASSERT_EQUAL(oc_fast_routed_step(&bad, OC_FAST_NS_FP32, &bias, 3, p, m, v, g, &r),
                    OC_ERR_BAD_HPARAM);
    oc_param_info flat = mat;
    flat.ndim = 0;
    CU_ASSERT_EQUAL(oc_fast_routed_step(&hp, OC_FAST_NS_FP32, &flat, 3, p, m, v, g, &r),
                    oc_param_check(&flat));
    CU_ASSERT_EQUAL(oc_fast_routed_step(&hp, OC_FAST_NS_FP32, &mat, 3, p, m, NULL, g, &r),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_fast_routed_step(&hp, OC_FAST_NS_FP32, &mat, 3, p, m, v, g, NULL),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT(r == (oc_route)7 && memcmp(rp, p, sizeof p) == 0 && memcmp(rm, m, sizeof m) == 0 &&
              memcmp(rv, v, sizeof v) == 0);
    free(work), free(scratch);
}

/* MUONCLIP-TOL-1 on every element and the reference's statuses on bad input, for a GQA layout
 * (tau = 2^-20, d = 4): a group clipped by its larger head, a group clipped by a logit of 1.5e38
 * (gamma below binary32's normal range), a group exactly at tau (left). */
static void test_muon_clip(void)
{
    oc_muon_clip_config c = {.profile = OC_MUON_CLIP_MEGATRON, .tau = 0x1p-20, .alpha = 0.5,
                             .heads = 6, .groups = 3, .head_dim = 4, .hidden = 5};
    size_t n = oc_muon_clip_rows(&c) * c.hidden;
    float max_dot[6] = {-3.0f, 50.0f, 0x1p-19f, 3e38f, 0x1p-19f, -7.0f};
    float *w = random_matrix(n, 1.0), *ref = malloc(n * sizeof *ref), *snap = malloc(n * sizeof *snap);
    memcpy(ref, w, n * sizeof *w);
    memcpy(snap, w, n * sizeof *w);
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, max_dot, ref), OC_OK);
    CU_ASSERT_EQUAL(oc_fast_muon_clip(&c, max_dot, w), OC_OK);
    size_t outside = 0, changed = 0;
    for (size_t i = 0; i < n; i++) {
        outside += !(fabs((double)w[i] - ref[i]) <= 8 * 0x1p-24 * fabs(ref[i]) + 0x1p-149);
        changed += ref[i] != snap[i];
    }
    CU_ASSERT_EQUAL(outside, 0);
    CU_ASSERT(changed > 0);
    oc_muon_clip_config bad = c;
    memcpy(w, snap, n * sizeof *w);
#define QK_EXPECT(cfg, md, want)                                                   \
    do {                                                                           \
        CU_ASSERT_EQUAL(oc_ref_muon_clip(cfg, md, ref), want);                     \
        CU_ASSERT_EQUAL(oc_fast_muon_clip(cfg, md, w), want);                      \
        CU_ASSERT(memcmp(w, snap, n * sizeof *w) == 0);                            \
    } while (0)
    memcpy(ref, snap, n * sizeof *w);
    QK_EXPECT(NULL, max_dot, OC_ERR_NULL_POINTER);
    bad = c, bad.tau = 0.0;
    QK_EXPECT(&bad, max_dot, OC_ERR_BAD_HPARAM);
    bad = c, bad.alpha = 1.5;
    QK_EXPECT(&bad, max_dot, OC_ERR_BAD_HPARAM);
    bad = c, bad.groups = 4;
    QK_EXPECT(&bad, max_dot, OC_ERR_BAD_SHAPE);
    bad = c, bad.profile = OC_MUON_CLIP_KIMI;
    QK_EXPECT(&bad, max_dot, OC_ERR_BAD_SHAPE);
    bad = c, bad.profile = OC_MUON_CLIP_PROFILE_COUNT;
    QK_EXPECT(&bad, max_dot, OC_ERR_BAD_PROFILE);
    QK_EXPECT(&c, NULL, OC_ERR_NULL_POINTER);
    max_dot[4] = NAN;
    QK_EXPECT(&c, max_dot, OC_ERR_NONFINITE);
    max_dot[4] = 1.0f;
    w[n - 1] = snap[n - 1] = ref[n - 1] = -INFINITY;
    QK_EXPECT(&c, max_dot, OC_ERR_NONFINITE);
#undef QK_EXPECT
    free(w), free(ref), free(snap);
}

void register_suites(void)
{
    ADD_SUITE("fast_muon",
              {"newton-schulz fp32 and bf16 within their class bounds", test_ns_within_class_bounds},
              {"newton-schulz caller's workspace", test_ns_workspace},
              {"newton-schulz passes split among threads: every element", test_ns_split_passes},
              {"newton-schulz on OpenBLAS's OpenMP build", test_ns_openblas_openmp},
              {"newton-schulz native bf16 products: exact on integers, reference kernel refused",
               test_bf16_products},
              {"newton-schulz split domain check: every part", test_ns_split_domain},
              {"newton-schulz domain screen: exact, whatever the later iterates", test_ns_domain_screen},
              {"newton-schulz bad input: reference status, nothing written", test_ns_bad_input},
              {"muon bad input: reference status, nothing written", test_muon_bad_input},
              {"qk-clip within MUONCLIP-TOL-1, bad input", test_muon_clip},
              {"muon blocks: one block is the plain step, row blocks compose", test_muon_blocks_compose},
              {"muon caller's workspace", test_muon_workspace},
              {"muon blocks bad input: reference status, nothing written", test_muon_block_bad_input},
              {"routed step: reference route, status, nothing written", test_routed_step});
}
