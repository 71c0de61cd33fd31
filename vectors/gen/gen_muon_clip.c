/* MuonClip vector families (spec/muon.md, MUONCLIP-*): per-head largest raw logits on both
 * sides of tau (and exactly at it), multi-head, grouped-query and multi-query layouts of the
 * fused QKV weight; every clipped weight computed in MPFR and rounded once to binary32, with
 * the relative bound of MUONCLIP-TOL-1. Values inline in the JSON (VEC-FMT-13). tcIds are
 * assigned in generation order: append new cases at the end. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/muon_clip.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

#define U32 0x1p-24
#define REL_TOL (8 * U32) /* MUONCLIP-TOL-1 */

typedef struct clip_gen {
    family *f;
    oc_muon_clip_profile profile;
    mpfr_t s, m, gamma, fq, fk, t;
    gen_rng rng;
} clip_gen;

static const char *const profile_names[OC_MUON_CLIP_PROFILE_COUNT] = {"kimi", "megatron",
                                                                      "kimi-mla"};
static const char *const profile_rules[OC_MUON_CLIP_PROFILE_COUNT] = {
    "MUONCLIP-PROF-KIMI", "MUONCLIP-PROF-MEGATRON", "MUONCLIP-PROF-KIMI-MLA"};

/* d of MUONCLIP-LOGIT-1: d_c + d_r under MLA (MUONCLIP-LOGIT-MLA). */
static size_t logit_dim(const oc_muon_clip_config *c)
{
    return c->head_dim + (c->profile == OC_MUON_CLIP_KIMI_MLA ? c->rope_dim : 0);
}

/* The weights one factor of group (or MLA head) g multiplies: `len` elements from `offset`. */
typedef enum { BY_GAMMA_ALPHA, BY_GAMMA_ONE_MINUS_ALPHA, BY_GAMMA } clip_factor;
typedef struct clip_run {
    size_t offset, len;
    clip_factor by;
} clip_run;

/* Where group g's scaled rows lie and by what (MUONCLIP-LAYOUT-1 with MUONCLIP-SCALE-1, or
 * MUONCLIP-LAYOUT-MLA with MUONCLIP-SCALE-MLA); v rows and W_kr are in no run. Returns the
 * number of runs. */
static size_t clip_runs(const oc_muon_clip_config *c, size_t g, clip_run run[3])
{
    if (c->profile == OC_MUON_CLIP_KIMI_MLA) {
        /* [W_q up: heads x (d_c W_qc rows; d_r W_qr rows) x qCols]
         * [W_kv up: heads x (d_c W_kc rows; d_v W_v rows) x kvCols] [W_kr: d_r x hidden] */
        size_t q_head = (c->head_dim + c->rope_dim) * c->q_cols;
        size_t kv_head = (c->head_dim + c->v_dim) * c->kv_cols;
        size_t q0 = g * q_head, k0 = c->heads * q_head + g * kv_head;
        run[0] = (clip_run){q0, c->head_dim * c->q_cols, BY_GAMMA_ALPHA};              /* W_qc */
        run[1] = (clip_run){q0 + c->head_dim * c->q_cols, c->rope_dim * c->q_cols,
                            BY_GAMMA};                                                 /* W_qr */
        run[2] = (clip_run){k0, c->head_dim * c->kv_cols, BY_GAMMA_ONE_MINUS_ALPHA};   /* W_kc */
        return 3;
    }
    /* groups blocks of [heads/groups q heads; one k head; one v head], each head d x hidden */
    size_t per = c->heads / c->groups, head = c->head_dim * c->hidden;
    size_t block = g * (per + 2) * head;
    run[0] = (clip_run){block, per * head, BY_GAMMA_ALPHA};
    run[1] = (clip_run){block + per * head, head, BY_GAMMA_ONE_MINUS_ALPHA};
    return 2;
}

/* Elements of the whole weight buffer of a layout (MUONCLIP-LAYOUT-1 / -MLA). */
static size_t weight_len(const oc_muon_clip_config *c)
{
    if (c->profile == OC_MUON_CLIP_KIMI_MLA)
        return c->heads * ((c->head_dim + c->rope_dim) * c->q_cols +
                           (c->head_dim + c->v_dim) * c->kv_cols) +
               c->rope_dim * c->hidden;
    return (c->heads + 2 * c->groups) * c->head_dim * c->hidden;
}

static json_t *hex_list(const float *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, hexfloat(x[i]));
    return a;
}

/* The exact clip of w (MUONCLIP-LOGIT-1, -GROUP-1, -GAMMA-1, -SCALE-1, -SCALE-MLA), each
 * element rounded once to binary32 (MUONCLIP-STORE-1). */
static void exact_clip(clip_gen *g, const oc_muon_clip_config *c, const float *max_dot, float *w)
{
    size_t per = c->heads / c->groups;
    for (size_t k = 0; k < c->groups; k++) {
        for (size_t j = 0; j < per; j++) {
            mpfr_set_ui(g->t, (unsigned long)logit_dim(c), MPFR_RNDN);
            mpfr_sqrt(g->t, g->t, MPFR_RNDN);
            mpfr_set_flt(g->s, max_dot[k * per + j], MPFR_RNDN);
            mpfr_div(g->s, g->s, g->t, MPFR_RNDN);
            if (j == 0 || mpfr_cmp(g->s, g->m) > 0)
                mpfr_set(g->m, g->s, MPFR_RNDN);
        }
        if (mpfr_cmp_d(g->m, c->tau) <= 0)
            continue;
        mpfr_d_div(g->gamma, c->tau, g->m, MPFR_RNDN);
        mpfr_set_d(g->t, c->alpha, MPFR_RNDN);
        mpfr_pow(g->fq, g->gamma, g->t, MPFR_RNDN);
        mpfr_ui_sub(g->t, 1, g->t, MPFR_RNDN);
        mpfr_pow(g->fk, g->gamma, g->t, MPFR_RNDN);
        mpfr_ptr factor[3] = {g->fq, g->fk, g->gamma}; /* by clip_factor */
        clip_run run[3];
        size_t nruns = clip_runs(c, k, run);
        for (size_t p = 0; p < nruns; p++)
            for (float *x = w + run[p].offset; x < w + run[p].offset + run[p].len; x++) {
                mpfr_mul_d(g->t, factor[run[p].by], *x, MPFR_RNDN);
                *x = mpfr_get_flt(g->t, MPFR_RNDN);
            }
    }
}

static json_t *hparams_json(const oc_muon_clip_config *c)
{
    json_t *h = json_pack("{s:o,s:o,s:i,s:i,s:i,s:i}", "tau", hexfloat(c->tau), "alpha",
                          hexfloat(c->alpha), "heads", (json_int_t)c->heads, "groups",
                          (json_int_t)c->groups, "headDim", (json_int_t)c->head_dim, "hidden",
                          (json_int_t)c->hidden);
    if (c->profile == OC_MUON_CLIP_KIMI_MLA) { /* MUONCLIP-LAYOUT-MLA */
        json_object_set_new(h, "ropeDim", json_integer((json_int_t)c->rope_dim));
        json_object_set_new(h, "vDim", json_integer((json_int_t)c->v_dim));
        json_object_set_new(h, "qCols", json_integer((json_int_t)c->q_cols));
        json_object_set_new(h, "kvCols", json_integer((json_int_t)c->kv_cols));
    }
    return h;
}

/* One test of n weights (random magnitudes in [2^-8, 2^0)) and the given logits. */
static void emit(clip_gen *g, const oc_muon_clip_config *c, const float *max_dot, size_t n,
                 const char *comment, const char *flag, const char *rules, const char *result,
                 float bad_weight)
{
    float *w = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        w[i] = rng_mag(&g->rng, -8, 0, 1);
    if (bad_weight != 0)
        w[n / 2] = bad_weight;
    json_t *jr = json_array();
    char buf[256];
    snprintf(buf, sizeof buf, "%s %s MUONCLIP-TOL-1 %s", rules,
             g->profile == OC_MUON_CLIP_KIMI_MLA ? "MUONCLIP-LAYOUT-MLA" : "MUONCLIP-LAYOUT-1",
             profile_rules[g->profile]);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        json_array_append_new(jr, json_string(tok));
    json_t *test = json_pack("{s:s,s:[s],s:o,s:s,s:o,s:o}", "comment", comment, "flags", flag,
                             "specRules", jr, "result", result, "maxDot",
                             hex_list(max_dot, c->heads), "weight", hex_list(w, n));
    if (strcmp(result, "valid") == 0) {
        json_array_append_new(jr, json_string("MUONCLIP-STORE-1"));
        exact_clip(g, c, max_dot, w);
        json_object_set_new(test, "expected",
                            json_pack("{s:o,s:o}", "weight", hex_list(w, n), "relTol",
                                      hexfloat(REL_TOL)));
    }
    family_group(g->f, "QkClip", hparams_json(c));
    family_test(g->f, test);
    free(w);
}

static oc_muon_clip_config layout(oc_muon_clip_profile pr, size_t heads, size_t groups, size_t d,
                                  size_t hidden)
{
    return (oc_muon_clip_config){.profile = pr, .tau = 100.0, .alpha = 0.5, .heads = heads,
                                 .groups = groups, .head_dim = d, .hidden = hidden};
}

/* Logits S = maxDot / sqrt(d) of the heads, given as S (exact when d is a square). */
static void logits(const oc_muon_clip_config *c, const double *s, float *max_dot)
{
    for (size_t h = 0; h < c->heads; h++)
        max_dot[h] = (float)(s[h] * sqrt((double)logit_dim(c)));
}

static void valid_cases(clip_gen *g)
{
    static const struct {
        int kimi, megatron; /* which profiles get the case */
        size_t heads, groups, d, hidden;
        double tau, alpha, s[8];
        const char *comment, *flag, *rules;
    } k[] = {
        {1, 1, 4, 4, 4, 8, 100, 0.5, {50, 100, 150, 400},
         "MHA, d 4: logits 50, 100 (exactly tau: untouched), 150, 400", "BothSides",
         "MUONCLIP-LOGIT-1 MUONCLIP-GAMMA-1 MUONCLIP-SCALE-1"},
        {1, 1, 3, 3, 16, 5, 100, 0.5, {99, 100.5, 1000},
         "MHA, d 16: just below and just above tau, and ten times tau", "BothSides",
         "MUONCLIP-LOGIT-1 MUONCLIP-GAMMA-1 MUONCLIP-SCALE-1"},
        {1, 1, 4, 4, 4, 6, 100, 0.5, {10, 60, -300, 99},
         "no head above tau (one negative logit): the weight is unchanged", "NoClip",
         "MUONCLIP-GAMMA-1"},
        {1, 1, 2, 2, 8, 7, 30, 0.25, {45, 20},
         "tau 30, alpha 1/4, d 8 (irrational sqrt): W_q by gamma^(1/4), W_k by gamma^(3/4)",
         "Alpha", "MUONCLIP-LOGIT-1 MUONCLIP-SCALE-1 MUONCLIP-CFG-1"},
        {0, 1, 4, 2, 4, 8, 100, 0.5, {150, 40, 90, 100},
         "GQA 4 heads in 2 groups: group 0 clipped by its largest head (150), group 1 "
         "(90, exactly 100) untouched", "GroupedQuery",
         "MUONCLIP-GROUP-1 MUONCLIP-GAMMA-1 MUONCLIP-SCALE-1"},
        {0, 1, 4, 1, 4, 6, 100, 0.5, {20, 30, 250, 10},
         "MQA: one key/value head; one head above tau clips every query head", "GroupedQuery",
         "MUONCLIP-GROUP-1 MUONCLIP-SCALE-1"},
        {0, 1, 6, 3, 9, 5, 100, 0.5, {80, 130, 60, 70, 500, 200},
         "GQA 6 heads in 3 groups, d 9: groups clipped by 130/100, untouched, 500/100",
         "GroupedQuery", "MUONCLIP-GROUP-1 MUONCLIP-LOGIT-1 MUONCLIP-SCALE-1"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0] && g->profile != OC_MUON_CLIP_KIMI_MLA; i++) {
        if (!(g->profile == OC_MUON_CLIP_KIMI ? k[i].kimi : k[i].megatron))
            continue;
        oc_muon_clip_config c = layout(g->profile, k[i].heads, k[i].groups, k[i].d, k[i].hidden);
        float max_dot[8];
        c.tau = k[i].tau;
        c.alpha = k[i].alpha;
        logits(&c, k[i].s, max_dot);
        emit(g, &c, max_dot, weight_len(&c), k[i].comment, k[i].flag,
             k[i].rules, "valid", 0);
    }
}

/* MLA (MUONCLIP-LAYOUT-MLA): heads x d_c, d_r, d_v, columns of W_q up, W_kv up and W_kr. */
static oc_muon_clip_config mla_layout(size_t heads, size_t dc, size_t dr, size_t dv, size_t q_cols,
                                      size_t kv_cols, size_t hidden)
{
    return (oc_muon_clip_config){.profile = OC_MUON_CLIP_KIMI_MLA, .tau = 100.0, .alpha = 0.5,
                                 .heads = heads, .groups = heads, .head_dim = dc, .hidden = hidden,
                                 .rope_dim = dr, .v_dim = dv, .q_cols = q_cols, .kv_cols = kv_cols};
}

static void mla_cases(clip_gen *g)
{
    static const struct {
        size_t heads, dc, dr, dv, q_cols, kv_cols, hidden;
        double tau, alpha, s[4];
        const char *comment, *flag, *rules;
    } k[] = {
        {4, 2, 2, 3, 5, 4, 6, 100, 0.5, {50, 100, 150, 400},
         "MLA, d_c 2 + d_r 2: logits 50, 100 (exactly tau: untouched), 150, 400; W_qc, W_kc "
         "by sqrt(gamma), W_qr by gamma, W_kr and W_v bit for bit", "MlaBothSides",
         "MUONCLIP-LOGIT-MLA MUONCLIP-GAMMA-1 MUONCLIP-SCALE-MLA"},
        {3, 6, 3, 5, 4, 3, 7, 100, 0.5, {99, 100.5, 1000},
         "MLA, d_c 6 + d_r 3: just below and just above tau, and ten times tau", "MlaBothSides",
         "MUONCLIP-LOGIT-MLA MUONCLIP-GAMMA-1 MUONCLIP-SCALE-MLA"},
        {2, 2, 2, 2, 3, 3, 4, 100, 0.5, {10, -300},
         "MLA, no head above tau (one negative logit): the weight is unchanged", "NoClip",
         "MUONCLIP-LOGIT-MLA MUONCLIP-GAMMA-1"},
        {2, 4, 2, 3, 5, 3, 6, 30, 0.25, {45, 20},
         "MLA, tau 30, alpha 1/4, d_c 4 + d_r 2 (irrational sqrt): W_qc by gamma^(1/4), W_kc "
         "by gamma^(3/4), W_qr by gamma", "Alpha",
         "MUONCLIP-LOGIT-MLA MUONCLIP-SCALE-MLA MUONCLIP-CFG-1"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0] && g->profile == OC_MUON_CLIP_KIMI_MLA; i++) {
        oc_muon_clip_config c = mla_layout(k[i].heads, k[i].dc, k[i].dr, k[i].dv, k[i].q_cols,
                                           k[i].kv_cols, k[i].hidden);
        float max_dot[4];
        c.tau = k[i].tau;
        c.alpha = k[i].alpha;
        logits(&c, k[i].s, max_dot);
        emit(g, &c, max_dot, weight_len(&c), k[i].comment, k[i].flag,
             k[i].rules, "valid", 0);
    }
}

static void invalid_cases(clip_gen *g)
{
    static const struct {
        size_t heads, groups;
        double tau, alpha;
        float bad_dot, bad_weight;
        const char *what;
    } k[] = {
        {2, 2, 0.0, 0.5, 0, 0, "tau = 0"},
        {2, 2, 100, 1.5, 0, 0, "alpha = 1.5"},
        {2, 2, 100, 0.5, NAN, 0, "a NaN logit"},
        {2, 2, 100, 0.5, 0, INFINITY, "an infinite weight"},
        {3, 2, 100, 0.5, 0, 0, "3 heads in 2 groups"},
        {4, 2, 100, 0.5, 0, 0, "GQA under the per-head profile"},
        {2, 2, 100, 0.5, 0, 0, "MLA without rotary rows (d_r = 0)"},
    };
    int mla = g->profile == OC_MUON_CLIP_KIMI_MLA;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if ((i == 5 && g->profile == OC_MUON_CLIP_MEGATRON) || (i == 6 && !mla))
            continue; /* grouped layouts are valid for Megatron; d_r is MLA's */
        oc_muon_clip_config c = mla ? mla_layout(k[i].heads, 4, i == 6 ? 0 : 2, 3, 3, 2, 3)
                                    : layout(g->profile, k[i].heads, k[i].groups, 4, 3);
        c.groups = k[i].groups;
        c.tau = k[i].tau;
        c.alpha = k[i].alpha;
        float max_dot[4] = {400, 100, 300, 50};
        if (k[i].bad_dot != 0)
            max_dot[1] = k[i].bad_dot;
        /* the weight as the (possibly inconsistent) sizes ask: heads + 2 groups rows of d */
        size_t n = mla && k[i].heads % k[i].groups == 0 ? weight_len(&c)
                                                        : (k[i].heads + 2 * k[i].groups) * 4 * 3;
        emit(g, &c, max_dot, n, k[i].what, "InvalidInput",
             "MUONCLIP-CFG-1 MUONCLIP-ERR-1", "invalid", k[i].bad_weight);
    }
    /* issue 19 item 3: one case per remaining sub-condition of MUONCLIP-CFG-1 and the layout
     * rules, a valid layout (4 heads, the profile's groups) with one field outside its range */
    static const struct { const char *what; size_t field; double value; int mla_only; } one[] = {
        {"tau = 2^21 (above 2^20)", offsetof(oc_muon_clip_config, tau), 0x1p21, 0},
        {"tau = NaN", offsetof(oc_muon_clip_config, tau), NAN, 0},
        {"alpha = -0.25", offsetof(oc_muon_clip_config, alpha), -0.25, 0},
        {"alpha = NaN", offsetof(oc_muon_clip_config, alpha), NAN, 0},
        {"0 query groups", offsetof(oc_muon_clip_config, groups), 0, 0},
        {"8 query groups for 4 heads", offsetof(oc_muon_clip_config, groups), 8, 0},
        {"head dim 0", offsetof(oc_muon_clip_config, head_dim), 0, 0},
        {"hidden 0", offsetof(oc_muon_clip_config, hidden), 0, 0},
        {"value dim 0", offsetof(oc_muon_clip_config, v_dim), 0, 1},
        {"W_q up with 0 columns", offsetof(oc_muon_clip_config, q_cols), 0, 1},
        {"W_kv up with 0 columns", offsetof(oc_muon_clip_config, kv_cols), 0, 1},
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        if (one[i].mla_only && !mla)
            continue;
        size_t groups = g->profile == OC_MUON_CLIP_MEGATRON ? 2 : 4;
        oc_muon_clip_config c = mla ? mla_layout(4, 4, 2, 3, 3, 2, 3)
                                    : layout(g->profile, 4, groups, 4, 3);
        if (one[i].field == offsetof(oc_muon_clip_config, tau) ||
            one[i].field == offsetof(oc_muon_clip_config, alpha))
            *(double *)((char *)&c + one[i].field) = one[i].value;
        else
            *(size_t *)((char *)&c + one[i].field) = (size_t)one[i].value;
        /* the weight as the sizes ask (VEC-FMT-13); a layout of no element cannot be written
         * (an empty weight is a malformed file) */
        size_t n = weight_len(&c);
        if (n == 0)
            continue;
        float max_dot[4] = {400, 100, 300, 50};
        emit(g, &c, max_dot, n, one[i].what, "InvalidInput", "MUONCLIP-CFG-1 MUONCLIP-ERR-1",
             "invalid", 0);
    }
}

/* Appended (issue 19 item 3): MUONCLIP-CFG-1's closed ends, valid: alpha = 0 (W_q untouched,
 * W_k by gamma) and 1 (W_q by gamma, W_k untouched), tau = 2^-20 and 2^20, logits below, at
 * and above tau (a logit dimension of 4: exact square root). */
static void boundary_cases(clip_gen *g)
{
    static const struct { double tau, alpha, s[4]; const char *comment, *flag; } k[] = {
        {100, 0.0, {50, 100, 150, 400}, "alpha = 0: W_q by gamma^0 (untouched), W_k by gamma",
         "Alpha"},
        {100, 1.0, {50, 100, 150, 400}, "alpha = 1: W_q by gamma, W_k by gamma^0 (untouched)",
         "Alpha"},
        {0x1p-20, 0.5, {0x1p-21, 0x1p-20, 0x1.8p-20, 0x1p-17},
         "tau = 2^-20 (its lower end): logits 2^-21, tau, 1.5 tau, 8 tau", "BothSides"},
        {0x1p20, 0.5, {0x1p19, 0x1p20, 0x1.8p20, 0x1p23},
         "tau = 2^20 (its upper end): logits 2^19, tau, 1.5 tau, 8 tau", "BothSides"},
    };
    const int mla = g->profile == OC_MUON_CLIP_KIMI_MLA;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        oc_muon_clip_config c = mla ? mla_layout(4, 2, 2, 3, 5, 4, 6)
                                    : layout(g->profile, 4, g->profile == OC_MUON_CLIP_MEGATRON
                                                                ? 2 : 4, 4, 3);
        float max_dot[4];
        c.tau = k[i].tau;
        c.alpha = k[i].alpha;
        logits(&c, k[i].s, max_dot);
        const char *flag = mla && strcmp(k[i].flag, "BothSides") == 0 ? "MlaBothSides" : k[i].flag;
        emit(g, &c, max_dot, weight_len(&c), k[i].comment, flag,
             mla ? "MUONCLIP-CFG-1 MUONCLIP-GAMMA-1 MUONCLIP-SCALE-MLA"
                 : "MUONCLIP-CFG-1 MUONCLIP-GAMMA-1 MUONCLIP-SCALE-1", "valid", 0);
    }
}

static void notes(family *f, oc_muon_clip_profile pr)
{
    static const char *const n[][4] = {
        {"BothSides", "BASIC", "heads below, at and above tau",
         "only heads above tau are scaled, W_q and W_k by sqrt(gamma)"},
        {"NoClip", "EDGE_CASE", "no head above tau", "the weight is unchanged"},
        {"Alpha", "BASIC", "alpha other than 1/2", "W_q by gamma^alpha, W_k by gamma^(1-alpha)"},
        {"GroupedQuery", "BASIC", "grouped-query layout",
         "one gamma per query group from its largest head"},
        {"MlaBothSides", "BASIC", "multi-head latent attention, heads below, at and above tau",
         "W_qc and W_kc by sqrt(gamma), W_qr by gamma, the shared rotary key W_kr untouched"},
        {"InvalidInput", "INVALID_INPUT", "configuration or input outside MUONCLIP-CFG-1",
         "must be rejected with nothing written"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        int mla_only = strncmp(n[i][0], "Mla", 3) == 0;
        int gqa_only = strcmp(n[i][0], "BothSides") == 0 || strcmp(n[i][0], "GroupedQuery") == 0;
        if (pr == OC_MUON_CLIP_KIMI_MLA ? !gqa_only : !mla_only)
            family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
    }
}

static int gen_muon_clip(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {
        "MUONCLIP-CFG-1", "MUONCLIP-LAYOUT-1", "MUONCLIP-LOGIT-1", "MUONCLIP-GROUP-1",
        "MUONCLIP-GAMMA-1", "MUONCLIP-SCALE-1", "MUONCLIP-STORE-1", "MUONCLIP-ERR-1",
        "MUONCLIP-TOL-1", NULL};
    static const char *const mla_rules[] = {
        "MUONCLIP-CFG-1", "MUONCLIP-LAYOUT-MLA", "MUONCLIP-LOGIT-MLA", "MUONCLIP-GAMMA-1",
        "MUONCLIP-SCALE-MLA", "MUONCLIP-STORE-1", "MUONCLIP-ERR-1", "MUONCLIP-TOL-1", NULL};
    int rc = 0;
    for (int p = 0; p < OC_MUON_CLIP_PROFILE_COUNT && rc == 0; p++) {
        family f;
        char name[64];
        snprintf(name, sizeof name, "muonclip-%s", profile_names[p]);
        clip_gen g = {.f = &f, .profile = (oc_muon_clip_profile)p,
                      .rng = {opt->seed ^ (0x9c11bull << 32) ^ (uint64_t)p}};
        mpfr_inits2(opt->prec, g.s, g.m, g.gamma, g.fq, g.fk, g.t, (mpfr_ptr)0);
        rc = family_init(&f, name, "muonclip", profile_names[p],
                         p == OC_MUON_CLIP_KIMI_MLA ? mla_rules : rules, opt);
        if (rc == 0) {
            family_inline(&f);
            notes(&f, (oc_muon_clip_profile)p);
            valid_cases(&g);
            mla_cases(&g);
            invalid_cases(&g);
            boundary_cases(&g); /* appended: tcIds in generation order */
            rc = family_save(&f, outdir);
            family_free(&f);
        }
        mpfr_clears(g.s, g.m, g.gamma, g.fq, g.fk, g.t, (mpfr_ptr)0);
    }
    return rc;
}

/* Writes vectors/muonclip-<profile> (spec/muon.md, MUONCLIP-*). */
const gen_family gen_family_muon_clip = {.name = "muonclip", .generate = gen_muon_clip};
