/* The adafactor family's descriptor (spec/adafactor.md): values inline in the JSON
 * (VEC-FMT-21). A test is one tensor (a vector or a matrix) over `steps` steps; its one output,
 * "state", packs the tensor's stored state after each step: p, then m (with the first
 * moment), then v (unfactored) or row and col (factored) (ADAFACTOR-STORE-1);
 * adafactor_quantity names each entry. Judged element by element against tolFp32
 * (ADAFACTOR-TOL-1/2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "judge.h"
#include "vectors.h"
#include "ref_impl.h"
#include "tolcap.h"
#include "../mutants/adafactor.h"
#include "../../common/adafactor_tolerance.h"

#define ADA_MAX_ELEMENTS (1u << 16)

/* c->positions: the shape. */
enum { POS_NDIM, POS_ROWS, POS_COLS, POS_COUNT };

static const char *ada_mutant(int mu) { return oc_adafactor_mutant_name((oc_adafactor_mutant)mu); }
static int ada_nstate(const oc_hparams *hp) { return (void)hp, 1; }

static oc_status get_int_field(const char *path, json_t *h, const char *key, int64_t lo,
                               int64_t hi, int64_t *out, oc_diag *d)
{
    json_t *v = json_object_get(h, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.%s must be an integer in [%lld, %lld]",
                       path, key, (long long)lo, (long long)hi);
    *out = json_integer_value(v);
    return OC_OK;
}

/* VEC-FMT-21: the hyper-parameters of ADAFACTOR-HP-1, every one present in every profile. */
static oc_status ada_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                           oc_diag *d)
{
    oc_adafactor_hparams *hp = &u->adafactor;
    oc_status st;
    if (oc_adafactor_profile_parse(profile, &hp->profile) != OC_OK)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown adafactor profile '%s'", path, profile);
    if ((st = oc_get_hex(path, h, "lr", &hp->lr, d)) ||
        (st = oc_get_bool(path, h, "relativeStep", &hp->relative_step, d)) ||
        (st = oc_get_bool(path, h, "warmupInit", &hp->warmup_init, d)) ||
        (st = oc_get_bool(path, h, "scaleParameter", &hp->scale_parameter, d)) ||
        (st = oc_get_hex(path, h, "decayRate", &hp->decay_rate, d)) ||
        (st = oc_get_hex(path, h, "eps1", &hp->eps1, d)) ||
        (st = oc_get_hex(path, h, "eps2", &hp->eps2, d)) ||
        (st = oc_get_hex(path, h, "clipThreshold", &hp->clip_threshold, d)) ||
        (st = oc_get_bool(path, h, "firstMoment", &hp->first_moment, d)) ||
        (st = oc_get_hex(path, h, "beta1", &hp->beta1, d)) ||
        (st = oc_get_hex(path, h, "weightDecay", &hp->weight_decay, d)) ||
        (st = oc_get_bool(path, h, "maximize", &hp->maximize, d)) ||
        (st = oc_get_bool(path, h, "factored", &hp->factored, d)) ||
        (st = get_int_field(path, h, "minDimToFactor", 0, 1 << 30, &hp->min_dim_to_factor, d)))
        return st;
    return OC_OK;
}

static oc_adafactor_shape shape_of(const oc_case *c)
{
    return (oc_adafactor_shape){(int)c->positions[POS_NDIM], (size_t)c->positions[POS_ROWS],
                                (size_t)c->positions[POS_COLS]};
}

/* The packed state's parts (ADAFACTOR-STORE-1): their names and lengths, in order. */
typedef struct layout {
    int count;
    const char *name[4];
    size_t len[4];
} layout;

static layout layout_of(const oc_adafactor_hparams *hp, oc_adafactor_shape sh)
{
    const size_t n = sh.rows * sh.cols;
    layout l = {0, {0}, {0}};
    l.name[l.count] = "p";
    l.len[l.count++] = n;
    if (hp->first_moment) {
        l.name[l.count] = "m";
        l.len[l.count++] = n;
    }
    if (oc_adafactor_factored(hp, sh)) {
        l.name[l.count] = "row";
        l.len[l.count++] = sh.rows;
        l.name[l.count] = "col";
        l.len[l.count++] = sh.cols;
    } else {
        l.name[l.count] = "v";
        l.len[l.count++] = n;
    }
    return l;
}

static const char *ada_quantity(const oc_case *c, int k, size_t j)
{
    (void)k;
    const layout l = layout_of(&c->hp.adafactor, shape_of(c));
    j %= c->n;
    for (int q = 0; q < l.count; q++) {
        if (j < l.len[q])
            return l.name[q];
        j -= l.len[q];
    }
    return "state";
}

/* A JSON array of `rows` arrays of n hex floats exact in binary64 (wide) or binary32. */
static oc_status get_rows(const char *path, int tcid, json_t *a, const char *key, size_t rows,
                          size_t n, int wide, double *out, oc_diag *d)
{
    if (!json_is_array(a) || json_array_size(a) != rows)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: %s needs %zu lists", path, tcid, key, rows);
    for (size_t r = 0; r < rows; r++) {
        json_t *row = json_array_get(a, r);
        if (!json_is_array(row) || json_array_size(row) != n)
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: %s[%zu] needs %zu values", path, tcid,
                           key, r, n);
        for (size_t i = 0; i < n; i++) {
            json_t *one = json_pack("{s:O}", key, json_array_get(row, i));
            oc_status s = wide ? oc_get_hex64(path, one, key, &out[r * n + i], d)
                               : oc_get_hex(path, one, key, &out[r * n + i], d);
            json_decref(one);
            if (s != OC_OK)
                return s;
        }
    }
    return OC_OK;
}

/* The shape [n] or [rows, cols], at most ADA_MAX_ELEMENTS entries. */
static oc_status get_shape(const char *path, int tcid, json_t *a, int64_t *pos, oc_diag *d)
{
    const size_t nd = json_array_size(a);
    json_int_t dim[2] = {0, 0};
    for (size_t k = 0; k < nd && k < 2; k++)
        dim[k] = json_integer_value(json_array_get(a, k));
    const json_int_t rows = nd == 2 ? dim[0] : 1, cols = nd == 2 ? dim[1] : dim[0];
    if (!json_is_array(a) || nd < 1 || nd > 2 || rows < 1 || cols < 1 ||
        rows * cols > (json_int_t)ADA_MAX_ELEMENTS)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: shape must be [n] or [rows, cols] with "
                       "1 to 2^16 elements", path, tcid);
    pos[POS_NDIM] = (int64_t)nd;
    pos[POS_ROWS] = rows;
    pos[POS_COLS] = cols;
    return OC_OK;
}

/* "shape", "firstStep", "steps", "inputs" (p, m, v or row and col: hex floats), "g" (a list
 * per step) and, valid tests, "expected" {"stored", "f64", "tolFp32"} (a packed list per
 * step). */
static oc_status ada_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                               oc_diag *d)
{
    (void)st;
    int64_t steps = 0;
    oc_status s;
    c->positions = calloc(POS_COUNT, sizeof *c->positions);
    if ((s = get_shape(path, c->tcid, json_object_get(t, "shape"), c->positions, d)) ||
        (s = oc_get_int(path, c->tcid, t, "steps", 1, 64, &steps, d)) ||
        (s = oc_get_int(path, c->tcid, t, "firstStep", INT64_MIN / 2, INT64_MAX / 2,
                        &c->first_step, d)))
        return s;
    const oc_adafactor_shape sh = shape_of(c);
    const layout l = layout_of(&c->hp.adafactor, sh);
    const size_t n = sh.rows * sh.cols;
    c->steps = (size_t)steps;
    c->n = 0;
    for (int q = 0; q < l.count; q++)
        c->n += l.len[q];
    c->in[0] = calloc(c->n, sizeof(float));
    c->g = calloc(c->steps * n, sizeof(float));
    double *buf = calloc(c->steps * (c->n > n ? c->n : n), sizeof(double));
    json_t *in = json_object_get(t, "inputs");
    size_t at = 0;
    for (int q = 0; q < l.count && !s; q++) {
        s = oc_get_hex_array(path, c->tcid, json_object_get(in, l.name[q]), l.len[q],
                             c->in[0] + at, d);
        at += l.len[q];
    }
    if (!s && !(s = get_rows(path, c->tcid, json_object_get(t, "g"), "g", c->steps, n, 0, buf, d)))
        for (size_t i = 0; i < c->steps * n; i++)
            c->g[i] = (float)buf[i];
    if (s || c->result != OC_RESULT_VALID) {
        free(buf);
        return s;
    }
    json_t *ex = json_object_get(t, "expected");
    double **dest[3] = {&c->exp[0].stored, &c->exp[0].f64, &c->exp[0].tol};
    static const char *const keys[3] = {"stored", "f64", "tolFp32"};
    for (int k = 0; k < 3 && !s; k++) {
        *dest[k] = calloc(c->steps * c->n, sizeof(double));
        s = get_rows(path, c->tcid, json_object_get(ex, keys[k]), keys[k], c->steps, c->n, k > 0,
                     *dest[k], d);
    }
    free(buf);
    if (s)
        return s;
    /* VEC-TOL-1: every bound within 2^-4 of its entry's magnitude so far */
    return oc_check_tol_entries(path, c->tcid, "state", c->exp[0].tol, c->exp[0].f64, c->in[0],
                                c->steps, c->n, OC_FMT_F32, d);
}

/* The guarded buffers of one call (VEC-PLUG-3) filled from the packed state. */
typedef struct ada_buffers {
    oc_adafactor_state s;
    float *part[4];
    float *g;
} ada_buffers;

static void setup(const layout *l, const float *state, const float *g, size_t n, ada_buffers *b)
{
    memset(b, 0, sizeof *b);
    size_t at = 0;
    for (int q = 0; q < l->count; q++) {
        b->part[q] = oc_guarded_copy(state + at, l->len[q] * sizeof(float));
        at += l->len[q];
        const char *name = l->name[q];
        float **slot = strcmp(name, "p") == 0   ? &b->s.p
                       : strcmp(name, "m") == 0 ? &b->s.m
                       : strcmp(name, "v") == 0 ? &b->s.v
                       : strcmp(name, "row") == 0 ? &b->s.row
                                                   : &b->s.col;
        *slot = b->part[q];
    }
    b->g = oc_guarded_copy(g, n * sizeof(float));
}

/* Each step on fresh guarded buffers: g must stay as it was (VEC-PLUG-2), nothing written past
 * a state buffer (VEC-PLUG-3), and a rejected call must leave the state alone. */
static void ada_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                    int *dirty)
{
    const oc_adafactor_shape sh = shape_of(c);
    const layout l = layout_of(&c->hp.adafactor, sh);
    const size_t n = sh.rows * sh.cols;
    float *state = malloc(c->n * sizeof(float));
    memcpy(state, c->in[0], c->n * sizeof(float));
    o->out[0] = calloc(c->steps * c->n + 1, sizeof(double));
    *st = OC_OK;
    for (size_t k = 0; k < c->steps && *st == OC_OK; k++) {
        ada_buffers b;
        setup(&l, state, c->g + k * n, n, &b);
        *st = OC_ENTRY(impl, oc_adafactor_step_fn)(impl->ctx, &c->hp.adafactor, sh,
                                   c->first_step + (int64_t)k, &b.s, b.g);
        oc_check_input(o, "g", b.g, c->g + k * n, n * sizeof(float));
        size_t at = 0;
        for (int q = 0; q < l.count; q++) {
            oc_check_output(o, l.name[q], b.part[q], l.len[q] * sizeof(float));
            if (*st != OC_OK && memcmp(b.part[q], state + at, l.len[q] * sizeof(float)) != 0)
                *dirty = 1;
            if (*st == OC_OK)
                memcpy(state + at, b.part[q], l.len[q] * sizeof(float));
            at += l.len[q];
            free(b.part[q]);
        }
        free(b.g);
        for (size_t j = 0; *st == OC_OK && j < c->n; j++)
            o->out[0][k * c->n + j] = state[j];
    }
    free(state);
}

/* The parts of a packed state (p, m, v or row and col: ADAFACTOR-STORE-1) inside x. */
static ada_tol_parts parts_at(const layout *l, double *x)
{
    ada_tol_parts parts = {0};
    for (int q = 0; q < l->count; q++) {
        const char *name = l->name[q];
        double **slot = strcmp(name, "p") == 0   ? &parts.p
                        : strcmp(name, "m") == 0 ? &parts.m
                        : strcmp(name, "v") == 0 ? &parts.v
                        : strcmp(name, "row") == 0 ? &parts.row
                                                    : &parts.col;
        *slot = x;
        x += l->len[q];
    }
    return parts;
}

/* Step t's quantities in binary64 from the stored state before it (b), the golden statistics
 * after it (a) and the gradient g (ADAFACTOR-STEP-1, -EPS-1, -V-1, -FACTOR-1, -CLIP-1): what
 * the generator takes from MPFR, here evaluated in binary64. */
static void step_quantities(ada_tol_step *q, int64_t t, const float *g, double *sample,
                            double *delta)
{
    const oc_adafactor_hparams *hp = q->hp;
    const size_t R = q->rows, C = q->cols, n = R * C;
    const int torch = hp->profile == OC_ADAFACTOR_TORCH;
    q->wt = pow((double)t, -hp->decay_rate);
    q->beta = 1 - q->wt;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += q->before.p[i] * q->before.p[i];
    q->rms_p = sqrt(sum / (double)n);
    q->alpha = hp->lr;
    if (hp->relative_step) {
        const double cap = hp->warmup_init ? OC_ADAFACTOR_HF_WARMUP * (double)t
                           : hp->profile == OC_ADAFACTOR_TRANSFORMERS ? OC_ADAFACTOR_HF_CAP
                                                                       : hp->lr;
        q->alpha = fmin(1 / sqrt((double)t), cap);
    }
    if (hp->scale_parameter) {
        q->scale = fmax(hp->eps2, q->rms_p);
        q->alpha *= q->scale;
    }
    for (size_t i = 0; q->factored && i < R + C; i++)
        sample[i] = 0;
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < C; c++) {
            const double gi = g[r * C + c], sq = gi * gi + (torch ? 0 : hp->eps1);
            if (!q->factored)
                sample[r * C + c] = sq;
            else
                sample[r] += sq / (double)C, sample[R + c] += sq / (double)R;
        }
    if (q->factored) {
        const size_t k = q->by_col ? C : R;
        const double *stat = q->by_col ? q->after.col : q->after.row;
        q->norm = 0;
        for (size_t i = 0; i < k; i++)
            q->norm += stat[i] / (double)k;
        if (torch)
            q->norm = fmax(q->norm, hp->eps1);
    }
    double sum_u = 0;
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < C; c++) {
            const size_t i = r * C + c;
            double v = q->factored ? q->after.row[r] * q->after.col[c] / q->norm : q->after.v[i];
            if (torch)
                v = fmax(v, hp->eps1 * hp->eps1);
            delta[i] = g[i] == 0 ? 0 : g[i] / sqrt(v);
            sum_u += delta[i] * delta[i];
        }
    const double rms_u = sqrt(sum_u / (double)n);
    const double denom = hp->clip_threshold != 0 ? fmax(rms_u / hp->clip_threshold, 1) : 1;
    for (size_t i = 0; i < n; i++)
        delta[i] *= q->alpha / denom;
}

/* VEC-TOL-2: every tolFp32 entry of a valid case at most ADAFACTOR-TOL-2's bound, the shared
 * model (common/adafactor_tolerance.c) evaluated on the harness's own binary64 quantities of
 * each step (step_quantities) from the golden stored trajectory, carried from step to step and
 * widened by the slack. */
static oc_status ada_cap_tolerances(const char *path, const oc_case *c, oc_tolcap_stats *stats,
                                    oc_diag *d)
{
    const oc_adafactor_hparams *hp = &c->hp.adafactor;
    const oc_adafactor_shape sh = shape_of(c);
    const layout l = layout_of(hp, sh);
    const size_t n = sh.rows * sh.cols, N = c->n;
    double *buf = calloc(5 * N + 4 * n + sh.rows + sh.cols, sizeof(double));
    if (!buf)
        return oc_fail(d, OC_ERR_INTERNAL, "out of memory checking tolerances of %s", path);
    double *before = buf, *after = before + N, *golden = after + N, *E = golden + N,
           *delta = E + N, *sample = delta + n, *work = sample + n + sh.rows + sh.cols;
    ada_tol_step q = {.hp = hp, .rows = sh.rows, .cols = sh.cols,
                      .factored = oc_adafactor_factored(hp, sh),
                      .sample = sample, .delta = delta};
    q.by_col = q.factored && hp->profile == OC_ADAFACTOR_OPTAX && sh.rows > sh.cols;
    q.before = parts_at(&l, before);
    q.after = parts_at(&l, after);
    q.golden = parts_at(&l, golden);
    ada_tol_parts carried = parts_at(&l, E);
    oc_status s = OC_OK;
    for (size_t k = 0; k < c->steps && s == OC_OK; k++) {
        for (size_t j = 0; j < N; j++) {
            before[j] = k == 0 ? c->in[0][j] : c->exp[0].stored[(k - 1) * N + j];
            after[j] = c->exp[0].stored[k * N + j];
            golden[j] = c->exp[0].f64[k * N + j];
        }
        step_quantities(&q, c->first_step + (int64_t)k, c->g + k * n, sample, delta);
        ada_tol_step_bounds(&q, &carried, work);
        for (size_t j = 0; j < N && s == OC_OK; j++)
            s = oc_tolcap_within(path, c, 0, k * N + j, oc_tolcap_widen(E[j]), stats, d);
    }
    free(buf);
    return s;
}

/* The case's hyper-parameters: oc_hparams.adafactor (algos.h). */
OC_HPARAMS(oc_adafactor_hparams, adafactor);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_adafactor(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                               int64_t step, oc_adafactor_state *s, const float *g)
{
    if (oc_adafactor_check(hp, sh, step) != OC_OK) /* the reference's status, nothing written */
        return oc_ref_adafactor_step(hp, sh, step, s, g, NULL, 0);
    size_t len = oc_adafactor_work_len(sh);
    double *work = malloc(len * sizeof *work);
    oc_status st = work ? oc_adafactor_mutant_step(
                              (oc_adafactor_mutant)oc_ref_mutant_of(ctx, &oc_algo_adafactor), hp,
                              sh, step, s, g, work, len)
                        : OC_ERR_INTERNAL;
    free(work);
    return st;
}

const oc_algo oc_algo_adafactor = {
    .name = "adafactor",
    .group_type = "Adafactor",
    .state_names = {"state"},
    .precision = 24,
    .nmutants = OC_ADAFACTOR_MUTANT_COUNT,
    .mutant_name = ada_mutant,
    .nstate = ada_nstate,
    .parse = ada_parse,
    .load_case = ada_load_case,
    .run = ada_run,
    .alg = OC_ALG_COUNT,
    .quantity = ada_quantity,
    .cap_tolerances = ada_cap_tolerances,
    .reference = (oc_entry_point)ref_adafactor,
};
