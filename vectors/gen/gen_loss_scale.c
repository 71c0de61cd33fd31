/* Loss-scale vector families (spec/loss_scale.md): one per profile. Each case is a found_inf
 * history and the expected scale and trackers after every update, computed from the rules of
 * §1 with the scale products in MPFR, rounded once to binary32 (LS-MUL-1). Values are inline
 * in the JSON (VEC-FMT-10). tcIds are assigned in generation order: append new cases at the
 * end. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/loss_scale.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

typedef struct ls_gen {
    family *f;
    oc_loss_scale_profile profile;
    mpfr_t prod;
} ls_gen;

static const char *const profile_names[OC_LS_PROFILE_COUNT] = {"megatron", "megatron-constant",
                                                                "torch"};

/* LS-MUL-1: the exact product (48 significant bits at most, the working precision holds it)
 * correctly rounded to binary32, +inf past the binary32 range. */
static float times(ls_gen *g, float s, float factor)
{
    mpfr_set_flt(g->prod, s, MPFR_RNDN);
    mpfr_mul_d(g->prod, g->prod, factor, MPFR_RNDN);
    return mpfr_get_flt(g->prod, MPFR_RNDN);
}

/* The spec's state machine (§1), written from the rules: what each update does to the three
 * values of LS-STATE-1. */
static void spec_update(ls_gen *g, const oc_loss_scaler *c, int inf, float *scale, long *growth,
                        long *hyst)
{
    if (g->profile == OC_LS_MEGATRON_CONSTANT)                    /* LS-PROF-CONSTANT */
        return;
    if (!inf) {
        if (++*growth < c->growth_interval)                       /* LS-GROW-1 */
            return;
        *growth = 0;
        float grown = times(g, *scale, c->growth_factor);
        if (g->profile == OC_LS_MEGATRON) {
            *hyst = c->hysteresis;                                /* LS-HYST-1 */
            *scale = grown;                                       /* LS-OVF-1: may be +inf */
        } else if (isfinite(grown)) {                             /* LS-OVF-1: torch keeps */
            *scale = grown;
        }
        return;
    }
    *growth = 0;                                                  /* LS-INF-1 */
    if (g->profile == OC_LS_MEGATRON && --*hyst > 0)              /* LS-HYST-1 */
        return;
    float backed = times(g, *scale, c->backoff_factor);           /* LS-BACKOFF-1 */
    if (g->profile == OC_LS_MEGATRON && backed < c->min_scale)
        backed = c->min_scale;
    *scale = backed;
}

static json_t *hparams_json(const oc_loss_scaler *c)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:I,s:I}", "initialScale", hexfloat(c->initial_scale),
                     "minScale", hexfloat(c->min_scale), "growthFactor",
                     hexfloat(c->growth_factor), "backoffFactor", hexfloat(c->backoff_factor),
                     "growthInterval", (json_int_t)c->growth_interval, "hysteresis",
                     (json_int_t)c->hysteresis);
}

/* Emits one case: history `h` (a string of '0'/'1', one per update), with a break after
 * resume_at updates (VEC-FMT-20; -1: none). */
static void emit_at(ls_gen *g, const oc_loss_scaler *c, const char *comment, const char *flag,
                    const char *rules, const char *result, const char *h, long resume_at)
{
    json_t *jr = json_array();
    char buf[256];
    snprintf(buf, sizeof buf, "%s LS-STATE-1 LS-TOL-1 LS-PROF-%s", rules,
             g->profile == OC_LS_MEGATRON ? "MEGATRON"
             : g->profile == OC_LS_TORCH  ? "TORCH"
                                          : "CONSTANT");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        json_array_append_new(jr, json_string(tok));
    json_t *test = json_pack("{s:s,s:[s],s:o,s:s,s:s}", "comment", comment, "flags", flag,
                             "specRules", jr, "result", result, "foundInf", h);
    if (resume_at >= 0)
        json_object_set_new(test, "resumeAt", json_integer(resume_at));
    if (strcmp(result, "valid") == 0) {
        json_t *sc = json_array(), *gt = json_array(), *ht = json_array();
        float scale = c->initial_scale;                           /* LS-INIT-1 */
        long growth = 0, hyst = c->hysteresis;
        for (const char *p = h; *p; p++) {
            spec_update(g, c, *p == '1', &scale, &growth, &hyst);
            json_array_append_new(sc, hexfloat(scale));
            json_array_append_new(gt, json_integer(growth));
            json_array_append_new(ht, json_integer(hyst));
        }
        json_t *exp = json_pack("{s:o}", "scale", sc);
        if (g->profile != OC_LS_MEGATRON_CONSTANT)
            json_object_set_new(exp, "growthTracker", gt);
        else
            json_decref(gt);
        if (g->profile == OC_LS_MEGATRON)
            json_object_set_new(exp, "hysteresisTracker", ht);
        else
            json_decref(ht);
        json_object_set_new(test, "expected", exp);
    }
    family_group(g->f, "LossScaleUpdate", hparams_json(c));
    family_test(g->f, test);
}

static void emit(ls_gen *g, const oc_loss_scaler *c, const char *comment, const char *flag,
                 const char *rules, const char *result, const char *h)
{
    emit_at(g, c, comment, flag, rules, result, h, -1);
}

/* The library defaults of the profile (LS-PROF-*). */
static oc_loss_scaler defaults(oc_loss_scale_profile p)
{
    oc_loss_scaler c = {.profile = p, .initial_scale = 0x1p32f, .min_scale = 1.0f,
                        .growth_factor = 2.0f, .backoff_factor = 0.5f, .growth_interval = 1000,
                        .hysteresis = 2};
    if (p == OC_LS_TORCH) {
        c.initial_scale = 0x1p16f;
        c.growth_interval = 2000;
        c.hysteresis = 1;
    }
    return c;
}

/* A random history: isolated spikes with probability p_spike per update; a spike opens a burst
 * of 1 .. max_burst infs. */
static char *random_history(gen_rng *r, size_t n, double p_spike, int max_burst)
{
    char *h = malloc(n + 1);
    for (size_t i = 0; i < n;) {
        if (rng_unit(r) < p_spike) {
            for (int b = 1 + rng_int(r, max_burst); b > 0 && i < n; b--)
                h[i++] = '1';
        } else {
            h[i++] = '0';
        }
    }
    h[n] = '\0';
    return h;
}

/* A history from a pattern of runs: "c5 i1 c3" = 5 clean, 1 inf, 3 clean; the whole pattern
 * repeated `times` times. */
static char *pattern(const char *runs, int times)
{
    size_t n = 0;
    for (int t = 0; t < times; t++)
        for (const char *p = runs; *p;) {
            char kind = *p++;
            long k = strtol(p, (char **)&p, 10);
            n += kind == 'c' || kind == 'i' ? (size_t)k : 0;
            while (*p == ' ')
                p++;
        }
    char *h = malloc(n + 1), *w = h;
    for (int t = 0; t < times; t++)
        for (const char *p = runs; *p;) {
            char kind = *p++;
            long k = strtol(p, (char **)&p, 10);
            while (k-- > 0)
                *w++ = kind == 'i' ? '1' : '0';
            while (*p == ' ')
                p++;
        }
    *w = '\0';
    return h;
}

static void valid_cases(ls_gen *g, const gen_options *opt)
{
    gen_rng r = {opt->seed ^ (0x105ull << 40) ^ (uint64_t)g->profile};
    size_t long_n = strcmp(opt->level, "cert") == 0 ? 200000 : 20000;
    oc_loss_scaler c = defaults(g->profile);
    char *h = random_history(&r, long_n, 0.0015, 1);
    emit(g, &c, "library defaults, isolated spikes over a long run", "LongRun",
         "LS-INIT-1 LS-GROW-1 LS-INF-1 LS-HYST-1 LS-BACKOFF-1", "valid", h);
    free(h);
    c.growth_interval = 50;
    h = random_history(&r, long_n / 2, 0.01, 6);
    emit(g, &c, "bursts of 1 to 6 infs, short growth interval", "Bursts",
         "LS-GROW-1 LS-INF-1 LS-HYST-1 LS-BACKOFF-1", "valid", h);
    free(h);
    c = defaults(g->profile);
    c.growth_interval = 8;
    c.hysteresis = g->profile == OC_LS_MEGATRON ? 3 : c.hysteresis;
    static const struct { const char *runs; int times; const char *comment; } hand[] = {
        {"c3 i1 c3 i1 c3 i1 c3 i1 c7 i1", 3,
         "spaced infs that never let the scale grow: the hysteresis runs out across them"},
        {"i1 i1 i1 i1 c8 i1 i1 i1", 2, "a burst exactly the hysteresis long, then growth resets it"},
        {"c7 i1 c8 c7 i1", 4, "an inf exactly at a growth boundary, then exactly one interval"},
        {"c8 c8 i2 c8 i1", 3, "growth, a short burst below the hysteresis, growth again"},
        {"c16 i5 c8 i1 c7 i1 c8 i1", 2, "hysteresis exhausted, then only growth restores it"},
    };
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
        h = pattern(hand[i].runs, hand[i].times);
        emit(g, &c, hand[i].comment, "HysteresisBoundary",
             "LS-GROW-1 LS-INF-1 LS-HYST-1 LS-BACKOFF-1", "valid", h);
        free(h);
    }
    c = defaults(g->profile);
    c.initial_scale = 64.0f;
    c.min_scale = 3.0f;
    c.growth_interval = 4;
    h = pattern("i12 c4 i3 c8 i20", 1);
    emit(g, &c, "backoff to the min_scale clamp (3, not a power of two) and staying there",
         "MinScaleClamp", "LS-BACKOFF-1", "valid", h);
    free(h);
    c = defaults(g->profile);
    c.initial_scale = 0x1p100f;
    c.growth_interval = 3;
    h = pattern("c90 i1 c9 i4 c6", 1);
    emit(g, &c, "growth past the binary32 range: Megatron's scale becomes +inf, torch's stays",
         "GrowthToLargeScales", "LS-GROW-1 LS-OVF-1 LS-MUL-1", "valid", h);
    free(h);
    c = defaults(g->profile);
    c.initial_scale = 0x1.8p-120f;
    c.min_scale = 0x1p-149f;
    c.growth_interval = 2;
    h = pattern("i40 c2 i3", 1);
    emit(g, &c, "backoff into the subnormal range (torch reaches 0)", "Subnormal",
         "LS-BACKOFF-1 LS-MUL-1", "valid", h);
    free(h);
    c = defaults(g->profile);
    c.initial_scale = 0x1.3p20f;
    c.min_scale = 0x1p-10f;
    c.growth_factor = 0x1.004p0f;
    c.backoff_factor = 0x1.666666p-1f; /* 0.7 in binary32 */
    c.growth_interval = 5;
    h = random_history(&r, long_n / 2, 0.03, 3);
    emit(g, &c, "factors that are not powers of two: every product rounds to binary32",
         "Rounding", "LS-MUL-1 LS-GROW-1 LS-BACKOFF-1", "valid", h);
    free(h);
    c = defaults(g->profile);
    c.growth_interval = 1;
    c.hysteresis = 1;
    h = pattern("c5 i1 c2 i3 c1", 2);
    emit(g, &c, "growth_interval 1 and hysteresis 1: every clean step grows, every inf backs off",
         "SmallestInterval", "LS-GROW-1 LS-HYST-1 LS-BACKOFF-1", "valid", h);
    free(h);
}

static void invalid_cases(ls_gen *g)
{
    static const struct { const char *what; size_t field; float value; int prof_mask; } bad[] = {
        {"initial_scale = 0", offsetof(oc_loss_scaler, initial_scale), 0.0f, 7},
        {"initial_scale = +inf", offsetof(oc_loss_scaler, initial_scale), INFINITY, 7},
        {"initial_scale = NaN", offsetof(oc_loss_scaler, initial_scale), NAN, 7},
        {"growth_factor = 1", offsetof(oc_loss_scaler, growth_factor), 1.0f, 5},
        {"growth_factor = NaN", offsetof(oc_loss_scaler, growth_factor), NAN, 5},
        {"backoff_factor = 1", offsetof(oc_loss_scaler, backoff_factor), 1.0f, 5},
        {"backoff_factor = 0", offsetof(oc_loss_scaler, backoff_factor), 0.0f, 5},
        {"backoff_factor = -0.5", offsetof(oc_loss_scaler, backoff_factor), -0.5f, 5},
        {"backoff_factor = NaN", offsetof(oc_loss_scaler, backoff_factor), NAN, 5},
        {"min_scale = 0", offsetof(oc_loss_scaler, min_scale), 0.0f, 1},
        {"min_scale > initial_scale", offsetof(oc_loss_scaler, min_scale), 0x1p33f, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!(bad[i].prof_mask & (1 << g->profile)))
            continue;
        oc_loss_scaler c = defaults(g->profile);
        *(float *)((char *)&c + bad[i].field) = bad[i].value;
        emit(g, &c, bad[i].what, "InvalidConfig", "LS-CFG-1 LS-ERR-1", "invalid", "0");
    }
    if (g->profile == OC_LS_MEGATRON_CONSTANT)
        return;
    oc_loss_scaler c = defaults(g->profile);
    c.growth_interval = 0;
    emit(g, &c, "growth_interval = 0", "InvalidConfig", "LS-CFG-1 LS-ERR-1", "invalid", "0");
    if (g->profile == OC_LS_MEGATRON) {
        c = defaults(g->profile);
        c.hysteresis = 0;
        emit(g, &c, "hysteresis = 0", "InvalidConfig", "LS-CFG-1 LS-ERR-1", "invalid", "1");
    }
    /* the upper bounds of LS-CFG-1: one past torch's int32 growth tracker */
    c = defaults(g->profile);
    c.growth_interval = OC_LS_MAX_INTERVAL + INT64_C(1);
    emit(g, &c, "growth_interval = 2^31", "InvalidConfig", "LS-CFG-1 LS-ERR-1", "invalid", "0");
    if (g->profile == OC_LS_MEGATRON) {
        c = defaults(g->profile);
        c.hysteresis = OC_LS_MAX_INTERVAL + INT64_C(1);
        emit(g, &c, "hysteresis = 2^31", "InvalidConfig", "LS-CFG-1 LS-ERR-1", "invalid", "1");
    }
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"LongRun", "TRAJECTORY", "a long history with the library's defaults",
         "the state after every update is compared"},
        {"Bursts", "TRAJECTORY", "bursts of consecutive infs",
         "hysteresis, growth and backoff interleave"},
        {"HysteresisBoundary", "KNOWN_MISTAKE",
         "infs placed at the hysteresis and growth boundaries",
         "off-by-one intervals and tracker resets show here"},
        {"MinScaleClamp", "KNOWN_MISTAKE", "backoff below min_scale",
         "Megatron clamps at min_scale; torch has no clamp"},
        {"GrowthToLargeScales", "EDGE_CASE", "growth past FLT_MAX",
         "Megatron's scale overflows to +inf; torch keeps the last finite scale"},
        {"Subnormal", "EDGE_CASE", "scales in the subnormal range",
         "products round to binary32 subnormals and to 0"},
        {"Rounding", "STORAGE_ROUNDING", "factors that are not powers of two",
         "each product is rounded once to binary32"},
        {"SmallestInterval", "EDGE_CASE", "growth_interval = 1, hysteresis = 1",
         "the smallest intervals"},
        {"InvalidConfig", "INVALID_INPUT", "configuration outside LS-CFG-1",
         "must be rejected with nothing written"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

/* The resume family of the profile (spec/checkpoint.md RESUME-LS-1): histories whose expected
 * state is the unbroken one, each emitted once per break. */
static void resume_cases(ls_gen *g, const gen_options *opt)
{
    static const char *const rules = "VEC-FMT-20 VEC-RESUME-1 VEC-RESUME-2 RESUME-LS-1 "
                                      "RESUME-REF-1 RESUME-MUT-1 LS-GROW-1 LS-HYST-1";
    oc_loss_scaler c = defaults(g->profile);
    c.growth_interval = 4;
    c.hysteresis = g->profile == OC_LS_MEGATRON ? 3 : c.hysteresis;
    /* growth after clean runs broken inside them; infs spaced so that the hysteresis runs out
     * across breaks (H 2, 1, 0, -1 before a growth resets it) */
    char *h = pattern("c3 i1 c6 i1 c2 i1 c2 i1 c2 i1 c4 i1 i1 c5", 1);
    for (long k = 0; k <= (long)strlen(h); k++)
        emit_at(g, &c, "a break after every update: growth and hysteresis trackers mid-count",
                "Resume", rules, "valid", h, k);
    free(h);
    gen_rng r = {opt->seed ^ (0x2105ull << 40) ^ (uint64_t)g->profile};
    c = defaults(g->profile);
    long n = (long)(3 * c.growth_interval) / 2 + 1;
    h = random_history(&r, (size_t)n, 0.0015, 2);
    const long breaks[] = {1, n / 3, n / 2, n - 1};
    for (size_t k = 0; k < sizeof breaks / sizeof *breaks; k++)
        emit_at(g, &c, "library defaults, isolated spikes; broken mid-interval", "Resume", rules,
                "valid", h, breaks[k]);
    free(h);
}

static void resume_notes(family *f)
{
    family_note(f, "Resume", "TRAJECTORY",
                "the scaler saves its state after resumeAt updates, a fresh scaler restores it "
                "and the history continues",
                "a tracker the serialisation drops changes the scale's growth or backoff", NULL);
}

/* One family of a profile: the loss-scale cases, or (resume) the resume cases. */
static int profile_family(const gen_options *opt, const char *outdir, int p, int resume)
{
    static const char *const rules[] = {
        "LS-CFG-1", "LS-INIT-1", "LS-STATE-1", "LS-GROW-1", "LS-INF-1", "LS-HYST-1",
        "LS-BACKOFF-1", "LS-MUL-1", "LS-OVF-1", "LS-ERR-1", "LS-TOL-1", NULL};
    static const char *const resume_rules[] = {
        "VEC-FMT-20", "VEC-RESUME-1", "VEC-RESUME-2", "RESUME-LS-1", "RESUME-REF-1",
        "RESUME-MUT-1", "LS-STATE-1", "LS-TOL-1", NULL};
    family f;
    char name[64];
    snprintf(name, sizeof name, "%sloss-scale-%s", resume ? "resume-" : "", profile_names[p]);
    ls_gen g = {.f = &f, .profile = (oc_loss_scale_profile)p};
    mpfr_init2(g.prod, opt->prec);
    int rc = family_init(&f, name, "loss-scale", profile_names[p], resume ? resume_rules : rules,
                         opt);
    if (rc == 0) {
        family_inline(&f);
        if (resume) {
            resume_notes(&f);
            resume_cases(&g, opt);
        } else {
            notes(&f);
            valid_cases(&g, opt);
            invalid_cases(&g);
        }
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    mpfr_clear(g.prod);
    return rc;
}

static int gen_loss_scale(const gen_options *opt, const char *outdir)
{
    int rc = 0;
    for (int p = 0; p < OC_LS_PROFILE_COUNT && rc == 0; p++)
        rc = profile_family(opt, outdir, p, 0) || profile_family(opt, outdir, p, 1);
    return rc;
}

/* Writes vectors/loss-scale-<profile> (spec/loss_scale.md) and vectors/resume-loss-scale-<profile>
 * (spec/checkpoint.md RESUME-LS-1). */
const gen_family gen_family_loss_scale = {.name = "loss-scale", .generate = gen_loss_scale};

void gen_loss_scale_update(const oc_loss_scaler *c, mpfr_prec_t prec, int found_inf,
                           float *scale, long *growth, long *hyst)
{
    ls_gen g = {.profile = c->profile};
    mpfr_init2(g.prod, prec);
    spec_update(&g, c, found_inf, scale, growth, hyst);
    mpfr_clear(g.prod);
}
