/* Unit tests of the Adafactor reference (ref/adafactor.c) and its mutants
 * (conformance/mutants/adafactor.c) against spec/adafactor.md. Expected values come from the
 * rules in closed form (cases built so that U = sign(G), V^ = G^2, beta2_t = 0 or 1/2), not from
 * the reference. */
#include <math.h>
#include <string.h>
#include "cunit_main.h"
#include "judge.h"
#include "optcert/adafactor.h"
#include "vectors.h"
#include "../mutants/adafactor.h"

#define N 4

/* The paper's defaults with eps1 = 0 (so that the step has closed forms below). */
static oc_adafactor_hparams paper(void)
{
    return (oc_adafactor_hparams){.profile = OC_ADAFACTOR_PAPER, .lr = 1e-2f, .relative_step = 1,
                                  .scale_parameter = 1, .decay_rate = 0.8f, .eps2 = 1e-3f,
                                  .clip_threshold = 1, .factored = 1};
}

typedef struct bufs {
    float p[N * N], m[N * N], v[N * N], row[N], col[N], g[N * N];
    double work[N * N];
    oc_adafactor_state s;
} bufs;

/* A state of ones (RMS(X) = 1) with zero statistics and gradient signs alternating. */
static void fill(bufs *b, size_t n)
{
    memset(b, 0, sizeof *b);
    for (size_t i = 0; i < n; i++) {
        b->p[i] = 1.0f;
        b->g[i] = i % 2 ? -0.5f : 0.25f;
    }
    b->s = (oc_adafactor_state){b->p, b->m, b->v, b->row, b->col};
}

static oc_status run(const oc_adafactor_hparams *hp, oc_adafactor_shape sh, int64_t t, bufs *b)
{
    return oc_ref_adafactor_step(hp, sh, t, &b->s, b->g, b->work, N * N);
}

static const oc_adafactor_shape vec = {1, 1, N}, mat = {2, N, N};

/* ADAFACTOR-HP-1: ranges and options per profile; a rejection writes nothing. */
static void test_check(void)
{
    oc_adafactor_hparams hp = paper();
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_OK);
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 0), OC_ERR_BAD_STEP);
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, (oc_adafactor_shape){1, 2, N}, 1), OC_ERR_BAD_SHAPE);
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, (oc_adafactor_shape){2, 0, N}, 1), OC_ERR_BAD_SHAPE);
    hp.clip_threshold = 0.5;
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_BAD_HPARAM);
    hp = paper();
    hp.lr = NAN;
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_BAD_HPARAM);
    hp = paper();
    hp.first_moment = 1, hp.beta1 = 1;
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_BAD_HPARAM);
    hp.beta1 = 0.5; /* in range, but the paper has no first moment: ADAFACTOR-PROF-PAPER */
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_UNSUPPORTED);
    hp = paper();
    hp.profile = OC_ADAFACTOR_TRANSFORMERS; /* relative_step with lr: lr must be None (0) */
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_UNSUPPORTED);
    hp.lr = 0;
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_OK);
    hp.maximize = 1; /* torch only: ADAFACTOR-PROF-TORCH */
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_UNSUPPORTED);
    bufs b, before;
    fill(&b, N);
    before = b;
    hp = paper();
    hp.eps1 = -1;
    CU_ASSERT_EQUAL(run(&hp, vec, 1, &b), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(memcmp(b.p, before.p, sizeof b.p), 0);
    CU_ASSERT_EQUAL(memcmp(b.v, before.v, sizeof b.v), 0);
}

/* The public API's guards that no vector reaches (the harness parses names, shapes and flags and
 * allocates every buffer; ci/ref-coverage-exceptions.txt): profile names both ways, shapes and
 * optax fields out of their types' range, and every buffer check; a rejection writes nothing. */
static void test_api_guards(void)
{
    for (int pr = 0; pr < OC_ADAFACTOR_PROFILE_COUNT; pr++) {
        oc_adafactor_profile back = OC_ADAFACTOR_PROFILE_COUNT;
        const char *name = oc_adafactor_profile_name((oc_adafactor_profile)pr);
        CU_ASSERT_PTR_NOT_NULL_FATAL(name);
        CU_ASSERT_EQUAL(oc_adafactor_profile_parse(name, &back), OC_OK);
        CU_ASSERT_EQUAL(back, pr);
    }
    oc_adafactor_profile back = OC_ADAFACTOR_PAPER;
    CU_ASSERT_PTR_NULL(oc_adafactor_profile_name(OC_ADAFACTOR_PROFILE_COUNT));
    CU_ASSERT_EQUAL(oc_adafactor_profile_parse("adamw", &back), OC_ERR_BAD_PROFILE);
    oc_adafactor_hparams hp = paper();
    hp.profile = OC_ADAFACTOR_PROFILE_COUNT;
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_BAD_PROFILE);
    hp = paper();
    const oc_adafactor_shape bad[] = {{3, 2, 2}, {2, 2, 0}, {2, OC_ADAFACTOR_MAX_DIM + 1, 1},
                                      {2, 1, OC_ADAFACTOR_MAX_DIM + 1}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CU_ASSERT_EQUAL(oc_adafactor_check(&hp, bad[k], 1), OC_ERR_BAD_SHAPE);
    hp = (oc_adafactor_hparams){.profile = OC_ADAFACTOR_OPTAX, .lr = 1e-2f, .decay_rate = 0.8f,
                                .eps2 = 1e-3f, .clip_threshold = 1, .factored = 2};
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_UNSUPPORTED);
    hp.factored = 1, hp.min_dim_to_factor = -1;
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_ERR_UNSUPPORTED);
    hp.min_dim_to_factor = 0;
    CU_ASSERT_EQUAL(oc_adafactor_check(&hp, vec, 1), OC_OK);
    hp = paper();
    bufs b, before;
    fill(&b, N);
    before = b;
    CU_ASSERT_EQUAL(oc_ref_adafactor_step(&hp, vec, 1, &b.s, b.g, b.work, N - 1),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_adafactor_step(&hp, vec, 1, &b.s, b.g, NULL, N * N),
                    OC_ERR_NULL_POINTER);
    oc_adafactor_state misaligned = b.s, overlapping = b.s;
    misaligned.p = (float *)(void *)((char *)b.p + 1);
    CU_ASSERT_NOT_EQUAL(oc_ref_adafactor_step(&hp, vec, 1, &misaligned, b.g, b.work, N * N), OC_OK);
    overlapping.v = b.p + 1; /* v overlaps p */
    CU_ASSERT_EQUAL(oc_ref_adafactor_step(&hp, vec, 1, &overlapping, b.g, b.work, N * N),
                    OC_ERR_ALIASING);
    CU_ASSERT_EQUAL(oc_ref_adafactor_step(&hp, vec, 1, &b.s, b.g, (double *)(void *)b.v, N * N),
                    OC_ERR_ALIASING); /* the work buffer overlaps v */
    CU_ASSERT_EQUAL(memcmp(&b, &before, sizeof b), 0);
}

/* ADAFACTOR-FACT-1: vectors never, matrices always (1 x c too), optax by min_dim_to_factor. */
static void test_factored(void)
{
    oc_adafactor_hparams hp = paper();
    CU_ASSERT_EQUAL(oc_adafactor_factored(&hp, vec), 0);
    CU_ASSERT_EQUAL(oc_adafactor_factored(&hp, mat), 1);
    CU_ASSERT_EQUAL(oc_adafactor_factored(&hp, (oc_adafactor_shape){2, 1, N}), 1);
    hp.profile = OC_ADAFACTOR_OPTAX;
    hp.min_dim_to_factor = 128;
    CU_ASSERT_EQUAL(oc_adafactor_factored(&hp, mat), 0);
    hp.min_dim_to_factor = N;
    CU_ASSERT_EQUAL(oc_adafactor_factored(&hp, mat), 1);
    hp.factored = 0;
    CU_ASSERT_EQUAL(oc_adafactor_factored(&hp, mat), 0);
}

/* ADAFACTOR-DECAY-1: beta2_1 = 0, beta2_t = 1 - t^-c. */
static void test_beta2(void)
{
    oc_adafactor_hparams hp = paper();
    CU_ASSERT_EQUAL(oc_adafactor_beta2(&hp, 1), 0.0);
    hp.decay_rate = 1;
    CU_ASSERT_EQUAL(oc_adafactor_beta2(&hp, 4), 0.75);
    hp.decay_rate = 0.5;
    CU_ASSERT_EQUAL(oc_adafactor_beta2(&hp, 16), 0.75);
}

/* ADAFACTOR-V-1, ADAFACTOR-STEP-1, ADAFACTOR-STORE-1: at t = 1 from zero state with eps1 = 0,
 * V = G^2 (stored), U = sign(G), RMS(U) = 1 = d, so X' = X - alpha sign(G) with alpha =
 * max(eps2, RMS(X)) min(lr, 1) = lr. */
static void test_first_step_vector(void)
{
    oc_adafactor_hparams hp = paper();
    bufs b;
    fill(&b, N);
    CU_ASSERT_EQUAL_FATAL(run(&hp, vec, 1, &b), OC_OK);
    for (size_t i = 0; i < N; i++) {
        CU_ASSERT_EQUAL(b.v[i], b.g[i] * b.g[i]);
        CU_ASSERT_EQUAL(b.p[i], (float)(1.0 - (double)1e-2f * (b.g[i] > 0 ? 1 : -1)));
    }
}

/* ADAFACTOR-FACTOR-1: a rank-one G^2 (G[i][j] = a_i b_j) at t = 1 gives R C / mean(R) = G^2
 * exactly, so again X' = X - lr sign(G); the statistics are the row and column means. */
static void test_factored_rank_one(void)
{
    static const float a[N] = {1, 2, 0.5f, 4}, bcol[N] = {0.25f, -1, 2, -0.5f};
    oc_adafactor_hparams hp = paper();
    bufs b;
    fill(&b, N * N);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            b.g[i * N + j] = a[i] * bcol[j];
    CU_ASSERT_EQUAL_FATAL(run(&hp, mat, 1, &b), OC_OK);
    double mean_b2 = 0, mean_a2 = 0;
    for (size_t k = 0; k < N; k++)
        mean_b2 += bcol[k] * bcol[k] / N, mean_a2 += a[k] * a[k] / N;
    for (size_t i = 0; i < N; i++) {
        CU_ASSERT_EQUAL(b.row[i], (float)(a[i] * a[i] * mean_b2));
        CU_ASSERT_EQUAL(b.col[i], (float)(bcol[i] * bcol[i] * mean_a2));
    }
    for (size_t k = 0; k < N * N; k++)
        CU_ASSERT_EQUAL(b.p[k], (float)(1.0 - (double)1e-2f * (b.g[k] > 0 ? 1 : -1)));
    CU_ASSERT_EQUAL(b.v[0], 0.0f); /* the unfactored state is not touched */
}

/* ADAFACTOR-CLIP-1: at t = 2 with c = 1 (beta2 = 1/2) from zero state, V = G^2/2, U =
 * sqrt(2) sign(G): clipped to sign(G) with d = 1; optax without clipping keeps sqrt(2). */
static void test_clip(void)
{
    oc_adafactor_hparams hp = paper();
    hp.decay_rate = 1;
    bufs b;
    fill(&b, N);
    CU_ASSERT_EQUAL_FATAL(run(&hp, vec, 2, &b), OC_OK);
    for (size_t i = 0; i < N; i++)
        CU_ASSERT_EQUAL(b.p[i], (float)(1.0 - (double)1e-2f * (b.g[i] > 0 ? 1 : -1)));
    hp.profile = OC_ADAFACTOR_OPTAX;
    hp.relative_step = 0;
    hp.clip_threshold = 0;
    fill(&b, N);
    CU_ASSERT_EQUAL_FATAL(run(&hp, vec, 2, &b), OC_OK);
    for (size_t i = 0; i < N; i++)
        CU_ASSERT(fabs(b.p[i] - (1.0 - (double)1e-2f * sqrt(2.0) * (b.g[i] > 0 ? 1 : -1))) <=
                  0x1p-24);
}

/* ADAFACTOR-WD-1: with G = 0 (U = 0, eps1 > 0) the step is the decay alone, in each profile's
 * form; ADAFACTOR-STEP-1: the parameter scale is RMS(X) = 2 here. */
static void test_weight_decay(void)
{
    oc_adafactor_hparams hp = paper();
    hp.eps1 = 1e-30f;
    hp.weight_decay = 0.5f;
    bufs b;
    const oc_adafactor_profile prof[3] = {OC_ADAFACTOR_TORCH, OC_ADAFACTOR_TRANSFORMERS,
                                          OC_ADAFACTOR_OPTAX};
    const double lr = 1e-2f, expect[3] = {2 * (1 - lr * 0.5), 2 - 0.5 * (2 * 1e-2) * 2,
                                          2 - 0.5 * 2};
    for (int k = 0; k < 3; k++) {
        fill(&b, N);
        for (size_t i = 0; i < N; i++)
            b.p[i] = 2, b.g[i] = 0;
        hp.profile = prof[k];
        hp.lr = prof[k] == OC_ADAFACTOR_TRANSFORMERS ? 0 : lr;
        hp.relative_step = prof[k] != OC_ADAFACTOR_OPTAX;
        CU_ASSERT_EQUAL_FATAL(run(&hp, vec, 1, &b), OC_OK);
        CU_ASSERT_EQUAL(b.p[0], (float)expect[k]);
    }
}

/* ADAFACTOR-MOM-1: m' = beta1 m + (1 - beta1) delta is stored and subtracted. */
static void test_first_moment(void)
{
    oc_adafactor_hparams hp = paper();
    hp.profile = OC_ADAFACTOR_TRANSFORMERS;
    hp.lr = 0;
    hp.first_moment = 1;
    hp.beta1 = 0.5f;
    bufs b;
    fill(&b, N);
    CU_ASSERT_EQUAL_FATAL(run(&hp, vec, 1, &b), OC_OK);
    for (size_t i = 0; i < N; i++) { /* delta = 1e-2 (binary64) sign(G) */
        CU_ASSERT_EQUAL(b.m[i], (float)(0.5 * 1e-2 * (b.g[i] > 0 ? 1 : -1)));
        CU_ASSERT_EQUAL(b.p[i], (float)(1.0 - (double)b.m[i]));
    }
}

/* ADAFACTOR-PROF-TORCH: maximize follows -G. ADAFACTOR-EPS-1: torch floors V^ at eps1^2 where
 * the others add eps1 to G^2. */
static void test_torch(void)
{
    oc_adafactor_hparams hp = paper();
    hp.profile = OC_ADAFACTOR_TORCH;
    hp.maximize = 1;
    bufs b;
    fill(&b, N);
    CU_ASSERT_EQUAL_FATAL(run(&hp, vec, 1, &b), OC_OK);
    CU_ASSERT_EQUAL(b.p[0], (float)(1.0 + (double)1e-2f));
    hp.maximize = 0;
    hp.eps1 = 1;
    fill(&b, N);
    for (size_t i = 0; i < N; i++)
        b.g[i] = 0.5f;
    CU_ASSERT_EQUAL_FATAL(run(&hp, vec, 1, &b), OC_OK);
    CU_ASSERT_EQUAL(b.v[0], 0.25f); /* torch: G^2 only; U = 0.5 / max(0.5, 1) */
    CU_ASSERT_EQUAL(b.p[0], (float)(1.0 - (double)1e-2f * 0.5));
    hp.profile = OC_ADAFACTOR_PAPER;
    fill(&b, N);
    for (size_t i = 0; i < N; i++)
        b.g[i] = 0.5f;
    CU_ASSERT_EQUAL_FATAL(run(&hp, vec, 1, &b), OC_OK);
    CU_ASSERT_EQUAL(b.v[0], 1.25f); /* the paper: G^2 + eps1, U = 0.5 / sqrt(1.25) < 1 */
    CU_ASSERT_EQUAL(b.p[0], (float)(1.0 - (double)1e-2f * 0.5 / sqrt(1.25)));
}

/* ADAFACTOR-STEP-1: rho_t below the cap late, transformers' warmup slope. */
static void test_rho(void)
{
    oc_adafactor_hparams hp = paper();
    CU_ASSERT_EQUAL(oc_adafactor_rho(&hp, 1000000), 1e-3);
    CU_ASSERT_EQUAL(oc_adafactor_rho(&hp, 4), (double)1e-2f);
    hp.profile = OC_ADAFACTOR_TRANSFORMERS;
    hp.lr = 0;
    CU_ASSERT_EQUAL(oc_adafactor_rho(&hp, 4), 1e-2);
    hp.warmup_init = 1;
    CU_ASSERT_EQUAL(oc_adafactor_rho(&hp, 4), 1e-6 * 4);
    CU_ASSERT_EQUAL(oc_adafactor_alpha(&hp, 0.5, 1e-6), 0.5 * hp.eps2);
}

/* ADAFACTOR-TOL-1, ADAFACTOR-TOL-2: the reference passes every committed case in class exact
 * and fp32; ADAFACTOR-TOL-3: every committed statistic lies in the bound's domain. */
static void test_vectors(void)
{
    double worst;
    size_t passed;
    const char *dir = OPTCERT_SOURCE_DIR "/vectors";
    CU_ASSERT_EQUAL(test_failures(oc_ref(), dir, "adafactor", OC_CLASS_EXACT, &worst, &passed), 0);
    CU_ASSERT(passed > 100);
    CU_ASSERT_EQUAL(test_failures(oc_ref(), dir, "adafactor", OC_CLASS_FP32, &worst, &passed), 0);
    static const char *const fams[] = {"paper", "torch", "transformers", "optax"};
    size_t checked = 0;
    for (int f = 0; f < 4; f++) {
        char path[512];
        oc_family fam;
        oc_diag d = {{0}};
        snprintf(path, sizeof path, "%s/adafactor-%s/adafactor-%s.json", dir, fams[f], fams[f]);
        CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
        for (size_t k = 0; k < fam.ncases; k++) {
            const oc_case *c = &fam.cases[k];
            for (size_t j = 0; c->result == OC_RESULT_VALID && j < c->steps * c->n; j++) {
                const double x = fabs(c->exp[0].stored[j]);
                if (strcmp(oc_quantity(c, 0, j), "p") && strcmp(oc_quantity(c, 0, j), "m")) {
                    CU_ASSERT(x == 0 || (x >= 0x1p-120 && x <= 0x1p120));
                    checked++;
                }
            }
        }
        oc_family_free(&fam);
    }
    CU_ASSERT(checked > 500);
}

/* Every mutant (spec/adafactor.md §6) fails at least two committed cases, and the correct
 * variant none. */
static void test_mutants(void)
{
    const oc_algo *a = oc_algo_find("adafactor");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    for (int mu = 0; mu < OC_ADAFACTOR_MUTANT_COUNT; mu++) {
        double worst;
        size_t passed;
        const oc_impl_v3 *impl = mu ? oc_ref_mutant(a, mu) : oc_ref();
        size_t fails = test_failures(impl, OPTCERT_SOURCE_DIR "/vectors", "adafactor",
                                     OC_CLASS_FP32, &worst, &passed);
        CU_ASSERT(mu ? fails >= 2 : fails == 0);
    }
}

/* VEC-FMT-21: the packed output's quantities, and a case without its shape refused. */
static void test_vector_format(void)
{
    oc_family fam;
    oc_diag d = {{0}};
    CU_ASSERT_EQUAL_FATAL(oc_family_load(OPTCERT_SOURCE_DIR "/vectors/adafactor-optax/"
                                         "adafactor-optax.json", &fam, &d), OC_OK);
    int factored = 0, with_m = 0;
    for (size_t k = 0; k < fam.ncases; k++) {
        const oc_case *c = &fam.cases[k];
        CU_ASSERT_STRING_EQUAL(oc_quantity(c, 0, 0), "p");
        const char *last = oc_quantity(c, 0, c->n - 1);
        factored += strcmp(last, "col") == 0;
        CU_ASSERT(strcmp(last, "col") == 0 || strcmp(last, "v") == 0);
        with_m += c->hp.adafactor.first_moment;
    }
    CU_ASSERT(factored > 5 && with_m >= 2);
    oc_family_free(&fam);
    static const char *const text =
        "{\"schema\": \"optcert-vectors/1\", \"family\": \"adafactor-optax\", \"algorithm\": "
        "\"adafactor\", \"profile\": \"optax\", \"testGroups\": [{\"type\": \"Adafactor\", "
        "\"hparams\": {\"lr\": \"0x1p-7\", \"relativeStep\": false, \"warmupInit\": false, "
        "\"scaleParameter\": true, \"decayRate\": \"0x1.99999ap-1\", \"eps1\": \"0x0p+0\", "
        "\"eps2\": \"0x1.0624dep-10\", \"clipThreshold\": \"0x1p+0\", \"firstMoment\": false, "
        "\"beta1\": \"0x0p+0\", \"weightDecay\": \"0x0p+0\", \"maximize\": false, \"factored\": "
        "true, \"minDimToFactor\": 2}, \"tests\": [{\"tcId\": 1, \"comment\": \"\", \"flags\": "
        "[], \"specRules\": [], \"result\": \"invalid\", \"firstStep\": 1, \"steps\": 1, "
        "\"inputs\": {\"p\": [\"0x1p+0\"], \"v\": [\"0x0p+0\"]}, \"g\": [[\"0x1p+0\"]]}]}]}";
    CU_ASSERT_EQUAL(test_load_family_text(text, &fam), OC_ERR_FORMAT);
}

void register_suites(void)
{
    ADD_SUITE("adafactor",
              {"ranges, options and rejections (ADAFACTOR-HP-1)", test_check},
              {"the API's guards: names, shapes, optax fields, buffers (ADAFACTOR-HP-1)",
               test_api_guards},
              {"which tensors are factored (ADAFACTOR-FACT-1)", test_factored},
              {"beta2_t (ADAFACTOR-DECAY-1)", test_beta2},
              {"first step of a vector (ADAFACTOR-V-1, ADAFACTOR-STEP-1, ADAFACTOR-STORE-1)",
               test_first_step_vector},
              {"rank-one factored estimate (ADAFACTOR-FACTOR-1)", test_factored_rank_one},
              {"update clipping (ADAFACTOR-CLIP-1)", test_clip},
              {"weight decay forms (ADAFACTOR-WD-1)", test_weight_decay},
              {"first moment (ADAFACTOR-MOM-1)", test_first_moment},
              {"maximize and eps1 (ADAFACTOR-PROF-TORCH, ADAFACTOR-EPS-1)", test_torch},
              {"rho_t (ADAFACTOR-STEP-1, ADAFACTOR-PROF-HF)", test_rho},
              {"committed vectors (ADAFACTOR-TOL-1, ADAFACTOR-TOL-2, ADAFACTOR-TOL-3, "
               "ADAFACTOR-PROF-PAPER, ADAFACTOR-PROF-OPTAX)", test_vectors},
              {"mutants killed (spec/adafactor.md 6)", test_mutants},
              {"vector format (VEC-FMT-21)", test_vector_format});
}
