/* Unit tests of the loss-scale reference (ref/loss_scale.c) and of its mutants
 * (conformance/mutants/loss_scale.c) against closed forms of spec/loss_scale.md. Scales are powers of two (or a stated clamp), so every expected value is
 * exact and written from the rules, not from the reference. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include "cunit_main.h"
#include "optcert/loss_scale.h"
#include "../mutants/loss_scale.h"
#include "vectors.h"

static oc_loss_scaler megatron(void)
{
    return (oc_loss_scaler){OC_LS_MEGATRON, 0x1p32f, 1.0f, 2.0f, 0.5f, 1000, 2};
}

static oc_loss_scaler torch_defaults(void)
{
    return (oc_loss_scaler){OC_LS_TORCH, 0x1p16f, 0.0f, 2.0f, 0.5f, 2000, 1};
}

/* Runs `count` updates with the same flag; fails the test on a non-OK status. */
static void run(const oc_loss_scaler *c, oc_loss_scale_state *s, int inf, int count,
                oc_loss_scale_mutant mu)
{
    for (int i = 0; i < count; i++)
        CU_ASSERT_EQUAL_FATAL(oc_loss_scale_mutant_update(mu, c, s, inf), OC_OK);
}

static void expect(const oc_loss_scale_state *s, float scale, int64_t g, int64_t h)
{
    CU_ASSERT_EQUAL(s->scale, scale);
    CU_ASSERT_EQUAL(s->growth_tracker, g);
    CU_ASSERT_EQUAL(s->hysteresis_tracker, h);
}

/* Field by field (the struct has padding); NaN scales compare equal to NaN. */
static int same_state(const oc_loss_scale_state *a, const oc_loss_scale_state *b)
{
    return (a->scale == b->scale || (isnan(a->scale) && isnan(b->scale))) &&
           a->growth_tracker == b->growth_tracker && a->hysteresis_tracker == b->hysteresis_tracker;
}

static oc_loss_scale_state start(const oc_loss_scaler *c)
{
    oc_loss_scale_state s;
    CU_ASSERT_EQUAL(oc_ref_loss_scale_init(c, &s), OC_OK);
    return s;
}

/* LS-INIT-1, LS-GROW-1: 999 clean updates keep 2^32, the 1000th doubles it. */
static void test_growth(void)
{
    oc_loss_scaler c = megatron();
    oc_loss_scale_state s = start(&c);
    expect(&s, 0x1p32f, 0, 2);
    run(&c, &s, 0, 999, OC_LS_CORRECT);
    expect(&s, 0x1p32f, 999, 2);
    run(&c, &s, 0, 1, OC_LS_CORRECT);
    expect(&s, 0x1p33f, 0, 2);
    run(&c, &s, 0, 2000, OC_LS_CORRECT);
    expect(&s, 0x1p35f, 0, 2);
}

/* LS-HYST-1, LS-INF-1: non-consecutive infs exhaust the hysteresis; the tracker goes below 0
 * and only a growth restores it. */
static void test_hysteresis(void)
{
    oc_loss_scaler c = megatron();
    oc_loss_scale_state s = start(&c);
    run(&c, &s, 0, 500, OC_LS_CORRECT);
    run(&c, &s, 1, 1, OC_LS_CORRECT);
    expect(&s, 0x1p32f, 0, 1);                 /* first inf: no backoff */
    run(&c, &s, 0, 999, OC_LS_CORRECT);
    expect(&s, 0x1p32f, 999, 1);               /* clean updates do not restore H */
    run(&c, &s, 1, 1, OC_LS_CORRECT);
    expect(&s, 0x1p31f, 0, 0);                 /* second inf, 999 updates later: backoff */
    run(&c, &s, 1, 3, OC_LS_CORRECT);
    expect(&s, 0x1p28f, 0, -3);                /* every further inf backs off */
    run(&c, &s, 0, 1000, OC_LS_CORRECT);
    expect(&s, 0x1p29f, 0, 2);                 /* growth restores H */
    run(&c, &s, 1, 1, OC_LS_CORRECT);
    expect(&s, 0x1p29f, 0, 1);
}

/* LS-BACKOFF-1: Megatron clamps at min_scale, torch does not clamp and reaches 0. */
static void test_min_scale(void)
{
    oc_loss_scaler c = megatron();
    c.initial_scale = 16.0f;
    c.min_scale = 3.0f;
    c.hysteresis = 1;
    oc_loss_scale_state s = start(&c);
    run(&c, &s, 1, 2, OC_LS_CORRECT);
    expect(&s, 4.0f, 0, -1);
    run(&c, &s, 1, 1, OC_LS_CORRECT);
    expect(&s, 3.0f, 0, -2);
    run(&c, &s, 1, 5, OC_LS_CORRECT);
    expect(&s, 3.0f, 0, -7);
    oc_loss_scaler t = torch_defaults();
    t.initial_scale = 0x1p-148f;
    oc_loss_scale_state u = start(&t);
    run(&t, &u, 1, 1, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(u.scale, 0x1p-149f);        /* the smallest subnormal */
    run(&t, &u, 1, 1, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(u.scale, 0.0f);             /* 2^-150 ties to even: 0 */
    run(&t, &u, 0, 2000, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(u.scale, 0.0f);
}

/* LS-OVF-1: growth past FLT_MAX gives +inf in Megatron (and stays), torch keeps its scale. */
static void test_overflow(void)
{
    oc_loss_scaler c = megatron();
    c.initial_scale = 0x1p126f;
    c.growth_interval = 1;
    oc_loss_scale_state s = start(&c);
    run(&c, &s, 0, 1, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(s.scale, 0x1p127f);
    run(&c, &s, 0, 1, OC_LS_CORRECT);
    CU_ASSERT(isinf(s.scale) && s.scale > 0);
    run(&c, &s, 1, 4, OC_LS_CORRECT);
    CU_ASSERT(isinf(s.scale) && s.scale > 0);
    oc_loss_scaler t = torch_defaults();
    t.initial_scale = 0x1p126f;
    t.growth_interval = 1;
    oc_loss_scale_state u = start(&t);
    run(&t, &u, 0, 3, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(u.scale, 0x1p127f);
    CU_ASSERT_EQUAL(u.growth_tracker, 0);
    /* LS-OVF-1 at the midpoint: FLT_MAX * (1 + 2^-23) is above (2 - 2^-24) 2^127: overflow,
     * torch keeps FLT_MAX */
    t.initial_scale = FLT_MAX;
    t.growth_factor = 1.0f + 0x1p-23f;
    u = start(&t);
    run(&t, &u, 0, 1, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(u.scale, FLT_MAX);
    /* LS-MUL-1: 1.5 * 2^127 * (1 + 2^-23) = 1.5 * 2^127 + 1.5 ulp: one rounding, ties to even
     * gives + 2 ulp (0x1.800004p127) */
    c.initial_scale = 0x1.8p127f;
    c.growth_factor = 1.0f + 0x1p-23f;
    s = start(&c);
    run(&c, &s, 0, 1, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(s.scale, 0x1.800004p127f);
}

/* torch profile: every inf backs off, growth after growth_interval clean updates. */
static void test_torch(void)
{
    oc_loss_scaler t = torch_defaults();
    oc_loss_scale_state s = start(&t);
    run(&t, &s, 0, 1999, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(s.growth_tracker, 1999);
    run(&t, &s, 1, 1, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(s.scale, 0x1p15f);
    CU_ASSERT_EQUAL(s.growth_tracker, 0);
    run(&t, &s, 0, 2000, OC_LS_CORRECT);
    CU_ASSERT_EQUAL(s.scale, 0x1p16f);
    CU_ASSERT_EQUAL(s.hysteresis_tracker, 1);   /* untouched by the torch profile */
}

/* LS-PROF-CONSTANT: the scale never moves. */
static void test_constant(void)
{
    oc_loss_scaler c = {OC_LS_MEGATRON_CONSTANT, 4096.0f, 0, 0, 0, 0, 0};
    oc_loss_scale_state s = start(&c);
    run(&c, &s, 1, 3, OC_LS_CORRECT);
    run(&c, &s, 0, 5, OC_LS_CORRECT);
    expect(&s, 4096.0f, 0, 0);
}

/* LS-CFG-1, LS-STATE-1, LS-ERR-1: rejections leave the state untouched. */
static void test_rejections(void)
{
    oc_loss_scale_state sentinel = {-7.0f, 123, 456};
    struct { const char *what; oc_loss_scaler c; } bad[] = {
        {"growth 1", {OC_LS_MEGATRON, 0x1p32f, 1.0f, 1.0f, 0.5f, 1000, 2}},
        {"growth NaN", {OC_LS_TORCH, 0x1p16f, 0, NAN, 0.5f, 2000, 1}},
        {"backoff 0", {OC_LS_TORCH, 0x1p16f, 0, 2.0f, 0.0f, 2000, 1}},
        {"backoff 1", {OC_LS_MEGATRON, 0x1p32f, 1.0f, 2.0f, 1.0f, 1000, 2}},
        {"backoff NaN", {OC_LS_MEGATRON, 0x1p32f, 1.0f, 2.0f, NAN, 1000, 2}},
        {"hysteresis 0", {OC_LS_MEGATRON, 0x1p32f, 1.0f, 2.0f, 0.5f, 1000, 0}},
        {"interval 0", {OC_LS_TORCH, 0x1p16f, 0, 2.0f, 0.5f, 0, 1}},
        {"interval 2^31", {OC_LS_TORCH, 0x1p16f, 0, 2.0f, 0.5f, 2147483648, 1}},
        {"min 0", {OC_LS_MEGATRON, 0x1p32f, 0.0f, 2.0f, 0.5f, 1000, 2}},
        {"min > initial", {OC_LS_MEGATRON, 1.0f, 2.0f, 2.0f, 0.5f, 1000, 2}},
        {"initial inf", {OC_LS_MEGATRON_CONSTANT, INFINITY, 0, 0, 0, 0, 0}},
        {"initial NaN", {OC_LS_TORCH, NAN, 0, 2.0f, 0.5f, 2000, 1}},
        {"profile", {OC_LS_PROFILE_COUNT, 1.0f, 1.0f, 2.0f, 0.5f, 10, 1}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        oc_loss_scale_state s = sentinel;
        CU_ASSERT_EQUAL(oc_loss_scaler_check(&bad[i].c), OC_ERR_BAD_HPARAM);
        CU_ASSERT_EQUAL(oc_ref_loss_scale_update(&bad[i].c, &s, 1),
                        OC_ERR_BAD_HPARAM);
        CU_ASSERT_EQUAL(oc_ref_loss_scale_init(&bad[i].c, &s), OC_ERR_BAD_HPARAM);
        CU_ASSERT(same_state(&s, &sentinel));
    }
    oc_loss_scaler c = megatron();
    oc_loss_scale_state states[] = {{NAN, 0, 2}, {-1.0f, 0, 2}, {1.0f, 1000, 2}, {1.0f, -1, 2},
                                    {1.0f, 0, 3}, {1.0f, 0, OC_LS_MIN_HYSTERESIS_TRACKER}};
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        oc_loss_scale_state s = states[i];
        CU_ASSERT_EQUAL(oc_ref_loss_scale_update(&c, &s, 0), OC_ERR_BAD_STEP);
        CU_ASSERT(same_state(&s, &states[i]));
    }
    oc_loss_scale_state s = start(&c);
    CU_ASSERT_EQUAL(oc_ref_loss_scale_update(NULL, &s, 0), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_loss_scale_update(&c, NULL, 0), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_loss_scale_mutant_update(OC_LS_MUTANT_COUNT, &c, &s, 0), OC_ERR_BAD_PROFILE);
    expect(&s, 0x1p32f, 0, 2);
    unsigned char h[2] = {0, 1};
    oc_loss_scale_state traj[2] = {sentinel, sentinel};
    c.backoff_factor = 2.0f;
    CU_ASSERT_EQUAL(oc_ref_loss_scale_run(&c, h, 2, traj), OC_ERR_BAD_HPARAM);
    CU_ASSERT(same_state(&traj[1], &sentinel));
    CU_ASSERT_EQUAL(oc_ref_loss_scale_run(&c, NULL, 2, traj), OC_ERR_NULL_POINTER);
    /* the API's other pointer guards (LS-CFG-1): the harness never passes NULL (VEC-PLUG-2) */
    CU_ASSERT_EQUAL(oc_ref_loss_scale_run(NULL, h, 2, traj), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_loss_scale_run(&c, h, 2, NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_loss_scale_run(&c, NULL, 0, NULL), OC_ERR_BAD_HPARAM);
    CU_ASSERT(same_state(&traj[0], &sentinel) && same_state(&traj[1], &sentinel));
    c = megatron();
    CU_ASSERT_EQUAL(oc_loss_scaler_check(NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_loss_scale_init(NULL, &s), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_loss_scale_init(&c, NULL), OC_ERR_NULL_POINTER);
    oc_loss_scale_profile pr = OC_LS_TORCH;
    CU_ASSERT_EQUAL(oc_loss_scale_profile_parse(NULL, &pr), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_loss_scale_profile_parse("torch", NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(pr, OC_LS_TORCH);
}

/* oc_ref_loss_scale_run is the same trajectory as the updates one by one (LS-STATE-1). */
static void test_run_matches_updates(void)
{
    enum { N = 5000 };
    static unsigned char h[N];
    static oc_loss_scale_state traj[N];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        h[i] = x % 100 < 3;
    }
    for (int p = 0; p < OC_LS_PROFILE_COUNT; p++) {
        oc_loss_scaler c = megatron();
        c.profile = (oc_loss_scale_profile)p;
        c.growth_interval = 37;
        c.hysteresis = 3;
        CU_ASSERT_EQUAL_FATAL(oc_ref_loss_scale_run(&c, h, N, traj), OC_OK);
        oc_loss_scale_state s = start(&c);
        int same = 1;
        for (int i = 0; i < N; i++) {
            CU_ASSERT_EQUAL_FATAL(oc_ref_loss_scale_update(&c, &s, h[i]), OC_OK);
            same &= same_state(&s, &traj[i]);
        }
        CU_ASSERT(same);
    }
}

/* Each mutant of spec §4 on the history that shows its mistake. */
static void test_mutants(void)
{
    oc_loss_scaler c = megatron();
    c.growth_interval = 4;
    oc_loss_scale_state s = start(&c);
    run(&c, &s, 1, 1, OC_LS_MUT_BACKOFF_ON_FIRST_INF);
    CU_ASSERT_EQUAL(s.scale, 0x1p31f);
    s = start(&c);
    run(&c, &s, 1, 2, OC_LS_MUT_HYSTERESIS_KEPT_ON_GROWTH);   /* H = 0, backoff */
    run(&c, &s, 0, 4, OC_LS_MUT_HYSTERESIS_KEPT_ON_GROWTH);   /* growth, H stays 0 */
    expect(&s, 0x1p32f, 0, 0);
    s = start(&c);
    run(&c, &s, 0, 3, OC_LS_MUT_GROWTH_TRACKER_KEPT_ON_INF);
    run(&c, &s, 1, 1, OC_LS_MUT_GROWTH_TRACKER_KEPT_ON_INF);
    run(&c, &s, 0, 1, OC_LS_MUT_GROWTH_TRACKER_KEPT_ON_INF);
    CU_ASSERT_EQUAL(s.scale, 0x1p33f);                          /* correct: still 2^32 */
    s = start(&c);
    run(&c, &s, 0, 4, OC_LS_MUT_GROWTH_INTERVAL_OFF_BY_ONE);
    expect(&s, 0x1p32f, 4, 2);
    c.min_scale = 0x1p31f;
    c.hysteresis = 1;
    s = start(&c);
    run(&c, &s, 1, 2, OC_LS_MUT_NO_MIN_SCALE);
    CU_ASSERT_EQUAL(s.scale, 0x1p30f);
    c = megatron();
    s = start(&c);
    run(&c, &s, 1, 1, OC_LS_MUT_HYSTERESIS_RESET_ON_CLEAN);
    run(&c, &s, 0, 1, OC_LS_MUT_HYSTERESIS_RESET_ON_CLEAN);
    run(&c, &s, 1, 1, OC_LS_MUT_HYSTERESIS_RESET_ON_CLEAN);
    expect(&s, 0x1p32f, 0, 1);                                  /* correct: 2^31, H = 0 */
    CU_ASSERT_STRING_EQUAL(oc_loss_scale_mutant_name(OC_LS_MUT_NO_MIN_SCALE), "no-min-scale");
    CU_ASSERT_PTR_NULL(oc_loss_scale_mutant_name(OC_LS_MUTANT_COUNT));
    CU_ASSERT_PTR_NOT_NULL(oc_loss_scale_mutant_description(OC_LS_MUT_NO_MIN_SCALE));
    oc_loss_scale_profile pr;
    CU_ASSERT_EQUAL(oc_loss_scale_profile_parse("megatron-constant", &pr), OC_OK);
    CU_ASSERT_EQUAL(pr, OC_LS_MEGATRON_CONSTANT);
    CU_ASSERT_EQUAL(oc_loss_scale_profile_parse("apex", &pr), OC_ERR_BAD_PROFILE);
}

/* Writes `text` to a temporary vector file and loads it; returns the status. */
/* VEC-FMT-10: a history and one expected value per update per output of the profile; a
 * malformed history or a missing value is a format error. */
static void test_vector_format(void)
{
    static const char *const head =
        "{\"schema\": \"optcert-vectors/1\", \"family\": \"loss-scale-torch\", "
        "\"algorithm\": \"loss-scale\", \"profile\": \"torch\", \"testGroups\": [{\"type\": "
        "\"LossScaleUpdate\", \"hparams\": {\"initialScale\": \"0x1p+4\", \"minScale\": "
        "\"0x0p+0\", \"growthFactor\": \"0x1p+1\", \"backoffFactor\": \"0x1p-1\", "
        "\"growthInterval\": 2, \"hysteresis\": 1}, \"tests\": [{\"tcId\": 1, \"comment\": \"\", "
        "\"flags\": [], \"specRules\": [\"LS-GROW-1\"], \"result\": \"valid\", ";
    static const char *const bodies[] = {
        "\"foundInf\": \"001\", \"expected\": {\"scale\": [\"0x1p+4\", \"0x1p+5\", \"0x1p+4\"], "
        "\"growthTracker\": [1, 0, 0]}}]}]}",
        "\"foundInf\": \"0x1\", \"expected\": {\"scale\": [\"0x1p+4\", \"0x1p+5\", \"0x1p+4\"], "
        "\"growthTracker\": [1, 0, 0]}}]}]}",
        "\"foundInf\": \"001\", \"expected\": {\"scale\": [\"0x1p+4\", \"0x1p+5\"], "
        "\"growthTracker\": [1, 0, 0]}}]}]}",
        "\"foundInf\": \"001\", \"expected\": {\"scale\": [\"0x1p+4\", \"0x1p+5\", \"0x1p+4\"]}}]}]}",
        "\"foundInf\": \"001\", \"expected\": {\"scale\": [\"0x1p+4\", \"0x1p+5\", \"0x1p+4\"], "
        "\"growthTracker\": [1, 0.5, 0]}}]}]}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char text[2048];
        oc_family fam;
        snprintf(text, sizeof text, "%s%s", head, bodies[i]);
        oc_status st = test_load_family_text(text, &fam);
        CU_ASSERT_EQUAL(st, i == 0 ? OC_OK : OC_ERR_FORMAT);
        if (st != OC_OK)
            continue;
        const oc_case *c = &fam.cases[0];
        CU_ASSERT(c->steps == 3 && c->n == 1 && c->nstate == 2);
        CU_ASSERT(c->positions[0] == 0 && c->positions[2] == 1);
        CU_ASSERT(c->exp[0].stored[1] == 32.0 && c->exp[1].stored[0] == 1.0);
        oc_family_free(&fam);
    }
}

void register_suites(void)
{
    ADD_SUITE("loss-scale",
              {"growth after exactly growth_interval clean updates (LS-INIT-1, LS-GROW-1)",
               test_growth},
              {"hysteresis counts every inf since the last growth (LS-HYST-1, LS-INF-1)",
               test_hysteresis},
              {"min_scale clamp; torch to subnormals and 0 (LS-BACKOFF-1, LS-MUL-1)",
               test_min_scale},
              {"growth past FLT_MAX (LS-OVF-1, LS-MUL-1)", test_overflow},
              {"torch profile (LS-PROF-TORCH)", test_torch},
              {"constant scaler (LS-PROF-CONSTANT, LS-PROF-MEGATRON)", test_constant},
              {"invalid configurations and states (LS-CFG-1, LS-STATE-1, LS-ERR-1)",
               test_rejections},
              {"run equals the updates one by one (LS-STATE-1, LS-TOL-1)",
               test_run_matches_updates},
              {"mutants show their mistakes", test_mutants},
              {"vector format (VEC-FMT-10)", test_vector_format});
}
