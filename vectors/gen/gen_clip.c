/* Clipping vector families (spec/clip.md): a logical parameter set, its per-rank views under a
 * layout (TP shards and duplicates, PP stages with a shared embedding, DP replicas or ZeRO-1
 * shards, sub-optimizers), the total norm of the logical set computed in MPFR (each parameter
 * once, whatever the views) and the clipped gradient of every view, each rounded once to
 * binary32, with the fp32-class bounds of §4. Values inline in the JSON (VEC-FMT-11). tcIds
 * are assigned in generation order: append new cases at the end. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/clip.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

#define U32 0x1p-24
#define MAX_PARAMS 8

/* A logical parameter (CLIP-VIEW-1): its gradient and where it lives. */
typedef struct lparam {
    size_t numel;
    float *g;
    int tensor_parallel; /* split over TP ranks; else a full copy on each (a TP duplicate) */
    int stage;           /* pipeline stage */
    int tied;            /* also held, as the shared copy, by the last stage */
    int optimizer;
} lparam;

typedef struct clip_case {
    oc_clip_config cfg;
    lparam p[MAX_PARAMS];
    int np;
    const char *bad_key; /* if set, the first view's rank `bad_key` is bad_value (CLIP-VIEW-1) */
    int bad_value;
} clip_case;

typedef struct clip_gen {
    family *f;
    oc_clip_profile profile;
    mpfr_t sum, t, norm;
    gen_rng rng;
} clip_gen;

static const char *const profile_names[OC_CLIP_PROFILE_COUNT] = {"megatron", "torch"};

/* The piece of parameter p that rank (tp, dp) holds: [*off, *off + *len). */
static void piece(const clip_case *c, const lparam *p, int tp, int dp, size_t *off, size_t *len)
{
    size_t lo = 0, n = p->numel;
    if (p->tensor_parallel) {                         /* contiguous TP shards, the last shorter */
        size_t per = (n + c->cfg.tp_size - 1) / c->cfg.tp_size;
        lo = per * (size_t)tp < n ? per * (size_t)tp : n;
        n = lo + per < p->numel ? per : p->numel - lo;
    }
    if (c->cfg.distributed) {                         /* ZeRO-1: contiguous DP shards */
        size_t per = (n + c->cfg.dp_size - 1) / c->cfg.dp_size;
        size_t s = per * (size_t)dp < n ? per * (size_t)dp : n;
        *off = lo + s;
        *len = s + per < n ? per : n - s;
        return;
    }
    *off = lo;
    *len = n;
}

/* Every view of the layout, in rank order (tp, pp, dp fastest last), as JSON; the clipped
 * values come from `clipped` (the logical clipped gradients), or the inputs if NULL. */
static json_t *views_json(const clip_case *c, float *const *clipped, int with_grads)
{
    json_t *views = json_array();
    for (int tp = 0; tp < c->cfg.tp_size; tp++)
        for (int pp = 0; pp < c->cfg.pp_size; pp++)
            for (int dp = 0; dp < c->cfg.dp_size; dp++)
                for (int i = 0; i < c->np; i++) {
                    const lparam *p = &c->p[i];
                    int here = p->stage == pp, shared_copy = p->tied && pp == c->cfg.pp_size - 1 &&
                                                             p->stage != pp;
                    if (!here && !shared_copy)
                        continue;
                    size_t off, len;
                    piece(c, p, tp, dp, &off, &len);
                    if (len == 0)
                        continue;
                    json_t *g = json_array();
                    for (size_t j = 0; j < len; j++)
                        json_array_append_new(g, hexfloat(clipped ? clipped[i][off + j]
                                                                  : p->g[off + j]));
                    if (!with_grads) {
                        json_array_append_new(views, g);
                        continue;
                    }
                    json_t *view = json_pack("{s:i,s:i,s:i,s:i,s:b,s:b,s:o}", "tp", tp, "pp", pp,
                                             "dp", dp, "optimizer", p->optimizer,
                                             "tensorParallel", p->tensor_parallel, "shared",
                                             shared_copy, "grad", g);
                    if (c->bad_key && json_array_size(views) == 0)
                        json_object_set_new(view, c->bad_key, json_integer(c->bad_value));
                    json_array_append_new(views, view);
                }
    return views;
}

static json_t *hparams_json(const oc_clip_config *c)
{
    return json_pack("{s:o,s:s,s:o,s:b,s:i,s:i,s:i}", "maxNorm", hexfloat(c->max_norm),
                     "normType", c->inf_norm ? "inf" : "2", "skipThreshold",
                     hexfloat(c->skip_threshold), "distributed", c->distributed, "tpSize",
                     c->tp_size, "ppSize", c->pp_size, "dpSize", c->dp_size);
}

size_t gen_clip_exact_norm(mpfr_t norm, mpfr_t sum, mpfr_t t, int inf_norm, size_t np,
                           const float *const *g, const size_t *numel)
{
    size_t m = 0;
    mpfr_set_zero(sum, 1);
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < numel[i]; j++, m++) {
            mpfr_set_flt(t, g[i][j], MPFR_RNDN);
            if (inf_norm) {
                mpfr_abs(t, t, MPFR_RNDN);
                if (mpfr_nan_p(t))
                    mpfr_set_nan(sum);
                else if (!mpfr_nan_p(sum))
                    mpfr_max(sum, sum, t, MPFR_RNDN);
            } else {
                mpfr_sqr(t, t, MPFR_RNDN);
                mpfr_add(sum, sum, t, MPFR_RNDN);
            }
        }
    if (inf_norm)
        mpfr_set(norm, sum, MPFR_RNDN);
    else
        mpfr_sqrt(norm, sum, MPFR_RNDN);
    return m;
}

/* CLIP-TOL-2: the 2-norm within (m + R + 4) u relative, the inf-norm exact. */
double gen_clip_norm_rel(size_t m, int ranks, int inf_norm)
{
    return inf_norm ? 0 : (double)(m + (size_t)ranks + 4) * U32;
}

/* The exact norm of the logical set (CLIP-NORM-1, CLIP-NORM-INF-1) into g->norm; returns the
 * number of elements. */
static size_t exact_norm(clip_gen *g, const clip_case *c)
{
    const float *grads[MAX_PARAMS];
    size_t numel[MAX_PARAMS];
    for (int i = 0; i < c->np; i++) {
        grads[i] = c->p[i].g;
        numel[i] = c->p[i].numel;
    }
    return gen_clip_exact_norm(g->norm, g->sum, g->t, c->cfg.inf_norm, (size_t)c->np, grads,
                               numel);
}

static void emit(clip_gen *g, clip_case *c, const char *comment, const char *flag,
                 const char *rules, const char *result)
{
    json_t *jr = json_array();
    char buf[256];
    snprintf(buf, sizeof buf, "%s CLIP-VIEW-1 CLIP-TOL-1 CLIP-TOL-2 CLIP-TOL-3 CLIP-PROF-%s", rules,
             g->profile == OC_CLIP_MEGATRON ? "MEGATRON" : "TORCH");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        json_array_append_new(jr, json_string(tok));
    json_t *test = json_pack("{s:s,s:[s],s:o,s:s,s:o}", "comment", comment, "flags", flag,
                             "specRules", jr, "result", result, "views", views_json(c, NULL, 1));
    if (strcmp(result, "valid") == 0) {
        float *clipped[MAX_PARAMS];
        /* CLIP-DISABLE-1: megatron with max_norm <= 0 computes and reports the norm
         * (ChainedOptimizer.step) and leaves the gradients as they are */
        int disabled = c->cfg.profile == OC_CLIP_MEGATRON && !(c->cfg.max_norm > 0);
        size_t m = exact_norm(g, c);
        float norm32 = mpfr_get_flt(g->norm, MPFR_RNDN);
        /* factor = max_norm / (N + 1e-6), clamped (torch) or applied only below 1 (megatron) */
        mpfr_add_d(g->t, g->norm, 1.0e-6, MPFR_RNDN);
        mpfr_d_div(g->t, c->cfg.max_norm, g->t, MPFR_RNDN);
        int apply = !disabled && (c->cfg.profile == OC_CLIP_TORCH ||    /* CLIP-SKIP-1: */
                                  mpfr_cmp_ui(g->t, 1) < 0);          /* clipped even so */
        if (mpfr_cmp_ui(g->t, 1) > 0)
            mpfr_set_ui(g->t, 1, MPFR_RNDN);
        for (int i = 0; i < c->np; i++) {
            clipped[i] = malloc(c->p[i].numel * sizeof(float));
            for (size_t j = 0; j < c->p[i].numel; j++) {
                mpfr_mul_d(g->sum, g->t, c->p[i].g[j], MPFR_RNDN);
                clipped[i][j] = apply ? mpfr_get_flt(g->sum, MPFR_RNDN) : c->p[i].g[j];
            }
        }
        /* §4: 2-norm within (m + R + 4) u relative (R ranks in the reduction), inf-norm exact;
         * each gradient within its magnitude times the norm's bound + 5 u, plus 2^-149. */
        int ranks = c->cfg.tp_size * c->cfg.pp_size * c->cfg.dp_size;
        double rel = gen_clip_norm_rel(m, ranks, c->cfg.inf_norm);
        /* CLIP-SKIP-1: the skip decision, megatron only, on the binary32 norm (the float
         * ChainedOptimizer.step compares with grad_norm_skip_threshold), with clipping on or
         * off */
        int skipped = c->cfg.profile == OC_CLIP_MEGATRON && (double)norm32 > c->cfg.skip_threshold;
        double grad_rel = gen_bound_up(disabled ? 0 : rel + 5 * U32);
        json_object_set_new(
            test, "expected",
            json_pack("{s:o,s:o,s:o,s:o,s:b}", "norm", hexfloat(norm32), "normTol",
                      hexfloat(gen_bound_up(rel * norm32)), "gradRelTol", hexfloat(grad_rel),
                      "grad", views_json(c, clipped, 0), "skipped", skipped));
        for (int i = 0; i < c->np; i++) {
            if (gen_tolcheck_active && !disabled) /* CLIP-TOL-3 (disabled: exact in both) */
                gen_tolcheck_clip(m, c->np, ranks, c->cfg.inf_norm, c->cfg.max_norm,
                                  mpfr_get_d(g->norm, MPFR_RNDN), grad_rel, clipped[i],
                                  c->p[i].numel);
            free(clipped[i]);
        }
    }
    family_group(g->f, "ClipStep", hparams_json(&c->cfg));
    family_test(g->f, test);
}

/* A parameter of n elements: magnitudes in [2^lo, 2^hi), random signs. */
static lparam param(clip_gen *g, size_t n, int lo, int hi)
{
    lparam p = {.numel = n, .g = malloc(n * sizeof(float))};
    for (size_t j = 0; j < n; j++)
        p.g[j] = rng_mag(&g->rng, lo, hi, 1);
    return p;
}

static void free_case(clip_case *c)
{
    for (int i = 0; i < c->np; i++)
        free(c->p[i].g);
    c->np = 0;
}

static oc_clip_config single(oc_clip_profile profile, double max_norm)
{
    return (oc_clip_config){.profile = profile, .max_norm = max_norm, .inf_norm = 0,
                            .skip_threshold = INFINITY, .tp_size = 1, .pp_size = 1,
                            .dp_size = 1};
}

/* Single-rank cases of both profiles: the coefficient and the norm's numerics. */
static void single_rank_cases(clip_gen *g)
{
    static const struct {
        double max_norm; size_t n; int lo, hi; int inf;
        const char *comment, *flag, *rules;
    } k[] = {
        {1.0, 64, -4, 2, 0, "norm above max_norm: scaled by max_norm / (norm + 1e-6)", "Clip",
         "CLIP-NORM-1 CLIP-COEF-1"},
        {1e3, 64, -4, 2, 0, "norm below max_norm: Megatron leaves the gradients, torch multiplies by 1",
         "NoClip", "CLIP-NORM-1 CLIP-COEF-1"},
        {0x1p-24, 16, -30, -26, 0, "total norm about 1e-7: the 1e-6 dominates the coefficient",
         "TinyNorm", "CLIP-COEF-1"},
        {1.0, 32, 60, 66, 0, "squares overflow binary32 (|g| ~ 2^63): the sum needs range",
         "LargeValues", "CLIP-NORM-1"},
        {0x1p-80, 4096, -100, -90, 0, "4096 values whose squares underflow binary32",
         "ManyTiny", "CLIP-NORM-1"},
        {0.5, 256, -20, 20, 0, "magnitudes from 2^-20 to 2^20", "MixedMagnitudes", "CLIP-NORM-1"},
        {1.0, 64, -4, 2, 1, "inf-norm: max |g|", "InfNorm", "CLIP-NORM-INF-1 CLIP-COEF-1"},
        {0.0, 16, -4, 2, 0, "max_norm = 0", "MaxNormZero", "CLIP-DISABLE-1 CLIP-COEF-1"},
        {-1.0, 16, -4, 2, 0, "max_norm < 0", "MaxNormNegative", "CLIP-DISABLE-1 CLIP-COEF-1"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        clip_case c = {.cfg = single(g->profile, k[i].max_norm)};
        c.cfg.inf_norm = k[i].inf;
        c.p[c.np++] = param(g, k[i].n, k[i].lo, k[i].hi);
        c.p[c.np++] = param(g, k[i].n / 2 + 1, k[i].lo, k[i].hi);
        emit(g, &c, k[i].comment, k[i].flag, k[i].rules, "valid");
        free_case(&c);
    }
    /* the norm exactly max_norm: 3-4-5, norm 5 */
    clip_case c = {.cfg = single(g->profile, 5.0)};
    c.p[c.np++] = (lparam){.numel = 2, .g = malloc(2 * sizeof(float))};
    c.p[0].g[0] = 3.0f;
    c.p[0].g[1] = -4.0f;
    emit(g, &c, "norm exactly max_norm (5): the coefficient 5 / (5 + 1e-6) is just below 1",
         "CoeffOne", "CLIP-COEF-1", "valid");
    free_case(&c);
}

/* A layout of Megatron's: TP x PP x DP ranks, ZeRO-1 or not, a tied embedding or not, the
 * last stage's parameters in a second sub-optimizer or not. */
typedef struct layout {
    int tp, pp, dp, distributed, tied, chained;
    const char *comment, *flag, *rules;
} layout;

/* Four parameters (embedding, layer norm, sharded weight, row-parallel bias) under layout l. */
static void layout_case(clip_gen *g, const layout *l)
{
    clip_case c = {.cfg = {.profile = OC_CLIP_MEGATRON, .max_norm = 1.0,
                           .skip_threshold = INFINITY, .distributed = l->distributed,
                           .tp_size = l->tp, .pp_size = l->pp, .dp_size = l->dp}};
    int last = l->pp - 1;
    c.p[c.np++] = param(g, 24, -2, 1);                      /* embedding, stage 0 */
    c.p[0].tensor_parallel = 1;
    c.p[0].tied = l->tied;
    c.p[c.np++] = param(g, 7, 0, 2);                        /* layer norm: TP duplicate */
    c.p[c.np++] = param(g, 18, -3, 0);                      /* sharded weight, last stage */
    c.p[2].tensor_parallel = 1;
    c.p[2].stage = last;
    c.p[c.np++] = param(g, 5, 0, 1);                        /* row-parallel bias: duplicate */
    c.p[3].stage = last;
    c.p[3].optimizer = l->chained;
    c.p[2].optimizer = l->chained;
    emit(g, &c, l->comment, l->flag, l->rules, "valid");
    free_case(&c);
}

/* Megatron's layouts (CLIP-DEDUP-*) and chained optimizers (CLIP-CHAIN-1), skip threshold. */
static void layout_cases(clip_gen *g)
{
    static const layout k[] = {
        {2, 1, 1, 0, 0, 0, "TP 2: sharded weights, duplicated layer norms and biases",
         "TensorParallel", "CLIP-DEDUP-TP-1"},
        {4, 1, 1, 0, 0, 0, "TP 4", "TensorParallel", "CLIP-DEDUP-TP-1"},
        {1, 2, 1, 0, 1, 0, "PP 2 with the embedding tied to the output layer", "TiedEmbedding",
         "CLIP-DEDUP-SHARED-1"},
        {1, 4, 1, 0, 1, 0, "PP 4 with a tied embedding", "TiedEmbedding", "CLIP-DEDUP-SHARED-1"},
        {1, 1, 2, 0, 0, 0, "DP 2 replicas without the distributed optimizer", "DataParallel",
         "CLIP-DEDUP-DP-1"},
        {1, 1, 3, 1, 0, 0, "DP 3 ZeRO-1 shards that split every parameter", "Distributed",
         "CLIP-DEDUP-DP-1"},
        {2, 2, 2, 1, 1, 0, "TP 2, PP 2 with a tied embedding, DP 2 ZeRO-1", "Distributed",
         "CLIP-DEDUP-TP-1 CLIP-DEDUP-SHARED-1 CLIP-DEDUP-DP-1"},
        {2, 1, 1, 0, 0, 1, "chained optimizer: two sub-optimizers, one global norm", "Chained",
         "CLIP-CHAIN-1"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        layout_case(g, &k[i]);
    /* grad_norm_skip_threshold: exceeded (skip, nothing scaled) and not exceeded */
    for (int exceed = 1; exceed >= 0; exceed--) {
        clip_case c = {.cfg = single(OC_CLIP_MEGATRON, 1.0)};
        c.p[c.np++] = param(g, 32, 0, 2);                       /* norm between 8 and 32 */
        c.cfg.skip_threshold = exceed ? 4.0 : 64.0;
        emit(g, &c, exceed ? "norm above grad_norm_skip_threshold: clipped, and the step is skipped"
                           : "norm below grad_norm_skip_threshold: clipped as usual",
             "SkipThreshold", "CLIP-SKIP-1", "valid");
        free_case(&c);
    }
}

static void invalid_cases(clip_gen *g)
{
    static const struct { const char *what; double max_norm; int tp; float bad; } k[] = {
        {"max_norm = NaN", NAN, 1, 1.0f},
        {"tp_size = 0", 1.0, 0, 1.0f},
        {"an infinite gradient (the inf/NaN check comes first)", 1.0, 1, INFINITY},
        {"a NaN gradient", 1.0, 1, NAN},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (k[i].tp == 0 && g->profile == OC_CLIP_TORCH)
            continue; /* torch has no TP size to get wrong */
        clip_case c = {.cfg = single(g->profile, k[i].max_norm)};
        c.p[c.np++] = param(g, 4, -2, 2);
        c.p[0].g[2] = k[i].bad;
        c.cfg.tp_size = k[i].tp;                                /* tp 0: no views at all */
        emit(g, &c, k[i].what, "InvalidInput", "CLIP-CFG-1 CLIP-FINITE-1 CLIP-ERR-1", "invalid");
        free_case(&c);
    }
}

/* Generated last (appended tcIds): CLIP-CFG-1's other boundaries, an infinite max_norm and, for
 * megatron, a skip threshold of 0 and a pipeline or data-parallel size of 0. */
static void config_bound_cases(clip_gen *g)
{
    static const struct { const char *what; double max_norm, skip; int pp, dp, megatron_only; } k[] = {
        {"max_norm = +inf", INFINITY, INFINITY, 1, 1, 0},
        {"skip_threshold = 0", 1.0, 0.0, 1, 1, 1},
        {"pp_size = 0", 1.0, INFINITY, 0, 1, 1},
        {"dp_size = 0", 1.0, INFINITY, 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (k[i].megatron_only && g->profile != OC_CLIP_MEGATRON)
            continue;
        clip_case c = {.cfg = single(g->profile, k[i].max_norm)};
        c.p[c.np++] = param(g, 4, -2, 2);
        c.cfg.skip_threshold = k[i].skip;
        c.cfg.pp_size = k[i].pp;
        c.cfg.dp_size = k[i].dp;
        emit(g, &c, k[i].what, "InvalidInput", "CLIP-CFG-1 CLIP-ERR-1", "invalid");
        free_case(&c);
    }
}

/* Generated after the invalid cases (appended tcIds). CLIP-SKIP-1's boundary: a norm every
 * float32 evaluation gets exactly (3-4-5: exact squares, an exact sum and square root), below
 * max_norm 8 (Megatron leaves the gradients: always-scale would multiply them by 8/5), with the
 * threshold at it (N > threshold is false: no skip) and one binary32 ulp below it (skip). Then a
 * second chained optimizer (CLIP-CHAIN-1), over DP 2 ZeRO-1 shards, and clipping disabled with
 * the threshold exceeded (CLIP-DISABLE-1, CLIP-SKIP-1). */
static void appended_cases(clip_gen *g)
{
    static const layout chained = {1, 1, 2, 1, 0, 1,
                                   "chained optimizer over DP 2 ZeRO-1 shards: one global norm",
                                   "Chained", "CLIP-CHAIN-1 CLIP-DEDUP-DP-1"};
    for (int below = 0; below < 2; below++) {
        clip_case c = {.cfg = single(OC_CLIP_MEGATRON, 8.0)};
        c.p[c.np++] = (lparam){.numel = 2, .g = malloc(2 * sizeof(float))};
        c.p[0].g[0] = -3.0f;
        c.p[0].g[1] = 4.0f;
        c.cfg.skip_threshold = below ? nextafterf(5.0f, 0.0f) : 5.0;
        emit(g, &c, below ? "norm 5, grad_norm_skip_threshold one ulp below it: skipped"
                          : "norm 5 exactly at grad_norm_skip_threshold: not skipped (N > threshold)",
             "SkipBoundary", "CLIP-SKIP-1 CLIP-COEF-1", "valid");
        free_case(&c);
    }
    layout_case(g, &chained);
    /* CLIP-DISABLE-1 with CLIP-SKIP-1: clipping off, the norm (between 8 and 32) still computed,
     * reported and compared with the threshold: skipped, gradients unchanged */
    clip_case c = {.cfg = single(OC_CLIP_MEGATRON, 0.0)};
    c.p[c.np++] = param(g, 32, 0, 2);
    c.cfg.skip_threshold = 4.0;
    emit(g, &c, "max_norm = 0 and the norm above grad_norm_skip_threshold: not clipped, skipped",
         "DisabledSkip", "CLIP-DISABLE-1 CLIP-SKIP-1", "valid");
    free_case(&c);
}

/* Generated last (issue 19 item 3, appended tcIds): CLIP-VIEW-1's bounds, a view whose TP, PP
 * or DP rank equals the group's size, or whose sub-optimizer index is
 * OC_CLIP_MAX_OPTIMIZERS (megatron: the torch profile has one rank and one optimizer). */
static void view_bound_cases(clip_gen *g)
{
    static const struct { const char *key; int value; const char *what; } k[] = {
        {"tp", 2, "a view on TP rank 2 of tp_size 2"},
        {"pp", 2, "a view on PP stage 2 of pp_size 2"},
        {"dp", 2, "a view on DP rank 2 of dp_size 2"},
        {"optimizer", OC_CLIP_MAX_OPTIMIZERS, "a view of sub-optimizer OC_CLIP_MAX_OPTIMIZERS"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        clip_case c = {.cfg = single(g->profile, 1.0), .bad_key = k[i].key,
                       .bad_value = k[i].value};
        c.cfg.tp_size = c.cfg.pp_size = c.cfg.dp_size = 2;
        c.p[c.np++] = param(g, 4, -2, 2);
        emit(g, &c, k[i].what, "InvalidInput", "CLIP-ERR-1", "invalid"); /* + CLIP-VIEW-1 */
        free_case(&c);
    }
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"Clip", "BASIC", "norm above max_norm", "gradients scaled by the coefficient"},
        {"NoClip", "KNOWN_MISTAKE", "norm below max_norm", "Megatron must not scale"},
        {"TinyNorm", "KNOWN_MISTAKE", "total norm near 1e-6", "the 1e-6 of the coefficient shows"},
        {"LargeValues", "EDGE_CASE", "squares above FLT_MAX",
         "a binary32 sum of squares overflows; the norm itself is representable"},
        {"ManyTiny", "EDGE_CASE", "squares below the binary32 range",
         "a binary32 sum of squares underflows to 0"},
        {"MixedMagnitudes", "EDGE_CASE", "magnitudes over 40 binades", "summation order matters"},
        {"InfNorm", "BASIC", "inf-norm", "max |g| over the counted elements"},
        {"MaxNormZero", "EDGE_CASE", "max_norm = 0",
         "Megatron disables clipping but reports the norm; torch multiplies every gradient by 0"},
        {"MaxNormNegative", "EDGE_CASE", "max_norm < 0",
         "Megatron disables clipping but reports the norm; torch multiplies by a negative "
         "coefficient"},
        {"CoeffOne", "EDGE_CASE", "norm exactly max_norm", "the coefficient is 1 - 2e-7"},
        {"TensorParallel", "SHARDING", "TP shards and TP duplicates",
         "duplicates are counted on TP rank 0 only"},
        {"TiedEmbedding", "SHARDING", "embedding shared by the first and last stage",
         "counted once"},
        {"DataParallel", "SHARDING", "DP replicas", "one replica enters the norm"},
        {"Distributed", "SHARDING", "ZeRO-1 shards", "every DP rank's shard enters the norm"},
        {"Chained", "SHARDING", "two sub-optimizers", "one global norm, one coefficient"},
        {"SkipThreshold", "EDGE_CASE", "grad_norm_skip_threshold", "clipped, then the step is skipped above it"},
        {"DisabledSkip", "EDGE_CASE", "clipping disabled, norm above grad_norm_skip_threshold",
         "the norm is still computed and the step skipped (ChainedOptimizer.step)"},
        {"SkipBoundary", "EDGE_CASE", "norm at grad_norm_skip_threshold and one ulp above it",
         "the comparison is strict"},
        {"InvalidInput", "INVALID_INPUT", "configuration or gradient outside CLIP-CFG-1",
         "must be rejected with nothing written"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

static int gen_clip(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {
        "CLIP-CFG-1", "CLIP-VIEW-1", "CLIP-FINITE-1", "CLIP-NORM-1", "CLIP-NORM-INF-1",
        "CLIP-DEDUP-SHARED-1", "CLIP-DEDUP-TP-1", "CLIP-DEDUP-DP-1", "CLIP-CHAIN-1",
        "CLIP-COEF-1", "CLIP-DISABLE-1", "CLIP-SKIP-1", "CLIP-ERR-1", "CLIP-TOL-1", "CLIP-TOL-2",
        "CLIP-TOL-3", NULL};
    int rc = 0;
    for (int p = 0; p < OC_CLIP_PROFILE_COUNT && rc == 0; p++) {
        family f;
        char name[64];
        snprintf(name, sizeof name, "clip-%s", profile_names[p]);
        clip_gen g = {.f = &f, .profile = (oc_clip_profile)p,
                      .rng = {opt->seed ^ (0xc11bull << 32) ^ (uint64_t)p}};
        mpfr_inits2(opt->prec, g.sum, g.t, g.norm, (mpfr_ptr)0);
        rc = family_init(&f, name, "clip", profile_names[p], rules, opt);
        if (rc == 0) {
            family_inline(&f);
            notes(&f);
            single_rank_cases(&g);
            if (p == OC_CLIP_MEGATRON)
                layout_cases(&g);
            invalid_cases(&g);
            if (p == OC_CLIP_MEGATRON)
                appended_cases(&g);
            config_bound_cases(&g);
            if (p == OC_CLIP_MEGATRON)
                view_bound_cases(&g);
            rc = family_save(&f, outdir);
            family_free(&f);
        }
        mpfr_clears(g.sum, g.t, g.norm, (mpfr_ptr)0);
    }
    return rc;
}

/* Writes vectors/clip-<profile> (spec/clip.md). */
const gen_family gen_family_clip = {.name = "clip", .generate = gen_clip};
