/* CUnit suite of the fast CPU backend's matrix steps (spec/fast.md FAST-NS-*, FAST-MUON-1,
 * FAST-MUONCLIP-1): the CBLAS Newton–Schulz against the reference on random wide, tall and
 * square inputs within the NS-TOL-1 bound of its class (computed per input by the generator's
 * model), the bf16 mode outside the fp32 bound (the check has teeth), the caller's workspace, and
 * bad input: the reference's status and nothing written. The golden vectors are judged by
 * `optcert certify --impl fast-cpu` (ctest fast_cpu_certify). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../conformance/tests/cunit_main.h"
#include "../../vectors/gen/ns_model.h"
#include "optcert/fast.h"

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
    CU_ASSERT_FATAL(ns_tolerances(hp, sv, k, n, tol) == 0);
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
                CU_ASSERT_FATAL(oc_ref_newton_schulz(&hp, rows, cols, g, ref, work, wl,
                                                     OC_NS_CORRECT) == OC_OK);
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

/* One call: the fast status equals the reference's; on error out keeps its contents. */
static void ns_expect(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                      float *out, oc_status want)
{
    size_t len = rows * cols < 64 ? rows * cols : 64, wl = 4096;
    double *work = malloc(wl * sizeof *work);
    float snap[64];
    if (out)
        memcpy(snap, out, len * sizeof *out);
    oc_status ref = oc_ref_newton_schulz(hp, rows, cols, g, out, work, wl, OC_NS_CORRECT);
    oc_status got = oc_fast_newton_schulz(hp, OC_FAST_NS_FP32, rows, cols, g, out, NULL, 0);
    CU_ASSERT_EQUAL(ref, want);
    CU_ASSERT_EQUAL(got, want);
    if (got != want)
        printf("\n    newton_schulz %zux%zu: status %d, want %d\n", rows, cols, got, want);
    if (out && want != OC_OK)
        CU_ASSERT(memcmp(snap, out, len * sizeof *out) == 0);
    free(work);
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
    oc_status ref = oc_ref_muon_step(hp, rows, cols, p, m, g, work, wl, scratch, OC_MUON_CORRECT);
    CU_ASSERT_EQUAL(ref, want);
    CU_ASSERT(memcmp(sp, pv, len * sizeof *pv) == 0 && memcmp(sm, m, len * sizeof *m) == 0);
    oc_status got = oc_fast_muon_step(hp, OC_FAST_NS_FP32, rows, cols, p, m, g);
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

/* MUONCLIP-TOL-1 on every element and the reference's statuses on bad input, for a GQA layout
 * (tau = 2^-20, d = 4): a group clipped by its larger head, a group clipped by a logit of 1.5e38
 * (gamma below binary32's normal range), a group exactly at tau (left). */
static void test_qk_clip(void)
{
    oc_qk_clip_config c = {.profile = OC_QK_CLIP_MEGATRON, .tau = 0x1p-20, .alpha = 0.5,
                           .heads = 6, .groups = 3, .head_dim = 4, .hidden = 5};
    size_t n = oc_qk_clip_rows(&c) * c.hidden;
    float max_dot[6] = {-3.0f, 50.0f, 0x1p-19f, 3e38f, 0x1p-19f, -7.0f};
    float *w = random_matrix(n, 1.0), *ref = malloc(n * sizeof *ref), *snap = malloc(n * sizeof *snap);
    memcpy(ref, w, n * sizeof *w);
    memcpy(snap, w, n * sizeof *w);
    CU_ASSERT_EQUAL(oc_ref_qk_clip(&c, max_dot, ref, OC_QK_CLIP_CORRECT), OC_OK);
    CU_ASSERT_EQUAL(oc_fast_qk_clip(&c, max_dot, w), OC_OK);
    size_t outside = 0, changed = 0;
    for (size_t i = 0; i < n; i++) {
        outside += !(fabs((double)w[i] - ref[i]) <= 8 * 0x1p-24 * fabs(ref[i]) + 0x1p-149);
        changed += ref[i] != snap[i];
    }
    CU_ASSERT_EQUAL(outside, 0);
    CU_ASSERT(changed > 0);
    oc_qk_clip_config bad = c;
    memcpy(w, snap, n * sizeof *w);
#define QK_EXPECT(cfg, md, want)                                                   \
    do {                                                                           \
        CU_ASSERT_EQUAL(oc_ref_qk_clip(cfg, md, ref, OC_QK_CLIP_CORRECT), want);   \
        CU_ASSERT_EQUAL(oc_fast_qk_clip(cfg, md, w), want);                        \
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
    bad = c, bad.profile = OC_QK_CLIP_KIMI;
    QK_EXPECT(&bad, max_dot, OC_ERR_BAD_SHAPE);
    bad = c, bad.profile = OC_QK_CLIP_PROFILE_COUNT;
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
              {"newton-schulz bad input: reference status, nothing written", test_ns_bad_input},
              {"muon bad input: reference status, nothing written", test_muon_bad_input},
              {"qk-clip within MUONCLIP-TOL-1, bad input", test_qk_clip});
}
