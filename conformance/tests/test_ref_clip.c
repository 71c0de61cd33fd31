/* Unit tests of the clipping reference (ref/clip.c) against closed forms of spec/clip.md, and
 * of the fp32 tolerance with a plain float32 implementation written here. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "certify.h"
#include "cunit_main.h"
#include "optcert/clip.h"
#include "../mutants/clip.h"

static oc_clip_config cfg(oc_clip_profile p, double max_norm)
{
    return (oc_clip_config){p, max_norm, 0, INFINITY, 0, 1, 1, 1};
}

static oc_clip_view view(float *g, size_t n)
{
    return (oc_clip_view){0, 0, 0, 0, 1, 0, n, g};
}

/* CLIP-NORM-1, CLIP-COEF-1: 3-4-5 and 0-12: norm 13; max_norm 6.5 halves (up to the 1e-6). */
static void test_norm_and_coefficient(void)
{
    float a[2] = {3, 4}, b[2] = {0, -12};
    oc_clip_view v[2] = {view(a, 2), view(b, 2)};
    oc_clip_config c = cfg(OC_CLIP_MEGATRON, 6.5);
    float norm = -1;
    int skipped = -1;
    CU_ASSERT_EQUAL_FATAL(oc_ref_clip_step(&c, 2, v, &norm, &skipped), OC_OK);
    CU_ASSERT_EQUAL(norm, 13.0f);
    CU_ASSERT_EQUAL(skipped, 0);
    CU_ASSERT_EQUAL(a[0], (float)(3 * (6.5 / (13 + 1e-6))));
    CU_ASSERT(fabsf(b[1] + 6.0f) < 1e-5f);
    /* below max_norm: megatron leaves them, torch multiplies by min(c, 1) = 1 */
    float d[2] = {3, 4};
    oc_clip_view w = view(d, 2);
    c.max_norm = 100;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &w, &norm, &skipped), OC_OK);
    CU_ASSERT(d[0] == 3 && d[1] == 4 && norm == 5.0f);
    CU_ASSERT_EQUAL(oc_clip_mutant_step(OC_CLIP_MUT_ALWAYS_SCALE, &c, 1, &w, &norm, &skipped),
                    OC_OK);
    CU_ASSERT(d[0] > 50);                                    /* the mutant scales up */
}

/* CLIP-NORM-INF-1, CLIP-DISABLE-1, CLIP-SKIP-1, torch's max_norm <= 0. */
static void test_variants(void)
{
    float a[3] = {1, -7, 2};
    oc_clip_view v = view(a, 3);
    oc_clip_config c = cfg(OC_CLIP_MEGATRON, 3.5);
    c.inf_norm = 1;
    float norm;
    int skipped;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &v, &norm, &skipped), OC_OK);
    CU_ASSERT(norm == 7.0f && fabsf(a[1] + 3.5f) < 1e-5f);
    float b[2] = {3, 4};
    v = view(b, 2);
    c = cfg(OC_CLIP_MEGATRON, 0.0);
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &v, &norm, &skipped), OC_OK);
    CU_ASSERT(norm == 5.0f && b[0] == 3 && b[1] == 4 && skipped == 0); /* disabled: norm only */
    c = cfg(OC_CLIP_MEGATRON, -1.0);
    c.skip_threshold = 4.0;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &v, &norm, &skipped), OC_OK);
    CU_ASSERT(norm == 5.0f && b[0] == 3 && b[1] == 4 && skipped == 1); /* disabled, skipped */
    c = cfg(OC_CLIP_MEGATRON, 1.0);
    c.skip_threshold = 4.0;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &v, &norm, &skipped), OC_OK);
    CU_ASSERT(skipped == 1 && norm == 5.0f && fabsf(b[0] - 0.6f) < 1e-6f); /* clipped, then skipped */
    c = cfg(OC_CLIP_TORCH, 0.0);
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &v, &norm, &skipped), OC_OK);
    CU_ASSERT(b[0] == 0 && b[1] == 0);                        /* torch: times 0 */
    c.skip_threshold = 1.0;                                   /* torch: not read */
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &v, &norm, &skipped), OC_OK);
    CU_ASSERT_EQUAL(skipped, 0);
    float e[2] = {3, 4};
    v = view(e, 2);
    c = cfg(OC_CLIP_TORCH, -5.0);
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &v, &norm, &skipped), OC_OK);
    CU_ASSERT(e[0] < -2.99f && e[0] > -3.0f);                 /* torch: sign flipped */
}

/* CLIP-VIEW-1, CLIP-DEDUP-TP-1, CLIP-DEDUP-SHARED-1, CLIP-DEDUP-DP-1, CLIP-CHAIN-1: the
 * views of TP 2 x PP 2 x DP 2 (ZeRO-1) of {w (TP-split, 4 elements), ln (duplicate, 1),
 * emb (tied, stage 0, 2)} give the logical norm sqrt(1+4+9+16 + 25 + 36+49) = sqrt(140). */
static void test_views_equal_logical_norm(void)
{
    float w[4] = {1, 2, 3, 4}, ln = 5, emb[2] = {6, 7};
    float buf[64];
    oc_clip_view v[32];
    size_t nv = 0, at = 0;
    for (int tp = 0; tp < 2; tp++)
        for (int dp = 0; dp < 2; dp++) {
            /* stage 1: w shard [2 tp, 2 tp + 2), split over dp */
            buf[at] = w[2 * tp + dp];
            v[nv++] = (oc_clip_view){tp, 1, dp, 1, 1, 0, 1, &buf[at++]};
            /* stage 1: ln (duplicate) shard: dp 0 holds it, dp 1 nothing */
            if (dp == 0) {
                buf[at] = ln;
                v[nv++] = (oc_clip_view){tp, 1, dp, 1, 0, 0, 1, &buf[at++]};
            }
            /* emb on stage 0 (TP-split: one element per tp rank, dp 0 holds it) and its
             * shared copy on stage 1 */
            if (dp == 0) {
                buf[at] = emb[tp];
                v[nv++] = (oc_clip_view){tp, 0, dp, 0, 1, 0, 1, &buf[at++]};
                buf[at] = emb[tp];
                v[nv++] = (oc_clip_view){tp, 1, dp, 0, 1, 1, 1, &buf[at++]};
            }
        }
    oc_clip_config c = {OC_CLIP_MEGATRON, 1e9, 0, INFINITY, 1, 2, 2, 2};
    float norm;
    int skipped;
    CU_ASSERT_EQUAL_FATAL(oc_ref_clip_step(&c, nv, v, &norm, &skipped), OC_OK);
    CU_ASSERT_EQUAL(norm, sqrtf(140.0f));
    static const struct { oc_clip_mutant mu; float sq; } wrong[] = {
        {OC_CLIP_MUT_TP_DUPLICATE_ON_EVERY_RANK, 140 + 25},
        {OC_CLIP_MUT_SHARED_COUNTED_TWICE, 140 + 36 + 49},
        {OC_CLIP_MUT_DISTRIBUTED_MP_GROUP_ONLY, 140 - 4 - 16},
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        CU_ASSERT_EQUAL(oc_clip_mutant_step(wrong[i].mu, &c, nv, v, &norm, &skipped), OC_OK);
        CU_ASSERT_EQUAL(norm, sqrtf(wrong[i].sq));
    }
    oc_clip_view dup = v[1];
    CU_ASSERT(oc_clip_view_counted(&c, &dup));
    dup.tp_rank = 1;
    CU_ASSERT(!oc_clip_view_counted(&c, &dup));
    /* CLIP-CHAIN-1: max_norm sqrt(140)/2: every view halved, sub-optimizers alike */
    c.max_norm = sqrt(140.0) / 2;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, nv, v, &norm, &skipped), OC_OK);
    CU_ASSERT(fabsf(v[0].grad[0] - 0.5f) < 1e-6f && fabsf(v[2].grad[0] - 3.0f) < 1e-6f);
}

/* CLIP-CHAIN-1 in ChainedOptimizer.step's two halves: the factors, then each sub-optimizer's
 * gradients scaled, give oc_ref_clip_step's gradients bit for bit; the per-optimizer-norm
 * mutant's gradients differ; an infinite gradient (no CLIP-FINITE-1 here) gives norm inf and
 * factor 0 (STEP-NONFINITE-1); disabled clipping (CLIP-DISABLE-1) still gives the norm. */
static void test_chained_halves(void)
{
    float a[2] = {3, 4}, b[2] = {0, -12}, a1[2] = {3, 4}, b1[2] = {0, -12};
    oc_clip_view v[2] = {view(a, 2), view(b, 2)}, whole[2] = {view(a1, 2), view(b1, 2)};
    v[1].optimizer = whole[1].optimizer = 1;
    oc_clip_config c = cfg(OC_CLIP_MEGATRON, 6.5);
    double max_norm[OC_CLIP_MAX_OPTIMIZERS] = {6.5, 6.5, 6.5, 6.5, 6.5, 6.5, 6.5, 6.5};
    float norm = -1;
    int skipped;
    double f[OC_CLIP_MAX_OPTIMIZERS];
    CU_ASSERT_EQUAL_FATAL(oc_ref_clip_chained_factors(&c, max_norm, 2, v, &norm, f), OC_OK);
    CU_ASSERT_EQUAL(norm, 13.0f);
    for (int o = 0; o < OC_CLIP_MAX_OPTIMIZERS; o++)
        CU_ASSERT_EQUAL(f[o], 6.5 / (13.0 + 1e-6));
    CU_ASSERT(a[0] == 3 && b[1] == -12);                      /* the first half writes nothing */
    CU_ASSERT_EQUAL(oc_ref_clip_scale(2, a, f[0]), OC_OK);
    CU_ASSERT_EQUAL(oc_ref_clip_scale(2, b, f[1]), OC_OK);
    CU_ASSERT_EQUAL_FATAL(oc_ref_clip_step(&c, 2, whole, &norm, &skipped), OC_OK);
    CU_ASSERT(memcmp(a, a1, sizeof a) == 0 && memcmp(b, b1, sizeof b) == 0);
    CU_ASSERT(a[0] != 3 && b[1] != -12);
    /* the per-optimizer-norm mutant: each sub-optimizer's own norm, 5 (not clipped) and 12 */
    a[0] = 3, a[1] = 4, b[0] = 0, b[1] = -12;
    CU_ASSERT_EQUAL(oc_clip_mutant_step(OC_CLIP_MUT_PER_OPTIMIZER_NORM, &c, 2, v, &norm,
                                        &skipped), OC_OK);
    CU_ASSERT(norm == 13.0f && a[0] == 3 && a[1] == 4);
    CU_ASSERT_EQUAL(b[1], (float)(-12 * (6.5 / (12.0 + 1e-6))));
    b[1] = -12;
    b[0] = -INFINITY;
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, max_norm, 2, v, &norm, f), OC_OK);
    CU_ASSERT(norm == INFINITY && f[0] == 0.0 && f[1] == 0.0);
    b[0] = 0;
    for (int o = 0; o < OC_CLIP_MAX_OPTIMIZERS; o++)
        max_norm[o] = 0;
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, max_norm, 2, v, &norm, f), OC_OK);
    CU_ASSERT(norm == 13.0f && f[0] == 1.0 && f[7] == 1.0);
    /* STEP-CLIP-2: each sub-optimizer's factor from its own max_norm, one norm; c->max_norm
     * is not read */
    max_norm[1] = 2.6;
    c.max_norm = 1e-3;
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, max_norm, 2, v, &norm, f), OC_OK);
    CU_ASSERT(norm == 13.0f && f[0] == 1.0 && f[1] == 2.6 / (13.0 + 1e-6) && f[2] == 1.0);
}

/* CLIP-ERR-1 for the two halves: rejections write nothing. */
static void test_chained_rejections(void)
{
    float a[2] = {3, 4};
    oc_clip_view v = view(a, 2);
    oc_clip_config c = cfg(OC_CLIP_TORCH, 1.0);
    float norm = -1;
    double f[OC_CLIP_MAX_OPTIMIZERS] = {-1};
    double max_norm[OC_CLIP_MAX_OPTIMIZERS] = {1.0};
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, max_norm, 1, &v, &norm, f),
                    OC_ERR_BAD_PROFILE);                      /* megatron only */
    c.profile = OC_CLIP_MEGATRON;
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, max_norm, 1, &v, &norm, NULL),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, max_norm, 1, &v, NULL, f),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, NULL, 1, &v, &norm, f), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(NULL, max_norm, 1, &v, &norm, f),
                    OC_ERR_NULL_POINTER);
    max_norm[5] = NAN;                                        /* CLIP-CFG-1 per sub-optimizer */
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, max_norm, 1, &v, &norm, f),
                    OC_ERR_BAD_HPARAM);
    max_norm[5] = 0;
    v.optimizer = OC_CLIP_MAX_OPTIMIZERS;
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&c, max_norm, 1, &v, &norm, f),
                    OC_ERR_BAD_HPARAM);
    CU_ASSERT(norm == -1 && f[0] == -1);
    static const double bad[] = {1.5, -0.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(oc_ref_clip_scale(2, a, bad[i]), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(oc_ref_clip_scale(2, NULL, 0.5), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_clip_scale(0, NULL, 0.5), OC_OK);
    CU_ASSERT(a[0] == 3 && a[1] == 4);
}

/* CLIP-CFG-1, CLIP-FINITE-1, CLIP-ERR-1: rejections write nothing. */
static void test_rejections(void)
{
    float a[2] = {1, INFINITY}, b[2] = {1, 2};
    oc_clip_view v = view(a, 2), w = view(b, 2);
    oc_clip_config c = cfg(OC_CLIP_MEGATRON, 1.0);
    float norm = -1;
    int skipped = -1;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &v, &norm, &skipped), OC_ERR_BAD_HPARAM);
    c.max_norm = NAN;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &w, &norm, &skipped), OC_ERR_BAD_HPARAM);
    c = cfg(OC_CLIP_MEGATRON, 1.0);
    c.skip_threshold = 0.0;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &w, &norm, &skipped), OC_ERR_BAD_HPARAM);
    c = cfg(OC_CLIP_MEGATRON, 1.0);
    w.tp_rank = 1;
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &w, &norm, &skipped), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &w, NULL, &skipped), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_clip_mutant_step(OC_CLIP_MUTANT_COUNT, &c, 1, &w, &norm, &skipped),
                    OC_ERR_BAD_PROFILE);
    /* the API's pointer guards (CLIP-ERR-1): the harness never passes NULL (VEC-PLUG-2) */
    CU_ASSERT_EQUAL(oc_ref_clip_step(NULL, 1, &w, &norm, &skipped), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, NULL, &norm, &skipped), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &w, &norm, NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT(!oc_clip_view_counted(NULL, &w) && !oc_clip_view_counted(&c, NULL));
    oc_clip_view no_grad = view(NULL, 2);
    c = cfg(OC_CLIP_MEGATRON, 1.0);
    CU_ASSERT_EQUAL(oc_ref_clip_step(&c, 1, &no_grad, &norm, &skipped), OC_ERR_NULL_POINTER);
    CU_ASSERT(norm == -1 && skipped == -1 && b[0] == 1 && b[1] == 2 && a[0] == 1);
    oc_clip_profile p;
    CU_ASSERT_EQUAL(oc_clip_profile_parse(NULL, &p), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_clip_profile_parse("torch", NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_clip_profile_parse("Torch", &p), OC_ERR_BAD_PROFILE);
    CU_ASSERT(oc_clip_profile_parse("torch", &p) == OC_OK && p == OC_CLIP_TORCH);
    CU_ASSERT_STRING_EQUAL(oc_clip_mutant_name(OC_CLIP_MUT_EPS_OMITTED), "eps-omitted");
}

/* A plain float32 implementation (one float accumulator, float coefficient): the fp32 class
 * must accept it except where squares leave the float range (spec/clip.md CLIP-TOL-2). */
static oc_status naive_clip(void *ctx, const oc_clip_config *c, size_t nviews,
                            oc_clip_view *views, float *total_norm, int *skipped)
{
    (void)ctx;
    oc_status st = oc_clip_check(c, nviews, views);
    if (st != OC_OK)
        return st;
    float acc = 0;
    for (size_t i = 0; i < nviews; i++)
        if (oc_clip_view_counted(c, &views[i]))
            for (size_t j = 0; j < views[i].length; j++) {
                float g = views[i].grad[j];
                acc = c->inf_norm ? fmaxf(acc, fabsf(g)) : acc + g * g;
            }
    float norm = c->inf_norm ? acc : sqrtf(acc);
    *total_norm = norm;
    *skipped = c->profile == OC_CLIP_MEGATRON && norm > c->skip_threshold; /* clipped even so */
    float coeff = (float)c->max_norm / (norm + 1e-6f);
    if (c->profile == OC_CLIP_TORCH ? 0 : !(c->max_norm > 0) || !(coeff < 1.0f))
        return OC_OK;                                 /* CLIP-DISABLE-1, CLIP-COEF-1 */
    coeff = fminf(coeff, 1.0f);
    for (size_t i = 0; i < nviews; i++)
        for (size_t j = 0; j < views[i].length; j++)
            views[i].grad[j] *= coeff;
    return OC_OK;
}

static void test_fp32_tolerance(void)
{
    test_table naive;
    test_algorithm_table(&naive, "naive-clip", NULL, "clip", NULL, (oc_entry_point)naive_clip);
    for (int cls = 0; cls < 2; cls++) {
        oc_certificate cert;
        oc_diag d;
        CU_ASSERT_EQUAL_FATAL(oc_certify(&naive.t, OPTCERT_SOURCE_DIR "/vectors", NULL,
                                         cls ? OC_CLASS_FP32 : OC_CLASS_EXACT, &cert, &d), OC_OK);
        size_t fails = 0, range_fails = 0, passes = 0;
        for (size_t f = 0; f < cert.nfams; f++) {
            if (strncmp(cert.fams[f].name, "clip-", 5) != 0)
                continue;
            passes += cert.fams[f].counts[OC_PASS];
            for (size_t k = 0; k < cert.fams[f].ncases; k++)
                fails += cert.fams[f].cases[k].verdict == OC_FAIL;
        }
        /* LargeValues and ManyTiny, in both families: float32 squares leave the range */
        range_fails = 4;
        if (cls) {
            CU_ASSERT(fails == range_fails && passes > 30);
        } else {
            CU_ASSERT(fails > range_fails);                   /* exact is stricter */
        }
        oc_certificate_free(&cert);
    }
}

void register_suites(void)
{
    ADD_SUITE("clip",
              {"norm and coefficient (CLIP-NORM-1, CLIP-COEF-1, CLIP-PROF-MEGATRON)",
               test_norm_and_coefficient},
              {"inf-norm, disable, skip, torch's max_norm <= 0 (CLIP-NORM-INF-1, CLIP-DISABLE-1, "
               "CLIP-SKIP-1, CLIP-PROF-TORCH)", test_variants},
              {"views reproduce the logical norm (CLIP-VIEW-1, CLIP-DEDUP-TP-1, "
               "CLIP-DEDUP-SHARED-1, CLIP-DEDUP-DP-1, CLIP-CHAIN-1)", test_views_equal_logical_norm},
              {"rejections (CLIP-CFG-1, CLIP-FINITE-1, CLIP-ERR-1)", test_rejections},
              {"the chained clipping's two halves (CLIP-CHAIN-1, STEP-NONFINITE-1, "
               "CLIP-DISABLE-1)", test_chained_halves},
              {"the two halves' rejections (CLIP-ERR-1, CLIP-COEF-1)", test_chained_rejections},
              {"a float32 implementation is fp32, not exact (CLIP-TOL-1, CLIP-TOL-2, VEC-FMT-11)",
               test_fp32_tolerance});
}
