/* The guarded chained step's vector family guarded-step-megatron (spec/guarded_step.md, STEP-*): whole
 * iterations of a chained optimizer (Adam, SGD, Lion sub-optimizers) under a loss scaler or a
 * bf16 guard mode. The golden values come from the other generators' exact pieces: the scaler's
 * rules (gen_loss_scale.c), the exact global norm (gen_clip.c), and the sub-optimizers' exact
 * steppers with their fp32-class bounds (gen_adam.c, gen_sgd.c, gen_lion.c), extended by the
 * clipped gradient's own bound (STEP-TOL-2). Tensors in safetensors (VEC-FMT-17). tcIds are
 * assigned in generation order: append new cases at the end. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/guarded_step.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

#define U 0x1p-24
#define ETA 0x1p-149
#define MAX_SUBS 3
#define MAX_PARAMS 3   /* per sub-optimizer */
#define MAX_STEPS 8
#define HEAD_FIXED 3   /* outcome, norm, position; then per loss scaler: scale, growth tracker,
                          hysteresis tracker */
#define SECOND_ORDER (1 + 0x1p-12) /* STEP-TOL-2: the products of two small errors */

typedef struct gsub {
    oc_algorithm kind;
    oc_adam_hparams adam;
    oc_sgd_hparams sgd;
    oc_lion_hparams lion;
    int64_t step;
    int np;
    size_t n[MAX_PARAMS];
    float *s[MAX_PARAMS];  /* [n * GEN_MAX_STATE]: golden stored p, state... per element */
    double *E[MAX_PARAMS]; /* the accumulated fp32-class bounds, same layout */
    gen_stepper st;
} gsub;

/* A non-finite value put into one gradient element of one step. */
typedef struct poison {
    int step, sub, param;
    size_t at;
    float value;
} poison;

typedef struct step_case {
    oc_guard_config cfg;
    oc_loss_scaler scaler;
    float scale[MAX_SUBS]; /* per loss scaler: one, or one per sub-optimizer (STEP-SCALER-2) */
    long growth[MAX_SUBS], hyst[MAX_SUBS];
    int64_t position, increment;
    int nsub, steps;
    gsub sub[MAX_SUBS];
    float grad_scale[MAX_STEPS]; /* each step's unscaled gradients are multiplied by this */
    poison bad[4];
    int nbad;
} step_case;

typedef struct step_gen {
    family *f;
    const gen_options *opt;
    gen_rng rng;
    mpfr_t norm, mtp_norm, sum, t, c;
} step_gen;

static const char *const kind_names[OC_ALG_COUNT] = {"adam", "sgd", "lion"};
static const char *const mode_names[OC_GUARD_MODE_COUNT] = {"scaled", "unchecked", "checked"};

static int nstate(const gsub *u)
{
    return u->kind == OC_ALG_ADAM ? 3 : u->kind == OC_ALG_SGD ? (u->sgd.momentum != 0 ? 2 : 1) : 2;
}

/* ---- configurations ---- */

static oc_adam_hparams adam_hp(void)
{
    return (oc_adam_hparams){OC_ADAM_TORCH, (float)1e-3, 0.9f, 0.999f, (float)1e-8, 0.01f, 0, 1,
                             1, 0, 0};
}
static oc_sgd_hparams sgd_hp(void)
{
    return (oc_sgd_hparams){OC_SGD_TORCH, 0.01f, 0.9f, 0, (float)1e-4, 0, 0};
}
static oc_lion_hparams lion_hp(void)
{
    return (oc_lion_hparams){OC_LION_TORCH, (float)1e-4, 0.9f, 0.99f, 0.1f};
}

/* A sub-optimizer of the given kind with np parameters of the given sizes and a random state
 * as after `step` updates. */
static void add_sub(step_gen *g, step_case *c, oc_algorithm kind, int64_t step, int np,
                    const size_t *n)
{
    gsub *u = &c->sub[c->nsub++];
    memset(u, 0, sizeof *u);
    u->kind = kind;
    u->adam = adam_hp();
    u->sgd = sgd_hp();
    u->lion = lion_hp();
    u->step = step;
    u->np = np;
    for (int i = 0; i < np; i++) {
        u->n[i] = n[i];
        u->s[i] = calloc(n[i] * GEN_MAX_STATE, sizeof(float));
        u->E[i] = calloc(n[i] * GEN_MAX_STATE, sizeof(double));
        for (size_t j = 0; j < n[i]; j++) {
            float *s = &u->s[i][j * GEN_MAX_STATE];
            s[0] = rng_mag(&g->rng, -3, 1, 1);
            if (step > 0) {
                s[1] = rng_mag(&g->rng, -8, -4, 1);
                s[2] = kind == OC_ALG_ADAM ? rng_mag(&g->rng, -14, -8, 0) : 0;
            }
        }
    }
}

static void free_case(step_case *c)
{
    for (int k = 0; k < c->nsub; k++)
        for (int i = 0; i < c->sub[k].np; i++) {
            free(c->sub[k].s[i]);
            free(c->sub[k].E[i]);
        }
}

static step_case base(oc_guard_mode mode, double clip, double threshold, int steps)
{
    step_case c = {.cfg = {.mode = mode, .clip_grad = clip, .skip_threshold = threshold}, .steps = steps, .position = 1024,
                   .increment = 32,
                   .scaler = {OC_LS_MEGATRON, 0x1p16f, 1.0f, 2.0f, 0.5f, 2, 2}};
    for (int k = 0; k < MAX_SUBS; k++) {
        c.scale[k] = c.scaler.initial_scale;
        c.hyst[k] = (long)c.scaler.hysteresis;
    }
    for (int s = 0; s < MAX_STEPS; s++)
        c.grad_scale[s] = 1.0f;
    return c;
}

/* Adam (2 parameters), SGD (1), Lion (1): the chained optimizer of the vectors. */
static void chain3(step_gen *g, step_case *c)
{
    static const size_t na[] = {12, 5}, ns[] = {9}, nl[] = {7};
    add_sub(g, c, OC_ALG_ADAM, 5, 2, na);
    add_sub(g, c, OC_ALG_SGD, 3, 1, ns);
    add_sub(g, c, OC_ALG_LION, 2, 1, nl);
}

/* ---- STEP-TOL-2: what an error eg of the clipped gradient does to one element ---- */

/* add[k]: the extra bound of output k of sub-optimizer u's step t at one element whose golden
 * state before the step is s (bounds E) and golden clipped gradient g. */
static void grad_sensitivity(const gsub *u, int64_t t, const float *s, const double *E, float g,
                             double eg, double *add)
{
    memset(add, 0, GEN_MAX_STATE * sizeof *add);
    if (eg == 0)
        return;
    if (u->kind == OC_ALG_ADAM) { /* torch profile: p -= lr (m/bc1) / (sqrt(v/bc2) + eps) */
        const oc_adam_hparams *h = &u->adam;
        double l2 = h->decoupled ? 0 : h->weight_decay;
        double ge = fabs((double)g + l2 * s[0]) + l2 * E[0];
        double bc1 = 1 - pow(h->beta1, (double)t), bc2 = 1 - pow(h->beta2, (double)t);
        double a = h->beta1 * (fabs((double)s[1]) + E[1]) / bc1, cc = (1 - h->beta1) / bc1;
        double bhi = h->beta2 * ((double)s[2] + E[2]) / bc2 + h->eps_root;
        double blo = h->beta2 * fmax(0, (double)s[2] - E[2]) / bc2 + h->eps_root;
        double d = (1 - h->beta2) / bc2, xmin = fmax(0, ge - eg);
        double smin = sqrt(blo + d * xmin * xmin);
        double lip = (cc * (sqrt(bhi) + h->eps) + a * sqrt(d)) / ((smin + h->eps) * (smin + h->eps));
        add[0] = h->lr * lip * eg;
        add[1] = (1 - h->beta1) * eg;
        add[2] = (1 - h->beta2) * (2 * ge + eg) * eg;
    } else if (u->kind == OC_ALG_SGD) { /* torch: buf = mu buf + (1 - damp) g, p -= lr d */
        const oc_sgd_hparams *h = &u->sgd;
        double eb = h->momentum == 0 ? 0 : (t == 1 ? 1 : 1 - h->dampening) * eg;
        double ed = h->momentum == 0 ? eg : h->nesterov ? eg + h->momentum * eb : eb;
        add[0] = h->lr * ed;
        add[1] = eb;
    } else { /* p -= lr sign(b1 m + (1 - b1) g): the sign may flip within the error */
        const oc_lion_hparams *h = &u->lion;
        double m0 = fabs((double)s[1]) + E[1];
        double cval = h->beta1 * s[1] + (1 - h->beta1) * (double)g;
        double cerr = h->beta1 * E[1] + 4 * U * (h->beta1 * m0 + (1 - h->beta1) * fabs(g)) +
                      3 * ETA + (1 - h->beta1) * eg;
        add[0] = fabs(cval) <= 2 * cerr ? 2 * h->lr : 0;
        add[1] = (1 - h->beta2) * eg;
    }
}

/* ---- one golden iteration (STEP-ORDER-1) ---- */

/* STEP-CLIP-2: sub-optimizer k's own clip_grad and grad_norm_skip_threshold. */
static double sub_clip_grad(const step_case *c, int k)
{
    return c->cfg.per_sub ? c->cfg.sub_clip_grad[k] : c->cfg.clip_grad;
}

static double sub_skip_threshold(const step_case *c, int k)
{
    return c->cfg.per_sub ? c->cfg.sub_skip_threshold[k] : c->cfg.skip_threshold;
}

/* STEP-SCALER-2: Megatron keeps a loss scaler per sub-optimizer (the profile's rule for a chain
 * in the scaled mode; a chain of one has one scaler either way). */
static int nscalers(const step_case *c)
{
    return c->cfg.sub_scalers ? c->nsub : 1;
}

static size_t head_width(const step_case *c)
{
    return HEAD_FIXED + 3 * (size_t)nscalers(c);
}

/* STEP-GROUP-1: whether parameter idx of the chain (the sub-optimizers' in order) is in 'mtp'. */
static int in_mtp(const step_case *c, int idx)
{
    return (int)(c->cfg.mtp_params >> idx & 1u);
}

typedef struct row_writer {
    double *stored, *exact, *tol;
    size_t at;
} row_writer;

static void put(row_writer *w, double stored, double exact, double tol)
{
    w->stored[w->at] = stored;
    w->exact[w->at] = exact;
    w->tol[w->at++] = tol;
}

/* Steps the golden state by one iteration with gradients grad (scaled, every sub-optimizer's
 * parameters in order; unscaled and clipped in place) and writes its row. Returns -1 if a
 * decision (c < 1, the threshold) lies within the bounds, so that the case must change. */
static int golden_step(step_gen *g, step_case *c, float *grad, row_writer *w)
{
    const int scaled = c->cfg.mode == OC_GUARD_SCALED;
    int found_inf = 0, bad[MAX_SUBS] = {0};
    for (int k = 0, at = 0; k < c->nsub; k++) {                /* STEP-UNSCALE-1, -FOUND-INF-1 */
        const float scale = c->scale[c->cfg.sub_scalers ? k : 0];   /* STEP-SCALER-2 */
        for (int i = 0; i < c->sub[k].np; i++)
            for (size_t j = 0; j < c->sub[k].n[i]; j++, at++) {
                if (c->cfg.mode != OC_GUARD_UNCHECKED && !isfinite(grad[at]))
                    found_inf = bad[k] = 1;
                if (scaled)                                   /* exact: a power of two */
                    grad[at] = (float)((double)grad[at] / (double)scale);
            }
    }
    for (int s = 0; scaled && s < nscalers(c); s++)           /* STEP-SCALER-1, -SCALER-2 */
        gen_loss_scale_update(&c->scaler, g->opt->prec, c->cfg.sub_scalers ? bad[s] : found_inf,
                              &c->scale[s], &c->growth[s], &c->hyst[s]);
    /* STEP-GROUP-1: the main norm (reported) over the gradients outside the 'mtp' group, the
     * group's own norm over those in it */
    const float *lists[2][MAX_SUBS * MAX_PARAMS] = {{0}};
    size_t sizes[2][MAX_SUBS * MAX_PARAMS] = {{0}}, count[2] = {0, 0}, at = 0;
    int has_main[MAX_SUBS] = {0};
    for (int k = 0, idx = 0; k < c->nsub; k++)
        for (int i = 0; i < c->sub[k].np; i++, idx++) {
            int grp = in_mtp(c, idx);
            has_main[k] |= !grp;
            lists[grp][count[grp]] = grad + at;
            sizes[grp][count[grp]++] = c->sub[k].n[i];
            at += c->sub[k].n[i];
        }
    size_t m = gen_clip_exact_norm(g->norm, g->sum, g->t, c->cfg.inf_norm, count[0], lists[0],
                                   sizes[0]);
    size_t mg = gen_clip_exact_norm(g->mtp_norm, g->sum, g->t, c->cfg.inf_norm, count[1],
                                    lists[1], sizes[1]);
    float norm = found_inf ? 0.0f : mpfr_get_flt(g->norm, MPFR_RNDN);
    double rel = gen_clip_norm_rel(m, 1, c->cfg.inf_norm);
    double norm_tol = isfinite(norm) && rel * norm > 0 ? gen_bound_up(rel * norm) : 0;
    int clip[MAX_SUBS][MAX_PARAMS] = {{0}}, norm_skip = 0;
    double egrel[MAX_SUBS][MAX_PARAMS] = {{0}};
    at = 0;
    for (int k = 0, idx = 0; k < c->nsub; k++) {          /* STEP-CLIP-1, -CLIP-2, CLIP-COEF-1 */
        const double clip_grad = sub_clip_grad(c, k);
        for (int i = 0; i < c->sub[k].np; i++, idx++) {
            const int grp = in_mtp(c, idx);
            const double r = grp ? gen_clip_norm_rel(mg, 1, c->cfg.inf_norm) : rel;
            if (!found_inf && clip_grad > 0) {
                mpfr_add_d(g->c, grp ? g->mtp_norm : g->norm, 1.0e-6, MPFR_RNDN);
                mpfr_d_div(g->c, clip_grad, g->c, MPFR_RNDN);
                clip[k][i] = mpfr_cmp_ui(g->c, 1) < 0;
                double cd = mpfr_get_d(g->c, MPFR_RNDN);
                if (isfinite(cd) && fabs(cd - 1) <= 4 * (r + 5 * U))
                    return -1;                 /* c within rounding of 1: not a clean case */
            }
            egrel[k][i] = clip[k][i] ? r + 5 * U : 0;             /* CLIP-TOL-2 */
            for (size_t j = 0; clip[k][i] && j < c->sub[k].n[i]; j++) {
                mpfr_mul_d(g->t, g->c, grad[at + j], MPFR_RNDN);
                grad[at + j] = mpfr_get_flt(g->t, MPFR_RNDN);
            }
            at += c->sub[k].n[i];
        }
    }
    for (int k = 0; !found_inf && k < c->nsub; k++) {             /* CLIP-SKIP-1, STEP-CLIP-2 */
        const double threshold = sub_skip_threshold(c, k);
        if (!has_main[k] || !(threshold <= DBL_MAX))
            continue;
        if (fabs(norm - threshold) <= 4 * norm_tol)
            return -1;
        norm_skip |= norm > threshold;
    }
    int taken = !found_inf && !norm_skip;
    if (taken)
        c->position += c->increment;                             /* STEP-SCHED-1 */
    put(w, found_inf ? OC_STEP_SKIPPED_INF : norm_skip ? OC_STEP_SKIPPED_NORM : OC_STEP_TAKEN,
        found_inf ? OC_STEP_SKIPPED_INF : norm_skip ? OC_STEP_SKIPPED_NORM : OC_STEP_TAKEN, 0);
    put(w, norm, found_inf ? 0 : mpfr_get_d(g->norm, MPFR_RNDN), norm_tol);   /* STEP-NORM-1 */
    put(w, (double)c->position, (double)c->position, 0);
    for (int s = 0; s < nscalers(c); s++) {
        put(w, scaled ? c->scale[s] : 0, scaled ? c->scale[s] : 0, 0);
        put(w, scaled ? (double)c->growth[s] : 0, scaled ? (double)c->growth[s] : 0, 0);
        put(w, scaled ? (double)c->hyst[s] : 0, scaled ? (double)c->hyst[s] : 0, 0);
    }
    for (int k = 0; k < c->nsub; k++) {
        if (taken)
            c->sub[k].step++;                                    /* STEP-TAKE-1 */
        put(w, (double)c->sub[k].step, (double)c->sub[k].step, 0);
    }
    at = 0;
    for (int k = 0; k < c->nsub; k++) {
        gsub *u = &c->sub[k];
        const int ns = nstate(u);
        if (taken)
            u->st.begin_step(u->st.ctx, u->step);
        for (int i = 0; i < u->np; i++) {
            size_t n = u->n[i], base_at = w->at;
            w->at += n * (size_t)(ns + 1);
            for (size_t j = 0; j < n; j++) {
                float *s = &u->s[i][j * GEN_MAX_STATE];
                double *E = &u->E[i][j * GEN_MAX_STATE];
                float gj = grad[at + j];
                double eg = fabs(gj) * egrel[k][i] + (clip[k][i] ? ETA : 0);
                gen_golden out;
                if (taken) {                                     /* STEP-TAKE-1, STEP-TOL-2 */
                    double add[GEN_MAX_STATE];
                    grad_sensitivity(u, u->step, s, E, gj, eg, add);
                    u->st.element(u->st.ctx, gj, s, E, &out);
                    for (int q = 0; q < ns; q++)
                        E[q] = out.tol[q] = gen_bound_up(E[q] + add[q] * SECOND_ORDER);
                } else { /* STEP-SKIP-1: as before the step (the judge compares bit for bit) */
                    for (int q = 0; q < ns; q++) {
                        out.f32[q] = s[q];
                        out.f64[q] = s[q];
                        out.tol[q] = E[q];
                    }
                }
                for (int q = 0; q <= ns; q++) {
                    size_t o = base_at + (size_t)q * n + j;
                    w->stored[o] = q < ns ? out.f32[q] : gj;
                    w->exact[o] = q < ns ? out.f64[q] : gj;
                    w->tol[o] = !isfinite(w->stored[o]) ? 0   /* judged exactly */
                                : q < ns ? out.tol[q] : eg > 0 ? gen_bound_up(eg) : 0;
                }
            }
            at += n;
        }
    }
    return 0;
}

/* ---- emission (VEC-FMT-17) ---- */

static json_t *group_json(const step_case *c)
{
    json_t *h = json_pack("{s:s,s:o,s:s,s:o}", "mode", mode_names[c->cfg.mode], "clipGrad",
                          hexfloat(c->cfg.clip_grad), "normType", c->cfg.inf_norm ? "inf" : "2",
                          "skipThreshold", hexfloat(c->cfg.skip_threshold));
    if (c->cfg.mode == OC_GUARD_SCALED)
        json_object_set_new(
            h, "scaler",
            json_pack("{s:o,s:o,s:o,s:o,s:I,s:I}", "initialScale",
                      hexfloat(c->scaler.initial_scale), "minScale", hexfloat(c->scaler.min_scale),
                      "growthFactor", hexfloat(c->scaler.growth_factor), "backoffFactor",
                      hexfloat(c->scaler.backoff_factor), "growthInterval",
                      (json_int_t)c->scaler.growth_interval, "hysteresis",
                      (json_int_t)c->scaler.hysteresis));
    return h;
}

static json_t *optimizers_json(const step_case *c)
{
    json_t *a = json_array();
    for (int k = 0, idx = 0; k < c->nsub; k++) {
        const gsub *u = &c->sub[k];
        json_t *n = json_array();
        for (int i = 0; i < u->np; i++)
            json_array_append_new(n, json_integer((json_int_t)u->n[i]));
        json_t *hp = u->kind == OC_ALG_ADAM ? gen_adam_hparams_json(&u->adam)
                     : u->kind == OC_ALG_SGD ? gen_sgd_hparams_json(&u->sgd)
                                             : gen_lion_hparams_json(&u->lion);
        json_t *o = json_pack("{s:s,s:s,s:o,s:I,s:o}", "kind", kind_names[u->kind], "profile",
                              "torch", "hparams", hp, "step", (json_int_t)u->step, "params", n);
        if (c->cfg.per_sub) {                                    /* STEP-CLIP-2 */
            json_object_set_new(o, "clipGrad", hexfloat(c->cfg.sub_clip_grad[k]));
            json_object_set_new(o, "skipThreshold", hexfloat(c->cfg.sub_skip_threshold[k]));
        }
        if (c->cfg.mtp_params != 0) {                            /* STEP-GROUP-1 */
            json_t *groups = json_array();
            for (int i = 0; i < u->np; i++)
                json_array_append_new(groups, in_mtp(c, idx + i) ? json_string("mtp") : json_null());
            json_object_set_new(o, "gradNormGroups", groups);
        }
        idx += u->np;
        json_array_append_new(a, o);
    }
    return a;
}

/* Loss scaler s's state (VEC-FMT-17). */
static json_t *scaler_state_json(const step_case *c, int s)
{
    return json_pack("{s:o,s:I,s:I}", "scale", hexfloat(c->scale[s]), "growthTracker",
                     (json_int_t)c->growth[s], "hysteresisTracker", (json_int_t)c->hyst[s]);
}

static size_t grad_count(const step_case *c)
{
    size_t n = 0;
    for (int k = 0; k < c->nsub; k++)
        for (int i = 0; i < c->sub[k].np; i++)
            n += c->sub[k].n[i];
    return n;
}

static size_t row_width(const step_case *c)
{
    size_t w = head_width(c) + (size_t)c->nsub;
    for (int k = 0; k < c->nsub; k++)
        for (int i = 0; i < c->sub[k].np; i++)
            w += c->sub[k].n[i] * (size_t)(nstate(&c->sub[k]) + 1);
    return w;
}

static int make_steppers(step_gen *g, step_case *c)
{
    for (int k = 0; k < c->nsub; k++) {
        gsub *u = &c->sub[k];
        int rc = u->kind == OC_ALG_ADAM  ? gen_adam_stepper(&u->adam, g->opt->prec, &u->st)
                 : u->kind == OC_ALG_SGD ? gen_sgd_stepper(&u->sgd, g->opt->prec, &u->st)
                                         : gen_lion_stepper(&u->lion, g->opt->prec, &u->st);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static void free_steppers(step_case *c)
{
    for (int k = 0; k < c->nsub; k++)
        (c->sub[k].kind == OC_ALG_ADAM  ? gen_adam_stepper_free
         : c->sub[k].kind == OC_ALG_SGD ? gen_sgd_stepper_free
                                        : gen_lion_stepper_free)(&c->sub[k].st);
}

/* Emits case c (freed): random unscaled gradients of magnitude [2^lo, 2^hi) times each step's
 * grad_scale, with the poisoned elements, multiplied by the loss scale of their step. Returns
 * -1 if a decision falls within the bounds (generator bug: the case must change). */
static int emit(step_gen *g, step_case *c, const char *comment, const char *flag,
                const char *rules, const char *result, int lo, int hi)
{
    c->cfg.sub_scalers = c->cfg.mode == OC_GUARD_SCALED && c->nsub > 1; /* STEP-SCALER-2 */
    const size_t G = grad_count(c), W = row_width(c);
    const int valid = strcmp(result, "valid") == 0;
    float *state = NULL, *grads = calloc((size_t)c->steps * G, sizeof(float));
    double *stored = calloc((size_t)c->steps * W, sizeof(double));
    double *exact = calloc((size_t)c->steps * W, sizeof(double));
    double *tol = calloc((size_t)c->steps * W, sizeof(double));
    size_t S = 0;
    for (int k = 0; k < c->nsub; k++)
        for (int i = 0; i < c->sub[k].np; i++)
            S += c->sub[k].n[i] * (size_t)nstate(&c->sub[k]);
    state = calloc(S ? S : 1, sizeof(float));
    size_t at = 0;
    for (int k = 0; k < c->nsub; k++)                 /* the inputs: p, state..., per tensor */
        for (int i = 0; i < c->sub[k].np; i++)
            for (int q = 0; q < nstate(&c->sub[k]); q++)
                for (size_t j = 0; j < c->sub[k].n[i]; j++)
                    state[at++] = c->sub[k].s[i][j * GEN_MAX_STATE + q];
    for (int s = 0; s < c->steps; s++)
        for (size_t j = 0; j < G; j++)
            grads[(size_t)s * G + j] = rng_mag(&g->rng, lo, hi, 1) * c->grad_scale[s];
    for (int b = 0; b < c->nbad; b++) {
        size_t off = 0;
        for (int k = 0; k < c->bad[b].sub; k++)
            for (int i = 0; i < c->sub[k].np; i++)
                off += c->sub[k].n[i];
        for (int i = 0; i < c->bad[b].param; i++)
            off += c->sub[c->bad[b].sub].n[i];
        grads[(size_t)c->bad[b].step * G + off + c->bad[b].at] = c->bad[b].value;
    }
    json_t *jr = json_array();
    char buf[256];
    snprintf(buf, sizeof buf, "%s STEP-ORDER-1 STEP-TOL-1 STEP-TOL-2", rules);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        json_array_append_new(jr, json_string(tok));
    int id = g->f->next_tcid, rc = 0;
    json_t *inputs = json_object(), *test = json_pack(
        "{s:s,s:[s],s:o,s:s,s:I,s:I,s:i,s:o}", "comment", comment, "flags", flag, "specRules",
        jr, "result", result, "position", (json_int_t)c->position, "increment",
        (json_int_t)c->increment, "steps", c->steps, "optimizers", optimizers_json(c));
    if (c->cfg.mode == OC_GUARD_SCALED && !c->cfg.sub_scalers)   /* STEP-SCALER-1 */
        json_object_set_new(test, "scalerState", scaler_state_json(c, 0));
    else if (c->cfg.mode == OC_GUARD_SCALED) {                      /* STEP-SCALER-2 */
        json_t *states = json_array();
        for (int s = 0; s < nscalers(c); s++)
            json_array_append_new(states, scaler_state_json(c, s));
        json_object_set_new(test, "scalerStates", states);
    }
    family_add_tensor(g->f, id, "state", "F32", 1, S, state, inputs, "state");
    row_writer w = {stored, exact, tol, 0};
    float *work = malloc(G * sizeof(float) + 1);
    if (valid && make_steppers(g, c) != 0)
        rc = -1;
    for (int s = 0; s < c->steps && rc == 0; s++) {
        float *row = &grads[(size_t)s * G];
        for (size_t j = 0; c->cfg.mode == OC_GUARD_SCALED && j < G; j++)
            row[j] *= c->scale[0];    /* the loss scale of this step, the first scaler's
                                         (ChainedOptimizer.get_loss_scale): exact, a power of two */
        if (!valid)
            continue;
        memcpy(work, row, G * sizeof(float));
        w.at = (size_t)s * W;
        rc = golden_step(g, c, work, &w);
    }
    if (valid)
        free_steppers(c);
    free(work);
    family_add_tensor(g->f, id, "grad", "F32", (size_t)c->steps, G, grads, inputs, "grad");
    json_object_set_new(test, "inputs", inputs);
    if (valid) {
        json_t *value = json_object();
        family_add_tensor(g->f, id, "stored", "F64", (size_t)c->steps, W, stored, value, "stored");
        family_add_tensor(g->f, id, "f64", "F64", (size_t)c->steps, W, exact, value, "f64");
        family_add_tensor(g->f, id, "tol", "F64", (size_t)c->steps, W, tol, value, "tol");
        json_object_set_new(test, "expected", json_pack("{s:o}", "value", value));
    }
    family_group(g->f, "GuardedStep", group_json(c));
    family_test(g->f, test);
    free(state);
    free(grads);
    free(stored);
    free(exact);
    free(tol);
    free_case(c);
    return rc;
}

/* Puts value into element `at` of parameter `param` of sub-optimizer `sub` at step `step`. */
static void poison_at(step_case *c, int step, int sub, int param, size_t at, float value)
{
    c->bad[c->nbad++] = (poison){step, sub, param, at, value};
}

static int valid_cases(step_gen *g)
{
    int rc = 0;
    static const struct { float value; const char *what; } nonfinite[] = {
        {INFINITY, "+inf"}, {-INFINITY, "-inf"}, {NAN, "NaN"}};
    for (int i = 0; i < 3; i++) {          /* one non-finite element in the SGD's parameter */
        char comment[200];
        step_case c = base(OC_GUARD_SCALED, 1.0, INFINITY, 1);
        chain3(g, &c);
        poison_at(&c, 0, 1, 0, 4, nonfinite[i].value);
        snprintf(comment, sizeof comment, "fp16 scaled: %s in one element of the SGD's parameter "
                 "skips all three sub-optimizers; the SGD's scaler's hysteresis tracker drops to "
                 "1, the other two count a clean iteration", nonfinite[i].what);
        rc |= emit(g, &c, comment, "InfSkip",
                   "STEP-UNSCALE-1 STEP-FOUND-INF-1 STEP-SCALER-2 STEP-SKIP-1 STEP-SCHED-1", "valid",
                   -4, 0);
    }
    {
        step_case c = base(OC_GUARD_SCALED, 1.0, INFINITY, 1);
        chain3(g, &c);
        rc |= emit(g, &c, "fp16 scaled, clean: one global norm of the unscaled gradients near 3, "
                   "every sub-optimizer clipped by the same coefficient < 1", "Clip",
                   "STEP-UNSCALE-1 STEP-CLIP-1 STEP-NORM-1 STEP-TAKE-1 STEP-SCHED-1 STEP-SCALER-1",
                   "valid", -3, 0);
    }
    {
        step_case c = base(OC_GUARD_SCALED, 1e3, INFINITY, 1);
        chain3(g, &c);
        rc |= emit(g, &c, "clean, clip_coeff >= 1: nothing is scaled", "NoClip",
                   "STEP-CLIP-1 STEP-NORM-1 STEP-TAKE-1", "valid", -3, 0);
    }
    {
        step_case c = base(OC_GUARD_CHECKED, 0x1p-24, INFINITY, 1);
        static const size_t n[] = {16};
        add_sub(g, &c, OC_ALG_SGD, 3, 1, n);
        rc |= emit(g, &c, "total norm about 1e-8: the 1e-6 of the coefficient dominates it",
                   "TinyNorm", "STEP-CLIP-1 STEP-BF16-1 STEP-TAKE-1", "valid", -30, -28);
    }
    {
        step_case c = base(OC_GUARD_SCALED, 1.0, 4.0, 1);
        chain3(g, &c);
        rc |= emit(g, &c, "norm above grad_norm_skip_threshold (4): clipped, then nothing steps; "
                   "the scaler counts a clean iteration", "SkipThreshold",
                   "STEP-CLIP-1 STEP-SKIP-1 STEP-SCALER-1 STEP-SCHED-1 STEP-NORM-1", "valid", -1, 2);
    }
    {
        step_case c = base(OC_GUARD_UNCHECKED, 1.0, INFINITY, 1);
        static const size_t na[] = {6}, ns[] = {5};
        add_sub(g, &c, OC_ALG_ADAM, 4, 1, na);
        add_sub(g, &c, OC_ALG_SGD, 2, 1, ns);
        poison_at(&c, 0, 1, 0, 2, NAN);
        rc |= emit(g, &c, "bf16 unchecked (Megatron): a NaN gradient is not detected, the norm "
                   "is NaN, nothing is clipped, the NaN reaches the SGD's weight", "Unchecked",
                   "STEP-BF16-1 STEP-NONFINITE-1 STEP-TAKE-1", "valid", -3, 0);
    }
    {
        step_case c = base(OC_GUARD_CHECKED, 1.0, INFINITY, 1);
        chain3(g, &c);
        poison_at(&c, 0, 0, 1, 3, NAN);
        rc |= emit(g, &c, "bf16 checked: the same NaN (in the Adam's second parameter) skips the "
                   "whole step", "CheckedSkip", "STEP-BF16-1 STEP-FOUND-INF-1 STEP-SKIP-1",
                   "valid", -3, 0);
    }
    {
        step_case c = base(OC_GUARD_CHECKED, 0.5, INFINITY, 1);
        c.cfg.inf_norm = 1;
        chain3(g, &c);
        rc |= emit(g, &c, "bf16 checked, inf-norm: clipped by max |g|", "Clip",
                   "STEP-BF16-1 STEP-CLIP-1 STEP-NORM-1", "valid", -3, 0);
    }
    {
        step_case c = base(OC_GUARD_SCALED, 0.0, INFINITY, 1);
        chain3(g, &c);
        rc |= emit(g, &c, "clipping disabled (clip_grad = 0): the norm is still computed and "
                   "reported, the gradients only unscaled", "NoClip",
                   "STEP-CLIP-1 STEP-NORM-1 STEP-TAKE-1", "valid", -3, 0);
    }
    {                                    /* 6 iterations: clean, inf, clean, NaN, threshold, clean */
        step_case c = base(OC_GUARD_SCALED, 1.0, 8.0, 6);
        chain3(g, &c);
        poison_at(&c, 1, 2, 0, 0, INFINITY);
        poison_at(&c, 3, 0, 0, 7, NAN);
        c.grad_scale[4] = 8.0f;
        rc |= emit(g, &c, "six iterations: clean, inf (Lion), clean, NaN (Adam), norm above the "
                   "threshold, clean; each sub-optimizer's scaler sees its own infs: the Lion's "
                   "and the Adam's hysteresis absorb theirs, the others grow, and the scales "
                   "drift apart", "Sequence",
                   "STEP-UNSCALE-1 STEP-FOUND-INF-1 STEP-SCALER-2 STEP-SKIP-1 STEP-CLIP-1 "
                   "STEP-TAKE-1 STEP-SCHED-1", "valid", -3, 0);
    }
    {
        step_case c = base(OC_GUARD_CHECKED, 1.0, INFINITY, 4);
        chain3(g, &c);
        poison_at(&c, 1, 1, 0, 0, -INFINITY);
        rc |= emit(g, &c, "bf16 checked, four iterations with -inf in the second: clipped steps "
                   "around one skip", "Sequence", "STEP-BF16-1 STEP-SKIP-1 STEP-CLIP-1 STEP-TAKE-1",
                   "valid", -3, 0);
    }
    return rc;
}

static int invalid_cases(step_gen *g)
{
    static const struct { const char *what; double clip, threshold; int64_t increment; int bad_hp; } k[] = {
        {"clip_grad = NaN (CLIP-CFG-1)", NAN, INFINITY, 32, 0},
        {"grad_norm_skip_threshold = 0 (CLIP-CFG-1)", 1.0, 0.0, 32, 0},
        {"a negative increment", 1.0, INFINITY, -1, 0},
        {"the Lion's beta1 = 1.5: its own check fails after the Adam's and the SGD's passed", 1.0,
         INFINITY, 32, 1},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        step_case c = base(OC_GUARD_SCALED, k[i].clip, k[i].threshold, 1);
        c.increment = k[i].increment;
        chain3(g, &c);
        if (k[i].bad_hp)
            c.sub[2].lion.beta1 = 1.5;
        rc |= emit(g, &c, k[i].what, "InvalidInput", "STEP-CFG-1 STEP-ERR-1", "invalid", -3, 0);
    }
    return rc;
}

/* STEP-NONFINITE-1 under the inf-norm (after the invalid cases, so that the earlier tcIds stay). */
static int nonfinite_inf_norm_cases(step_gen *g)
{
    static const struct { float value; double threshold; const char *what; } k[] = {
        {NAN, INFINITY, "bf16 unchecked, inf-norm: a NaN gradient makes max |g| NaN, nothing is "
                        "clipped, the NaN reaches the SGD's weight"},
        {INFINITY, INFINITY, "bf16 unchecked, inf-norm: an infinite gradient makes the norm +inf, "
                             "c = 0 multiplies every gradient by 0 (the infinite one becomes "
                             "NaN) and the step is taken"},
        {INFINITY, 1e3, "bf16 unchecked, inf-norm: the same +inf norm is above the finite "
                        "grad_norm_skip_threshold: clipped, then nothing steps"},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        step_case c = base(OC_GUARD_UNCHECKED, 1.0, k[i].threshold, 1);
        c.cfg.inf_norm = 1;
        static const size_t na[] = {6}, ns[] = {5};
        add_sub(g, &c, OC_ALG_ADAM, 4, 1, na);
        add_sub(g, &c, OC_ALG_SGD, 2, 1, ns);
        poison_at(&c, 0, 1, 0, 2, k[i].value);
        rc |= emit(g, &c, k[i].what, "Unchecked", "STEP-BF16-1 STEP-NONFINITE-1 STEP-NORM-1",
                   "valid", -3, 0);
    }
    return rc;
}

/* Issue 19 item 3, after every earlier case: an SGD without momentum (its state is the
 * parameter alone) in the scaled mode at scale 1 (unscaling changes nothing); and the
 * STEP-CFG-1 / STEP-ERR-1 boundaries no invalid case reaches: a sub-optimizer whose counter
 * cannot advance (step 2^63 - 1), a position the increment would carry past 2^63 - 1, a loss
 * scaler outside LS-CFG-1 in the scaled mode. */
static int boundary_cases(step_gen *g)
{
    int rc = 0;
    step_case c = base(OC_GUARD_SCALED, 1.0, INFINITY, 2);
    c.scaler.initial_scale = c.scale[0] = c.scale[1] = 1.0f;
    static const size_t na[] = {6}, ns[] = {5};
    add_sub(g, &c, OC_ALG_ADAM, 4, 1, na);
    add_sub(g, &c, OC_ALG_SGD, 2, 1, ns);
    c.sub[1].sgd.momentum = 0;
    rc |= emit(g, &c, "fp16 scaled at scale 1 (the gradients are unscaled by 1), an SGD without "
               "momentum: two clipped steps", "Clip",
               "STEP-UNSCALE-1 STEP-CLIP-1 STEP-NORM-1 STEP-TAKE-1 STEP-SCHED-1 STEP-SCALER-1",
               "valid", -3, 0);
    static const char *const what[] = {
        "the SGD's step counter is 2^63 - 1: it cannot advance",
        "position + increment beyond 2^63 - 1",
        "the loss scaler's backoff_factor = 2 (LS-CFG-1)"};
    for (int k = 0; k < 3; k++) {
        c = base(OC_GUARD_SCALED, 1.0, INFINITY, 1);
        chain3(g, &c);
        if (k == 0)
            c.sub[1].step = INT64_MAX;
        else if (k == 1)
            c.position = INT64_MAX - 16;
        else
            c.scaler.backoff_factor = 2.0f;
        rc |= emit(g, &c, what[k], "InvalidInput", "STEP-CFG-1 STEP-ERR-1", "invalid", -3, 0);
    }
    /* appended (issue 19 item 3): a loss-scaler state outside LS-STATE-1, one bound each (the
     * scaler: growth_interval 2, hysteresis 2) */
    static const struct { float scale; long growth, hyst; const char *what; } bad_state[] = {
        {-1.0f, 0, 2, "the loss scaler's scale = -1 (LS-STATE-1)"},
        {NAN, 0, 2, "the loss scaler's scale = NaN (LS-STATE-1)"},
        {0x1p16f, -1, 2, "the loss scaler's growth tracker = -1 (LS-STATE-1)"},
        {0x1p16f, 2, 2, "the loss scaler's growth tracker = growth_interval (LS-STATE-1)"},
        {0x1p16f, 0, OC_LS_MIN_HYSTERESIS_TRACKER,
         "the loss scaler's hysteresis tracker = -2^62 (LS-STATE-1)"},
        {0x1p16f, 0, 3, "the loss scaler's hysteresis tracker = hysteresis + 1 (LS-STATE-1)"},
    };
    for (size_t k = 0; k < sizeof bad_state / sizeof bad_state[0]; k++) {
        c = base(OC_GUARD_SCALED, 1.0, INFINITY, 1);
        chain3(g, &c);
        c.scale[0] = bad_state[k].scale;
        c.growth[0] = bad_state[k].growth;
        c.hyst[0] = bad_state[k].hyst;
        rc |= emit(g, &c, bad_state[k].what, "InvalidInput", "STEP-ERR-1", "invalid", -3, 0);
    }
    return rc;
}

/* Megatron's per-sub-optimizer configuration and 'mtp' group (STEP-CLIP-2, STEP-GROUP-1;
 * plugin option "groups"), after every earlier case: chain3 with each sub-optimizer's own
 * clip_grad (Lion's 0: it does not clip) and threshold, and Adam's second parameter and the
 * Lion's only one in the 'mtp' group where `mtp`. */
static int group_cases(step_gen *g)
{
    static const struct {
        oc_guard_mode mode;
        int steps, mtp;
        double clip[3], threshold[3];
        const char *result, *flag, *what;
    } k[] = {
        {OC_GUARD_CHECKED, 2, 0, {1.0, 0.25, 0.0}, {INFINITY, INFINITY, INFINITY}, "valid",
         "PerSubConfig", "each sub-optimizer clips with its own clip_grad against the one norm "
         "(Adam 1, SGD 0.25, Lion 0: not clipped), two iterations"},
        {OC_GUARD_SCALED, 1, 1, {0.5, 2.0, 0.25}, {INFINITY, INFINITY, 0x1p-4}, "valid",
         "MtpGroup", "fp16 scaled: Adam's second parameter and the Lion's in the 'mtp' group: the "
         "reported norm leaves them out, they are clipped against the group's own norm; the "
         "Lion (no main parameter) does not check its threshold (2^-4)"},
        {OC_GUARD_CHECKED, 2, 1, {0.5, 0.25, 1.0}, {INFINITY, INFINITY, 0.5}, "valid",
         "MtpGroup", "the Lion's threshold (0.5) is below every norm, but the Lion has no "
         "parameter in the main norm: it does not check it, both iterations are taken"},
        {OC_GUARD_CHECKED, 1, 1, {0.5, 0.25, 1.0}, {INFINITY, 1.0, 0.5}, "valid",
         "SkipThreshold", "the SGD's threshold (1) is below the main norm: clipped, then "
         "nothing steps"},
        {OC_GUARD_CHECKED, 1, 0, {1.0, NAN, 1.0}, {INFINITY, INFINITY, INFINITY}, "invalid",
         "InvalidInput", "the SGD's own clip_grad = NaN (CLIP-CFG-1)"},
        {OC_GUARD_CHECKED, 1, 1, {1.0, 1.0, 1.0}, {INFINITY, INFINITY, 0.0}, "invalid",
         "InvalidInput", "the Lion's own grad_norm_skip_threshold = 0 (CLIP-CFG-1)"},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        step_case c = base(k[i].mode, 1.0, INFINITY, k[i].steps);
        chain3(g, &c);
        c.cfg.per_sub = 1;
        for (int s = 0; s < 3; s++) {
            c.cfg.sub_clip_grad[s] = k[i].clip[s];
            c.cfg.sub_skip_threshold[s] = k[i].threshold[s];
        }
        c.cfg.mtp_params = k[i].mtp ? (1u << 1 | 1u << 3) : 0;
        rc |= emit(g, &c, k[i].what, k[i].flag,
                   strcmp(k[i].result, "valid") == 0
                       ? "STEP-CLIP-2 STEP-GROUP-1 STEP-CLIP-1 STEP-NORM-1 STEP-TAKE-1"
                       : "STEP-CLIP-2 STEP-CFG-1 STEP-ERR-1",
                   k[i].result, -3, 0);
    }
    return rc;
}

/* STEP-SCALER-1, STEP-SCALER-2, after every earlier case: every sub-optimizer's scaler state is
 * checked (the SGD's, the second, out of LS-STATE-1); a chain of one in the scaled mode, whose
 * one scaler follows a clean, an inf, a NaN and a clean iteration; and a chain whose scalers
 * start apart (the Lion's backed off to 2^15 after two infs): the loss is scaled by the first one's
 * 2^16, each sub-optimizer unscales with its own scale (the Lion's gradients come out doubled,
 * as Megatron's do), and the first grows at the next clean iteration while the others count. */
static int scaler_cases(step_gen *g)
{
    int rc = 0;
    step_case c = base(OC_GUARD_SCALED, 1.0, INFINITY, 1);
    chain3(g, &c);
    c.growth[1] = -1;
    rc |= emit(g, &c, "the SGD's own loss scaler's growth tracker = -1 (LS-STATE-1, "
               "STEP-SCALER-2: every sub-optimizer's scaler is checked)", "InvalidInput",
               "STEP-SCALER-2 STEP-ERR-1", "invalid", -3, 0);
    c = base(OC_GUARD_SCALED, 1.0, INFINITY, 4);
    static const size_t na[] = {12, 5};
    add_sub(g, &c, OC_ALG_ADAM, 5, 2, na);
    poison_at(&c, 1, 0, 0, 2, INFINITY);
    poison_at(&c, 2, 0, 1, 4, NAN);
    rc |= emit(g, &c, "fp16 scaled, one Adam sub-optimizer (one scaler), four iterations: clean, "
               "+inf (the hysteresis absorbs it), NaN (the scale halves), clean", "Sequence",
               "STEP-SCALER-1 STEP-UNSCALE-1 STEP-FOUND-INF-1 STEP-SKIP-1 STEP-CLIP-1 "
               "STEP-TAKE-1 STEP-SCHED-1", "valid", -3, 0);
    c = base(OC_GUARD_SCALED, 1.0, INFINITY, 2);
    chain3(g, &c);
    c.growth[0] = 1;
    c.scale[2] = 0x1p15f;
    c.hyst[2] = 0;
    rc |= emit(g, &c, "fp16 scaled, the scalers apart: the Lion's at 2^15 (backed off once), the "
               "loss scaled by the first one's 2^16; each sub-optimizer unscales with its own "
               "scale (the Lion's gradients doubled), the first grows to 2^17 after the first "
               "iteration and scales the second's loss", "Sequence",
               "STEP-SCALER-2 STEP-UNSCALE-1 STEP-CLIP-1 STEP-TAKE-1", "valid", -3, 0);
    return rc;
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"InfSkip", "KNOWN_MISTAKE", "one non-finite gradient element in one sub-optimizer",
         "the whole step is skipped, bit for bit; the scaler is updated"},
        {"Clip", "BASIC", "clipping active", "every sub-optimizer scaled by one coefficient"},
        {"NoClip", "EDGE_CASE", "clip_coeff >= 1 or clipping disabled", "nothing is scaled"},
        {"TinyNorm", "EDGE_CASE", "total norm near 1e-8", "the 1e-6 of the coefficient shows"},
        {"SkipThreshold", "EDGE_CASE", "grad_norm_skip_threshold exceeded",
         "nothing steps; the scaler counts a clean iteration"},
        {"Unchecked", "KNOWN_MISTAKE", "bf16 without a check (Megatron)",
         "a NaN gradient reaches the weights"},
        {"CheckedSkip", "BASIC", "bf16 with the explicit check", "a NaN skips the step"},
        {"Sequence", "TRAJECTORY", "several iterations with skips interleaved",
         "counters, schedule and scaler follow the skips"},
        {"InvalidInput", "INVALID_INPUT", "configuration outside STEP-CFG-1 / STEP-ERR-1",
         "must be rejected with nothing written"},
        {"PerSubConfig", "BASIC", "sub-optimizers with their own clip_grad (Megatron)",
         "each clips with its own coefficient against the one norm"},
        {"MtpGroup", "BASIC", "parameters in Megatron's separate grad-norm group 'mtp'",
         "left out of the main norm and its threshold, clipped with their group's norm"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

static int gen_guarded_step(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {
        "STEP-ORDER-1", "STEP-UNSCALE-1", "STEP-FOUND-INF-1", "STEP-SCALER-1", "STEP-SKIP-1",
        "STEP-CLIP-1", "STEP-NORM-1", "STEP-TAKE-1", "STEP-SCHED-1", "STEP-BF16-1",
        "STEP-NONFINITE-1", "STEP-CFG-1", "STEP-ERR-1", "STEP-TOL-1", "STEP-TOL-2",
        "STEP-CLIP-2", "STEP-GROUP-1", "STEP-SCALER-2", NULL};
    family f;
    step_gen g = {.f = &f, .opt = opt, .rng = {opt->seed ^ (0x57e9ull << 32)}};
    mpfr_inits2(opt->prec, g.norm, g.mtp_norm, g.sum, g.t, g.c, (mpfr_ptr)0);
    int rc = family_init(&f, "guarded-step-megatron", "guarded-step", "megatron", rules, opt);
    if (rc == 0) {
        notes(&f);
        rc = valid_cases(&g) || invalid_cases(&g) || nonfinite_inf_norm_cases(&g) ||
                     boundary_cases(&g) || group_cases(&g) || scaler_cases(&g)
                 ? -1 : family_save(&f, outdir);
        family_free(&f);
    }
    mpfr_clears(g.norm, g.mtp_norm, g.sum, g.t, g.c, (mpfr_ptr)0);
    return rc;
}

/* Writes vectors/guarded-step-megatron (spec/guarded_step.md). */
const gen_family gen_family_guarded_step = {.name = "guarded-step",
                                             .generate = gen_guarded_step};
