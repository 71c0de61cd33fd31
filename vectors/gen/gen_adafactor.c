/* The adafactor families (spec/adafactor.md): one step after another of one tensor, each
 * computed from the rules in MPFR at the working precision from the stored binary32 state,
 * rounded to binary32 only at the storage points (ADAFACTOR-STORE-1), with the fp32-class
 * bound of ADAFACTOR-TOL-2 carried per stored entry. Values inline (VEC-FMT-21). This file
 * never calls ref/ (ctest layers_gen_not_ref): the profiles' rules are restated here. tcIds in
 * generation order: append new cases at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/adafactor.h"
#include "../../common/adafactor_tolerance.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

#define MAXN 64
#define MAXSTEPS 8


typedef struct ada_gen {
    family *f;
    const gen_options *opt;
    gen_rng rng;
    oc_adafactor_profile profile;
} ada_gen;

/* One case before it is computed. */
typedef struct ada_case {
    oc_adafactor_hparams hp;
    const char *comment, *flag, *rules[8], *result;
    int ndim;
    size_t rows, cols, steps;
    int64_t first_step;
    float p[MAXN], m[MAXN], v[MAXN], row[MAXN], col[MAXN];
    float g[MAXSTEPS][MAXN];
} ada_case;

/* The error bound of every stored entry (ADAFACTOR-TOL-2), carried from step to step. */
typedef struct ada_bound {
    double p[MAXN], m[MAXN], v[MAXN], row[MAXN], col[MAXN];
} ada_bound;

/* The MPFR scratch of one step. */
typedef struct mp {
    mpfr_t a, b, c, sum, beta2, alpha, denom, norm;
    mpfr_t u[MAXN], sq[MAXN];
} mp;

static int factored_of(const ada_case *tc)
{
    /* ADAFACTOR-FACT-1, restated */
    if (tc->ndim != 2)
        return 0;
    if (tc->hp.profile != OC_ADAFACTOR_OPTAX)
        return 1;
    const size_t smaller = tc->rows < tc->cols ? tc->rows : tc->cols;
    return tc->hp.factored && (int64_t)smaller >= tc->hp.min_dim_to_factor;
}

/* The golden value x: stored (binary32) into *store, its binary64 rounding into *f64. */
static float store32(mpfr_t x, double *f64)
{
    *f64 = mpfr_get_d(x, MPFR_RNDN);
    return mpfr_get_flt(x, MPFR_RNDN);
}

/* ADAFACTOR-TOL-3: a nonzero intermediate the bound's relative analysis covers. */
static void in_domain(double x, const char *what, const ada_case *tc)
{
    if (x != 0 && !(fabs(x) >= 0x1p-120 && fabs(x) <= 0x1p+120)) {
        fprintf(stderr, "gen_adafactor: case '%s': %s = %g outside ADAFACTOR-TOL-3\n",
                tc->comment, what, x);
        abort();
    }
}

/* Outputs of one step: stored, f64 and bound per packed entry. */
typedef struct step_out {
    double stored[4 * MAXN], f64[4 * MAXN], tol[4 * MAXN];
    size_t len;
} step_out;

static void emit_entry(step_out *o, float stored, double f64, double tol)
{
    o->stored[o->len] = stored;
    o->f64[o->len] = f64;
    o->tol[o->len++] = gen_bound_up(tol);
}

/* The running mean beta2 x + (1 - beta2) s of one stored statistic x with sample s
 * (ADAFACTOR-V-1), stored; its golden binary64 value into *f64. */
static float running_mean(mp *w, float x, mpfr_t s, double *f64)
{
    mpfr_mul_d(w->a, w->beta2, x, MPFR_RNDN);
    mpfr_ui_sub(w->b, 1, w->beta2, MPFR_RNDN);
    mpfr_mul(w->b, w->b, s, MPFR_RNDN);
    mpfr_add(w->a, w->a, w->b, MPFR_RNDN);
    return store32(w->a, f64);
}

/* A factored statistic (ADAFACTOR-V-1): the running mean of the mean of len entries of sq
 * (first, first + stride, ...); the mean's binary64 value into *sample. */
static float statistic(mp *w, float x, size_t len, size_t first, size_t stride, double *sample,
                       double *f64)
{
    mpfr_set_zero(w->c, 1);
    for (size_t k = 0; k < len; k++)
        mpfr_add(w->c, w->c, w->sq[first + k * stride], MPFR_RNDN);
    mpfr_div_ui(w->c, w->c, len, MPFR_RNDN);
    *sample = mpfr_get_d(w->c, MPFR_RNDN);
    return running_mean(w, x, w->c, f64);
}

/* The stored state of tc, widened to binary64 for the bound (ada_tol_parts). */
typedef struct ada_values {
    double p[MAXN], m[MAXN], v[MAXN], row[MAXN], col[MAXN];
} ada_values;

static ada_tol_parts parts_of(ada_values *x) { return (ada_tol_parts){x->p, x->m, x->v, x->row, x->col}; }

static void values_of(const ada_case *tc, ada_values *x)
{
    for (size_t i = 0; i < MAXN; i++) {
        x->p[i] = tc->p[i], x->m[i] = tc->m[i], x->v[i] = tc->v[i];
        x->row[i] = tc->row[i], x->col[i] = tc->col[i];
    }
}

/* One step of case tc from its stored state (updated), appending the outputs to o; the bound
 * of each stored entry (ADAFACTOR-TOL-2) is the shared model's (common/adafactor_tolerance.c)
 * on this step's MPFR quantities rounded to binary64, carried in e. */
static void step(ada_gen *gg, mp *w, ada_case *tc, ada_bound *e, int64_t t, const float *g,
                 step_out *o)
{
    const oc_adafactor_hparams *hp = &tc->hp;
    const size_t R = tc->rows, C = tc->cols, n = R * C;
    const int fact = factored_of(tc), torch = hp->profile == OC_ADAFACTOR_TORCH;
    (void)gg;
    static ada_values before, after, golden;
    double sample[2 * MAXN], delta[MAXN], work[2 * MAXN];
    ada_tol_step q = {.hp = hp, .rows = R, .cols = C, .factored = fact,
                      .by_col = fact && hp->profile == OC_ADAFACTOR_OPTAX && R > C,
                      .sample = sample, .delta = delta};
    values_of(tc, &before);
    /* ADAFACTOR-DECAY-1: beta2_t = 1 - t^-c */
    mpfr_set_si(w->a, (long)t, MPFR_RNDN);
    mpfr_set_d(w->b, -hp->decay_rate, MPFR_RNDN);
    mpfr_pow(w->a, w->a, w->b, MPFR_RNDN);
    q.wt = mpfr_get_d(w->a, MPFR_RNDN);
    mpfr_ui_sub(w->beta2, 1, w->a, MPFR_RNDN);
    q.beta = mpfr_get_d(w->beta2, MPFR_RNDN);
    /* ADAFACTOR-STEP-1: rho_t, the parameter's RMS (before any decay), alpha_t */
    mpfr_set_zero(w->sum, 1);
    for (size_t i = 0; i < n; i++) {
        mpfr_set_flt(w->a, tc->p[i], MPFR_RNDN);
        mpfr_sqr(w->a, w->a, MPFR_RNDN);
        mpfr_add(w->sum, w->sum, w->a, MPFR_RNDN);
    }
    mpfr_div_ui(w->sum, w->sum, n, MPFR_RNDN);
    mpfr_sqrt(w->sum, w->sum, MPFR_RNDN);
    q.rms_p = mpfr_get_d(w->sum, MPFR_RNDN);
    if (hp->relative_step) {
        const double cap = hp->warmup_init ? OC_ADAFACTOR_HF_WARMUP * (double)t
                           : hp->profile == OC_ADAFACTOR_TRANSFORMERS ? OC_ADAFACTOR_HF_CAP
                                                                       : hp->lr;
        mpfr_set_si(w->a, (long)t, MPFR_RNDN);
        mpfr_rec_sqrt(w->a, w->a, MPFR_RNDN);
        mpfr_set_d(w->b, cap, MPFR_RNDN);
        mpfr_min(w->alpha, w->a, w->b, MPFR_RNDN);
    } else {
        mpfr_set_d(w->alpha, hp->lr, MPFR_RNDN);
    }
    if (hp->scale_parameter) {
        mpfr_set_d(w->a, hp->eps2, MPFR_RNDN);
        mpfr_max(w->a, w->a, w->sum, MPFR_RNDN);
        q.scale = mpfr_get_d(w->a, MPFR_RNDN);
        mpfr_mul(w->alpha, w->alpha, w->a, MPFR_RNDN);
    }
    q.alpha = mpfr_get_d(w->alpha, MPFR_RNDN);
    /* ADAFACTOR-EPS-1: sq = G^2 + eps1 (torch: G^2) */
    for (size_t i = 0; i < n; i++) {
        mpfr_set_flt(w->sq[i], g[i], MPFR_RNDN);
        mpfr_sqr(w->sq[i], w->sq[i], MPFR_RNDN);
        if (!torch)
            mpfr_add_d(w->sq[i], w->sq[i], hp->eps1, MPFR_RNDN);
        in_domain(mpfr_get_d(w->sq[i], MPFR_RNDN), "G^2 + eps1", tc);
    }
    /* ADAFACTOR-V-1: the statistics, stored; each output's f64 kept for the packing */
    if (!fact) {
        for (size_t i = 0; i < n; i++) {
            sample[i] = mpfr_get_d(w->sq[i], MPFR_RNDN);
            tc->v[i] = running_mean(w, tc->v[i], w->sq[i], &golden.v[i]);
            in_domain(tc->v[i], "V", tc);
        }
    } else {
        for (size_t r = 0; r < R; r++) {
            tc->row[r] = statistic(w, tc->row[r], C, r * C, 1, &sample[r], &golden.row[r]);
            in_domain(tc->row[r], "R", tc);
        }
        for (size_t c = 0; c < C; c++) {
            tc->col[c] = statistic(w, tc->col[c], R, c, C, &sample[R + c], &golden.col[c]);
            in_domain(tc->col[c], "C", tc);
        }
        /* ADAFACTOR-FACTOR-1: the normaliser from the stored statistics */
        const size_t k = q.by_col ? C : R;
        const float *stat = q.by_col ? tc->col : tc->row;
        mpfr_set_zero(w->norm, 1);
        for (size_t i = 0; i < k; i++)
            mpfr_add_d(w->norm, w->norm, stat[i], MPFR_RNDN);
        mpfr_div_ui(w->norm, w->norm, k, MPFR_RNDN);
        if (torch) {
            mpfr_set_d(w->a, hp->eps1, MPFR_RNDN);
            mpfr_max(w->norm, w->norm, w->a, MPFR_RNDN);
        }
        q.norm = mpfr_get_d(w->norm, MPFR_RNDN);
        in_domain(q.norm, "mean(R)", tc);
        for (size_t r = 0; r < R; r++)
            for (size_t c = 0; c < C; c++)
                in_domain((double)tc->row[r] * tc->col[c], "R C", tc);
    }
    /* ADAFACTOR-FACTOR-1, ADAFACTOR-EPS-1: U = G / sqrt(V^), torch flooring V^ at eps1^2 */
    mpfr_set_zero(w->sum, 1);
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < C; c++) {
            const size_t i = r * C + c;
            if (fact) {
                mpfr_set_flt(w->a, tc->row[r], MPFR_RNDN);
                mpfr_mul_d(w->a, w->a, tc->col[c], MPFR_RNDN);
                mpfr_div(w->a, w->a, w->norm, MPFR_RNDN);
            } else {
                mpfr_set_flt(w->a, tc->v[i], MPFR_RNDN);
            }
            if (torch) {
                mpfr_set_d(w->b, hp->eps1, MPFR_RNDN);
                mpfr_sqr(w->b, w->b, MPFR_RNDN);
                mpfr_max(w->a, w->a, w->b, MPFR_RNDN);
            }
            in_domain(mpfr_get_d(w->a, MPFR_RNDN), "V^", tc);
            mpfr_rec_sqrt(w->a, w->a, MPFR_RNDN);
            mpfr_mul_d(w->u[i], w->a, hp->maximize ? -g[i] : g[i], MPFR_RNDN);
            in_domain(mpfr_get_d(w->u[i], MPFR_RNDN), "U", tc);
            mpfr_sqr(w->a, w->u[i], MPFR_RNDN);
            mpfr_add(w->sum, w->sum, w->a, MPFR_RNDN);
        }
    /* ADAFACTOR-CLIP-1: D = max(1, RMS(U)/d) */
    mpfr_div_ui(w->sum, w->sum, n, MPFR_RNDN);
    mpfr_sqrt(w->sum, w->sum, MPFR_RNDN);
    if (hp->clip_threshold != 0) {
        mpfr_div_d(w->sum, w->sum, hp->clip_threshold, MPFR_RNDN);
        mpfr_set_ui(w->a, 1, MPFR_RNDN);
        mpfr_max(w->denom, w->sum, w->a, MPFR_RNDN);
    } else {
        mpfr_set_ui(w->denom, 1, MPFR_RNDN);
    }
    /* the update delta = alpha U / D; p and m (ADAFACTOR-MOM-1, ADAFACTOR-WD-1) */
    double f64_p[MAXN], f64_m[MAXN];
    for (size_t i = 0; i < n; i++) {
        mpfr_mul(w->a, w->u[i], w->alpha, MPFR_RNDN);
        mpfr_div(w->a, w->a, w->denom, MPFR_RNDN); /* delta */
        delta[i] = mpfr_get_d(w->a, MPFR_RNDN);
        if (hp->first_moment) {
            const double b1 = hp->beta1;
            mpfr_mul_d(w->a, w->a, 1 - b1, MPFR_RNDN); /* 1 - b1 exact: b1 binary32 in [0, 1) */
            mpfr_set_flt(w->b, tc->m[i], MPFR_RNDN);
            mpfr_mul_d(w->b, w->b, b1, MPFR_RNDN);
            mpfr_add(w->a, w->a, w->b, MPFR_RNDN);
            tc->m[i] = store32(w->a, &f64_m[i]);
            mpfr_set_flt(w->a, tc->m[i], MPFR_RNDN); /* the stored m is subtracted */
        }
        /* ADAFACTOR-WD-1: the decayed parameter f = k p (transformers: k = 1 - wd alpha) */
        const double wd = hp->weight_decay;
        mpfr_set_flt(w->b, tc->p[i], MPFR_RNDN);
        if (hp->profile == OC_ADAFACTOR_TORCH) {
            mpfr_mul_d(w->c, w->b, hp->lr * wd, MPFR_RNDN); /* lr, wd binary32: exact product */
            mpfr_sub(w->b, w->b, w->c, MPFR_RNDN);
        } else if (hp->profile == OC_ADAFACTOR_TRANSFORMERS) {
            mpfr_mul(w->c, w->b, w->alpha, MPFR_RNDN);
            mpfr_mul_d(w->c, w->c, wd, MPFR_RNDN);
            mpfr_sub(w->b, w->b, w->c, MPFR_RNDN);
        } else if (hp->profile == OC_ADAFACTOR_OPTAX) {
            mpfr_mul_d(w->c, w->b, wd, MPFR_RNDN);
            mpfr_sub(w->b, w->b, w->c, MPFR_RNDN);
        }
        mpfr_sub(w->b, w->b, w->a, MPFR_RNDN);
        tc->p[i] = store32(w->b, &f64_p[i]);
    }
    /* ADAFACTOR-TOL-2: the bounds, from the values before the step and after it */
    values_of(tc, &after);
    q.before = parts_of(&before);
    q.after = parts_of(&after);
    q.golden = parts_of(&golden);
    ada_tol_parts carried = {e->p, e->m, e->v, e->row, e->col};
    ada_tol_step_bounds(&q, &carried, work);
    /* the packed outputs (VEC-FMT-21): p, m, then v or row and col */
    o->len = 0;
    for (size_t i = 0; i < n; i++)
        emit_entry(o, tc->p[i], f64_p[i], e->p[i]);
    for (size_t i = 0; hp->first_moment && i < n; i++)
        emit_entry(o, tc->m[i], f64_m[i], e->m[i]);
    for (size_t i = 0; !fact && i < n; i++)
        emit_entry(o, tc->v[i], golden.v[i], e->v[i]);
    for (size_t r = 0; fact && r < R; r++)
        emit_entry(o, tc->row[r], golden.row[r], e->row[r]);
    for (size_t c = 0; fact && c < C; c++)
        emit_entry(o, tc->col[c], golden.col[c], e->col[c]);
}

static json_t *hex_list(const float *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, hexfloat(x[i]));
    return a;
}

static json_t *hex_list64(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, hexfloat(x[i]));
    return a;
}

/* VEC-FMT-21: the group's hyper-parameters. */
static json_t *hparams_json(const oc_adafactor_hparams *hp)
{
    return json_pack("{s:o,s:b,s:b,s:b,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:b,s:b,s:I}", "lr",
                     hexfloat(hp->lr), "relativeStep", hp->relative_step, "warmupInit",
                     hp->warmup_init, "scaleParameter", hp->scale_parameter, "decayRate",
                     hexfloat(hp->decay_rate), "eps1", hexfloat(hp->eps1), "eps2",
                     hexfloat(hp->eps2), "clipThreshold", hexfloat(hp->clip_threshold),
                     "firstMoment", hp->first_moment, "beta1", hexfloat(hp->beta1),
                     "weightDecay", hexfloat(hp->weight_decay), "maximize", hp->maximize,
                     "factored", hp->factored, "minDimToFactor",
                     (json_int_t)hp->min_dim_to_factor);
}

/* Computes case tc (valid) or writes it as it is (invalid), and appends it. */
static void emit(ada_gen *gg, ada_case *tc)
{
    const size_t n = tc->rows * tc->cols;
    const int fact = factored_of(tc);
    json_t *t = json_object(), *rules = json_array(), *flags = json_array();
    static const char *const profile_rules[OC_ADAFACTOR_PROFILE_COUNT] = {
        "ADAFACTOR-PROF-PAPER", "ADAFACTOR-PROF-TORCH", "ADAFACTOR-PROF-HF",
        "ADAFACTOR-PROF-OPTAX"};
    for (int k = 0; k < 8 && tc->rules[k]; k++)
        json_array_append_new(rules, json_string(tc->rules[k]));
    json_array_append_new(rules, json_string(profile_rules[tc->hp.profile]));
    json_array_append_new(flags, json_string(tc->flag));
    json_object_set_new(t, "comment", json_string(tc->comment));
    json_object_set_new(t, "flags", flags);
    json_object_set_new(t, "specRules", rules);
    json_object_set_new(t, "result", json_string(tc->result));
    json_object_set_new(t, "shape", tc->ndim == 1 ? json_pack("[I]", (json_int_t)tc->cols)
                                                  : json_pack("[I,I]", (json_int_t)tc->rows,
                                                              (json_int_t)tc->cols));
    json_object_set_new(t, "firstStep", json_integer(tc->first_step));
    json_object_set_new(t, "steps", json_integer((json_int_t)tc->steps));
    json_t *in = json_pack("{s:o}", "p", hex_list(tc->p, n));
    if (tc->hp.first_moment)
        json_object_set_new(in, "m", hex_list(tc->m, n));
    if (fact) {
        json_object_set_new(in, "row", hex_list(tc->row, tc->rows));
        json_object_set_new(in, "col", hex_list(tc->col, tc->cols));
    } else {
        json_object_set_new(in, "v", hex_list(tc->v, n));
    }
    json_object_set_new(t, "inputs", in);
    json_t *gl = json_array();
    for (size_t k = 0; k < tc->steps; k++)
        json_array_append_new(gl, hex_list(tc->g[k], n));
    json_object_set_new(t, "g", gl);
    if (strcmp(tc->result, "valid") == 0) {
        mp w;
        ada_bound e;
        memset(&e, 0, sizeof e);
        mpfr_inits2(gg->opt->prec, w.a, w.b, w.c, w.sum, w.beta2, w.alpha, w.denom, w.norm,
                    (mpfr_ptr)0);
        for (size_t i = 0; i < n; i++)
            mpfr_inits2(gg->opt->prec, w.u[i], w.sq[i], (mpfr_ptr)0);
        json_t *st = json_array(), *f64 = json_array(), *tol = json_array();
        for (size_t k = 0; k < tc->steps; k++) {
            step_out o;
            step(gg, &w, tc, &e, tc->first_step + (int64_t)k, tc->g[k], &o);
            json_array_append_new(st, hex_list64(o.stored, o.len));
            json_array_append_new(f64, hex_list64(o.f64, o.len));
            json_array_append_new(tol, hex_list64(o.tol, o.len));
        }
        json_object_set_new(t, "expected",
                            json_pack("{s:o,s:o,s:o}", "stored", st, "f64", f64, "tolFp32", tol));
        mpfr_clears(w.a, w.b, w.c, w.sum, w.beta2, w.alpha, w.denom, w.norm, (mpfr_ptr)0);
        for (size_t i = 0; i < n; i++)
            mpfr_clears(w.u[i], w.sq[i], (mpfr_ptr)0);
    }
    family_group(gg->f, "Adafactor", hparams_json(&tc->hp));
    family_test(gg->f, t);
}

/* The profile's defaults (ADAFACTOR-PROF-*): its library's defaults where it has them, with
 * the parameter scale and relative step of the paper. */
static oc_adafactor_hparams defaults(oc_adafactor_profile pr)
{
    oc_adafactor_hparams hp = {.profile = pr, .lr = 1e-2f, .relative_step = 1,
                               .scale_parameter = 1, .decay_rate = 0.8f, .eps1 = 1e-30f,
                               .eps2 = 1e-3f, .clip_threshold = 1, .factored = 1};
    if (pr == OC_ADAFACTOR_TORCH)
        hp.eps1 = 0x1p-23; /* torch.finfo(torch.float32).eps */
    if (pr == OC_ADAFACTOR_TRANSFORMERS)
        hp.lr = 0; /* relative_step needs lr None: the cap is OC_ADAFACTOR_HF_CAP */
    if (pr == OC_ADAFACTOR_OPTAX) {
        hp.relative_step = 0;
        hp.min_dim_to_factor = 2; /* the default 128 factors no matrix this small: its case */
    }
    return hp;
}

/* A case of shape [cols] (rows 0) or [rows, cols] with random p and g, the state zero or
 * random (magnitude 2^vlo .. 2^vhi for the second moment). */
static ada_case make(ada_gen *gg, const char *comment, const char *flag, size_t rows,
                     size_t cols, size_t steps, int64_t first, int random_state)
{
    ada_case tc;
    memset(&tc, 0, sizeof tc);
    tc.hp = defaults(gg->profile);
    tc.comment = comment;
    tc.flag = flag;
    tc.result = "valid";
    tc.ndim = rows ? 2 : 1;
    tc.rows = rows ? rows : 1;
    tc.cols = cols;
    tc.steps = steps;
    tc.first_step = first;
    const size_t n = tc.rows * tc.cols;
    for (size_t i = 0; i < n; i++) {
        tc.p[i] = rng_mag(&gg->rng, -4, 1, 1);
        for (size_t k = 0; k < steps; k++)
            tc.g[k][i] = rng_mag(&gg->rng, -8, -1, 1);
        if (random_state) {
            tc.m[i] = rng_mag(&gg->rng, -12, -6, 1);
            tc.v[i] = rng_mag(&gg->rng, -12, -4, 0);
        }
    }
    for (size_t r = 0; random_state && r < tc.rows; r++)
        tc.row[r] = rng_mag(&gg->rng, -12, -4, 0);
    for (size_t c = 0; random_state && c < tc.cols; c++)
        tc.col[c] = rng_mag(&gg->rng, -12, -4, 0);
    return tc;
}

static void set_rules(ada_case *tc, const char *a, const char *b, const char *c)
{
    tc->rules[0] = "ADAFACTOR-STORE-1";
    tc->rules[1] = "ADAFACTOR-TOL-1";
    tc->rules[2] = "ADAFACTOR-TOL-2";
    tc->rules[3] = "ADAFACTOR-TOL-3";
    tc->rules[4] = a;
    tc->rules[5] = b;
    tc->rules[6] = c;
}

/* Gradients scaled by s at every step (clipping on or off). */
static void scale_g(ada_case *tc, float s)
{
    for (size_t k = 0; k < tc->steps; k++)
        for (size_t i = 0; i < tc->rows * tc->cols; i++)
            tc->g[k][i] *= s;
}

static void common_cases(ada_gen *gg)
{
    const oc_adafactor_profile pr = gg->profile;
    ada_case tc = make(gg, "vector, first step from zero state", "Vector", 0, 8, 1, 1, 0);
    set_rules(&tc, "ADAFACTOR-V-1", "ADAFACTOR-STEP-1", "ADAFACTOR-FACT-1");
    emit(gg, &tc);
    tc = make(gg, "matrix 4x6, first step from zero state", "Factored", 4, 6, 1, 1, 0);
    set_rules(&tc, "ADAFACTOR-FACTOR-1", "ADAFACTOR-V-1", "ADAFACTOR-FACT-1");
    emit(gg, &tc);
    tc = make(gg, "tall matrix 6x3 (optax normalises by the column statistic)", "Factored", 6, 3,
              1, 1, 0);
    set_rules(&tc, "ADAFACTOR-FACTOR-1", "ADAFACTOR-FACT-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "matrix 1x6 (factored although it has one row)", "Factored", 1, 6, 1, 1, 0);
    set_rules(&tc, "ADAFACTOR-FACT-1", "ADAFACTOR-FACTOR-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "matrix 5x4, 8 steps from zero state", "Trajectory", 5, 4, 8, 1, 0);
    set_rules(&tc, "ADAFACTOR-DECAY-1", "ADAFACTOR-FACTOR-1", "ADAFACTOR-CLIP-1");
    emit(gg, &tc);
    tc = make(gg, "vector, 8 steps from zero state", "Trajectory", 0, 6, 8, 1, 0);
    set_rules(&tc, "ADAFACTOR-DECAY-1", "ADAFACTOR-V-1", "ADAFACTOR-CLIP-1");
    emit(gg, &tc);
    tc = make(gg, "matrix 3x5, step 10, small state and large gradients: clipping active",
              "ClipActive", 3, 5, 2, 10, 1);
    scale_g(&tc, 64);
    set_rules(&tc, "ADAFACTOR-CLIP-1", "ADAFACTOR-FACTOR-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "vector, step 10, small state and large gradients: clipping active",
              "ClipActive", 0, 7, 2, 10, 1);
    scale_g(&tc, 64);
    set_rules(&tc, "ADAFACTOR-CLIP-1", "ADAFACTOR-V-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "matrix 4x4, step 10, large state and small gradients: clipping inactive",
              "ClipInactive", 4, 4, 2, 10, 1);
    scale_g(&tc, 1.0f / 64);
    set_rules(&tc, "ADAFACTOR-CLIP-1", "ADAFACTOR-FACTOR-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "vector, step 10, large state and small gradients: clipping inactive",
              "ClipInactive", 0, 6, 2, 10, 1);
    scale_g(&tc, 1.0f / 64);
    set_rules(&tc, "ADAFACTOR-CLIP-1", "ADAFACTOR-V-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "matrix 3x4 at step 10^5: rho_t = 1/sqrt(t) below the cap, beta2 near 1",
              "LateStep", 3, 4, 2, 100000, 1);
    set_rules(&tc, "ADAFACTOR-STEP-1", "ADAFACTOR-DECAY-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "vector of parameters far below eps2: the scale's floor", "ScaleFloor", 0, 6,
              2, 3, 1);
    for (size_t i = 0; i < 6; i++)
        tc.p[i] *= 0x1p-16f;
    set_rules(&tc, "ADAFACTOR-STEP-1", NULL, NULL);
    emit(gg, &tc);
    tc = make(gg, "matrix 3x3, eps1 = 1/4 above the gradients' squares", "LargeEps1", 3, 3, 2, 1,
              0);
    tc.hp.eps1 = 0.25f;
    set_rules(&tc, "ADAFACTOR-EPS-1", "ADAFACTOR-FACTOR-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "vector, eps1 = 1/4 above the gradients' squares", "LargeEps1", 0, 5, 2, 1, 0);
    tc.hp.eps1 = 0.25f;
    set_rules(&tc, "ADAFACTOR-EPS-1", "ADAFACTOR-V-1", NULL);
    emit(gg, &tc);
    tc = make(gg, "matrix 4x5, decay rate 0.5", "DecayRate", 4, 5, 3, 2, 1);
    tc.hp.decay_rate = 0.5f;
    set_rules(&tc, "ADAFACTOR-DECAY-1", NULL, NULL);
    emit(gg, &tc);
    tc = make(gg, "matrix 2x3, clipping threshold d = 2", "ClipActive", 2, 3, 2, 10, 1);
    scale_g(&tc, 64);
    tc.hp.clip_threshold = 2;
    set_rules(&tc, "ADAFACTOR-CLIP-1", NULL, NULL);
    emit(gg, &tc);
    if (pr != OC_ADAFACTOR_PAPER && pr != OC_ADAFACTOR_TORCH) {
        tc = make(gg, "matrix 3x4 with the first moment from a nonzero m", "FirstMoment", 3, 4,
                  3, 2, 1);
        tc.hp.first_moment = 1;
        tc.hp.beta1 = 0.9f;
        set_rules(&tc, "ADAFACTOR-MOM-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "vector with the first moment from a nonzero m", "FirstMoment", 0, 6, 3, 2,
                  1);
        tc.hp.first_moment = 1;
        tc.hp.beta1 = 0.5f;
        set_rules(&tc, "ADAFACTOR-MOM-1", NULL, NULL);
        emit(gg, &tc);
    }
    if (pr != OC_ADAFACTOR_PAPER) {
        tc = make(gg, "matrix 3x4 with weight decay 0.5", "WeightDecay", 3, 4, 2, 3, 1);
        tc.hp.weight_decay = 0.5f;
        set_rules(&tc, "ADAFACTOR-WD-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "vector with weight decay 0.25", "WeightDecay", 0, 6, 2, 3, 1);
        tc.hp.weight_decay = 0.25f;
        set_rules(&tc, "ADAFACTOR-WD-1", NULL, NULL);
        emit(gg, &tc);
    }
}

/* The options only some profiles have (ADAFACTOR-PROF-*). */
static void profile_cases(ada_gen *gg)
{
    ada_case tc;
    switch (gg->profile) {
    case OC_ADAFACTOR_TORCH:
        tc = make(gg, "maximize: the step follows -g", "Maximize", 3, 4, 2, 1, 0);
        tc.hp.maximize = 1;
        set_rules(&tc, "ADAFACTOR-STEP-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "lr = 1e-3 caps rho_t", "RelativeStep", 0, 6, 2, 4, 1);
        tc.hp.lr = 1e-3f;
        set_rules(&tc, "ADAFACTOR-STEP-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "zero gradient rows: V^ floored at eps1^2, mean(R) at eps1", "ZeroRows", 3,
                  4, 1, 1, 0);
        for (size_t c = 0; c < 4; c++)
            tc.g[0][4 + c] = 0;
        set_rules(&tc, "ADAFACTOR-EPS-1", "ADAFACTOR-FACTOR-1", NULL);
        emit(gg, &tc);
        break;
    case OC_ADAFACTOR_TRANSFORMERS:
        tc = make(gg, "relative_step off: lr = 1e-3 absolute", "RelativeStep", 3, 4, 2, 1, 0);
        tc.hp.relative_step = 0;
        tc.hp.lr = 1e-3f;
        set_rules(&tc, "ADAFACTOR-STEP-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "scale_parameter off", "ScaleOff", 0, 6, 2, 1, 0);
        tc.hp.scale_parameter = 0;
        set_rules(&tc, "ADAFACTOR-STEP-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "warmup_init: rho_t = min(1e-6 t, 1/sqrt(t))", "Warmup", 3, 3, 2, 5, 1);
        tc.hp.warmup_init = 1;
        set_rules(&tc, "ADAFACTOR-STEP-1", NULL, NULL);
        emit(gg, &tc);
        break;
    case OC_ADAFACTOR_OPTAX:
        tc = make(gg, "min_dim_size_to_factor 128: a 4x6 matrix is not factored", "Unfactored",
                  4, 6, 2, 1, 0);
        tc.hp.min_dim_to_factor = 128;
        set_rules(&tc, "ADAFACTOR-FACT-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "factored = False", "Unfactored", 3, 5, 2, 1, 0);
        tc.hp.factored = 0;
        set_rules(&tc, "ADAFACTOR-FACT-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "clipping_threshold None: no clipping", "ClipActive", 3, 4, 2, 10, 1);
        scale_g(&tc, 64);
        tc.hp.clip_threshold = 0;
        set_rules(&tc, "ADAFACTOR-CLIP-1", NULL, NULL);
        emit(gg, &tc);
        tc = make(gg, "multiply_by_parameter_scale False", "ScaleOff", 0, 6, 2, 1, 0);
        tc.hp.scale_parameter = 0;
        set_rules(&tc, "ADAFACTOR-STEP-1", NULL, NULL);
        emit(gg, &tc);
        break;
    default:
        break;
    }
}

/* Hyper-parameters out of range or options the profile does not have: rejected, nothing
 * written (ADAFACTOR-HP-1). */
static void invalid_cases(ada_gen *gg)
{
    static const char *const what[] = {"step 0", "lr < 0", "clipping threshold 1/2 < 1",
                                       "eps1 < 0", "weight decay < 0", "beta1 = 1",
                                       "lr NaN", "an option the profile does not have"};
    for (int k = 0; k < 8; k++) {
        ada_case tc = make(gg, what[k], "InvalidHparam", 2, 3, 1, 1, 0);
        tc.result = "invalid";
        tc.rules[0] = "ADAFACTOR-HP-1";
        switch (k) {
        case 0: tc.first_step = 0; break;
        case 1: tc.hp.lr = -1e-2f; break;
        case 2: tc.hp.clip_threshold = 0.5f; break;
        case 3: tc.hp.eps1 = -1e-30f; break;
        case 4: tc.hp.weight_decay = -0.25f; break;
        case 5: tc.hp.first_moment = 1; tc.hp.beta1 = 1; break;
        case 6: tc.hp.lr = NAN; break;
        default: /* torch and the paper: no first moment; the others: no maximize */
            if (gg->profile == OC_ADAFACTOR_TORCH || gg->profile == OC_ADAFACTOR_PAPER) {
                tc.hp.first_moment = 1;
                tc.hp.beta1 = 0.9f;
            } else {
                tc.hp.maximize = 1;
            }
        }
        emit(gg, &tc);
    }
}

/* Random matrices and vectors (the cert level has more and larger). */
static void random_cases(ada_gen *gg, int count)
{
    for (int k = 0; k < count; k++) {
        const size_t rows = (size_t)rng_int(&gg->rng, 8), cols = 1 + (size_t)rng_int(&gg->rng, 8);
        ada_case tc = make(gg, "random shape and state", "Random", rows, cols,
                           1 + (size_t)rng_int(&gg->rng, 4), 1 + rng_int(&gg->rng, 50), 1);
        set_rules(&tc, "ADAFACTOR-V-1", "ADAFACTOR-FACTOR-1", "ADAFACTOR-CLIP-1");
        emit(gg, &tc);
    }
}

/* The other boundaries of ADAFACTOR-HP-1 (every boundary of a parameter has a case): the decay
 * rate, eps2 and beta1 below 0, lr and d infinite; rejected, nothing written. After the random
 * cases, so that every earlier case keeps its tcId and values. */
static void boundary_cases(ada_gen *gg)
{
    static const char *const what[] = {"decay rate < 0", "eps2 < 0", "lr infinite",
                                       "clipping threshold infinite",
                                       "beta1 < 0 with the first moment"};
    for (int k = 0; k < 5; k++) {
        ada_case tc = make(gg, what[k], "InvalidHparam", 2, 3, 1, 1, 0);
        tc.result = "invalid";
        tc.rules[0] = "ADAFACTOR-HP-1";
        switch (k) {
        case 0: tc.hp.decay_rate = -0.8f; break;
        case 1: tc.hp.eps2 = -1e-3f; break;
        case 2: tc.hp.lr = INFINITY; break;
        case 3: tc.hp.clip_threshold = INFINITY; break;
        default: tc.hp.first_moment = 1; tc.hp.beta1 = -0.5f;
        }
        emit(gg, &tc);
    }
}

/* ADAFACTOR-PROF-*: each option a profile's library does not have, one case each (the options
 * of the profile's own library are valid cases above); rejected, nothing written. */
static void option_cases(ada_gen *gg)
{
    enum { NO_RELATIVE, WARMUP, NO_SCALE, NO_CLIP, DECAY, MAXIMIZE, NOT_FACTORED, MIN_DIM,
           LR_WITH_RELATIVE, WARMUP_WITHOUT_RELATIVE, RELATIVE, EPS2 };
    static const char *const what[] = {
        "no relative step", "warmup_init", "no parameter scale", "no clipping (d = 0)",
        "weight decay", "maximize", "factored off (optax's option)",
        "min_dim_to_factor 1 (optax's option)", "an lr with the relative step",
        "warmup_init without the relative step", "the relative step", "eps2 other than 1e-3"};
    static const int paper[] = {NO_RELATIVE, WARMUP, NO_SCALE, NO_CLIP, DECAY, MAXIMIZE,
                                NOT_FACTORED, MIN_DIM, -1};
    static const int torch[] = {NO_RELATIVE, WARMUP, NO_SCALE, NO_CLIP, NOT_FACTORED, MIN_DIM, -1};
    static const int hf[] = {NO_CLIP, NOT_FACTORED, MIN_DIM, LR_WITH_RELATIVE,
                             WARMUP_WITHOUT_RELATIVE, -1};
    static const int optax[] = {RELATIVE, WARMUP, EPS2, -1};
    static const int *const lacks[OC_ADAFACTOR_PROFILE_COUNT] = {paper, torch, hf, optax};
    static const char *const rule[OC_ADAFACTOR_PROFILE_COUNT] = {
        "ADAFACTOR-PROF-PAPER", "ADAFACTOR-PROF-TORCH", "ADAFACTOR-PROF-HF", "ADAFACTOR-PROF-OPTAX"};
    for (const int *k = lacks[gg->profile]; *k >= 0; k++) {
        ada_case tc = make(gg, what[*k], "InvalidHparam", 2, 3, 1, 1, 0);
        tc.result = "invalid";
        tc.rules[0] = rule[gg->profile];
        oc_adafactor_hparams *h = &tc.hp;
        switch (*k) {
        case NO_RELATIVE: h->relative_step = 0; break;
        case WARMUP: h->warmup_init = 1; break;
        case NO_SCALE: h->scale_parameter = 0; break;
        case NO_CLIP: h->clip_threshold = 0; break;
        case DECAY: h->weight_decay = 0.01f; break;
        case MAXIMIZE: h->maximize = 1; break;
        case NOT_FACTORED: h->factored = 0; break;
        case MIN_DIM: h->min_dim_to_factor = 1; break;
        case LR_WITH_RELATIVE: h->lr = 1e-2f; break;
        case WARMUP_WITHOUT_RELATIVE: h->relative_step = 0; h->lr = 1e-2f; h->warmup_init = 1; break;
        case RELATIVE: h->relative_step = 1; break;
        default: h->eps2 = 1e-2f;
        }
        emit(gg, &tc);
    }
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"Vector", "BASIC", "a vector: unfactored second moment", "per-element V"},
        {"Factored", "BASIC", "a matrix: row and column statistics", "V^ = R C / mean(R)"},
        {"Trajectory", "TRAJECTORY", "several steps from zero state",
         "beta2_t and the statistics over steps"},
        {"ClipActive", "EDGE_CASE", "RMS(U) above d", "the update is clipped"},
        {"ClipInactive", "EDGE_CASE", "RMS(U) below d", "the update is not scaled"},
        {"LateStep", "EDGE_CASE", "t = 10^5", "rho_t below its cap, beta2 near 1"},
        {"ScaleFloor", "EDGE_CASE", "RMS(X) below eps2", "alpha uses eps2"},
        {"LargeEps1", "KNOWN_MISTAKE", "eps1 larger than the gradients' squares",
         "where eps1 enters the second moment matters (torch floors V^ instead)"},
        {"DecayRate", "BASIC", "another decay rate", "beta2_t = 1 - t^-c"},
        {"FirstMoment", "BASIC", "beta1 with a nonzero m", "m averages alpha U^"},
        {"WeightDecay", "KNOWN_MISTAKE", "weight decay", "each library's form differs"},
        {"Maximize", "BASIC", "maximize", "the step follows -g"},
        {"RelativeStep", "BASIC", "lr as the cap or the step", "rho_t"},
        {"ScaleOff", "BASIC", "no parameter scale", "alpha = rho"},
        {"Warmup", "BASIC", "warmup_init", "rho_t = min(1e-6 t, 1/sqrt t)"},
        {"ZeroRows", "EDGE_CASE", "rows of zero gradient", "torch's floors"},
        {"Unfactored", "EDGE_CASE", "a matrix optax does not factor", "per-element V"},
        {"Random", "BASIC", "random shapes and states", "typical values"},
        {"InvalidHparam", "INVALID_INPUT", "hyper-parameters out of range",
         "rejected with nothing written"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

static int gen_adafactor(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {
        "ADAFACTOR-HP-1", "ADAFACTOR-FACT-1", "ADAFACTOR-DECAY-1", "ADAFACTOR-EPS-1",
        "ADAFACTOR-V-1", "ADAFACTOR-FACTOR-1", "ADAFACTOR-STEP-1", "ADAFACTOR-CLIP-1",
        "ADAFACTOR-MOM-1", "ADAFACTOR-WD-1", "ADAFACTOR-STORE-1", "ADAFACTOR-TOL-1",
        "ADAFACTOR-TOL-2", "ADAFACTOR-TOL-3", "ADAFACTOR-PROF-PAPER", "ADAFACTOR-PROF-TORCH",
        "ADAFACTOR-PROF-HF", "ADAFACTOR-PROF-OPTAX", NULL};
    static const char *const names[OC_ADAFACTOR_PROFILE_COUNT] = {"paper", "torch",
                                                                  "transformers", "optax"};
    const int cert = strcmp(opt->level, "cert") == 0;
    for (int pr = 0; pr < OC_ADAFACTOR_PROFILE_COUNT; pr++) {
        family f;
        char name[64];
        snprintf(name, sizeof name, "adafactor-%s", names[pr]);
        ada_gen gg = {.f = &f, .opt = opt, .rng = {opt->seed ^ (0xada0ull << 40) ^ (uint64_t)pr},
                      .profile = (oc_adafactor_profile)pr};
        if (family_init(&f, name, "adafactor", names[pr], rules, opt))
            return -1;
        family_inline(&f);
        notes(&f);
        common_cases(&gg);
        profile_cases(&gg);
        invalid_cases(&gg);
        random_cases(&gg, cert ? 64 : 6);
        boundary_cases(&gg);
        option_cases(&gg);
        int rc = family_save(&f, outdir);
        family_free(&f);
        if (rc)
            return rc;
    }
    return 0;
}

/* Writes vectors/adafactor-<profile> (spec/adafactor.md). */
const gen_family gen_family_adafactor = {.name = "adafactor", .generate = gen_adafactor};
