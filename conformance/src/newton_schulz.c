/* The Newton–Schulz and Muon families in the harness (spec/muon.md NS-*, MUON-*): matrices
 * judged as a whole by NS-TOL-1 / MUON-TOL-1 (Frobenius bound and singular-value band) instead
 * of element by element. A case stores its shape as steps = rows, n = cols, so that results
 * files and the shared loaders see each output as one [rows, cols] tensor; exp[k].tol holds the
 * tolerance table [class][frobenius, band] of output k (VEC-FMT-12). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/muon.h"
#include "algos.h"
#include "judge.h"
#include "tolcap.h"
#include "../../common/muon_tolerance.h"
#include "../../common/ns_tolerance.h"
#include "../../common/singular_values.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/muon.h"
#include "../mutants/newton_schulz.h"

static const char *ns_mutant(int mu) { return oc_ns_mutant_name((oc_ns_mutant)mu); }
static int ns_nstate(const oc_hparams *hp) { return (void)hp, 1; }

/* A hex float (VEC-FMT-1) that is an element of an array rather than an object member. */
static oc_status hex_value(const char *path, json_t *v, double *out, oc_diag *d)
{
    json_t *wrap = json_pack("{s:O}", "coefficients[]", v);
    oc_status st = oc_get_hex(path, wrap, "coefficients[]", out, d);
    json_decref(wrap);
    return st;
}

/* The Newton-Schulz fields of a group's hparams (VEC-FMT-12); hp->profile is the caller's. */
static oc_status ns_fields(const char *path, json_t *h, oc_ns_hparams *hp, oc_diag *d)
{
    oc_status st;
    json_t *coef = json_object_get(h, "coefficients"), *steps = json_object_get(h, "steps");
    const char *sched = json_string_value(json_object_get(h, "schedule"));
    const char *mode = json_string_value(json_object_get(h, "epsMode"));
    if (!json_is_array(coef) || json_array_size(coef) < 1 ||
        json_array_size(coef) > OC_NS_MAX_COEFS)
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.coefficients must be 1 to %d [a, b, c]",
                       path, OC_NS_MAX_COEFS);
    hp->ncoef = (int)json_array_size(coef);
    for (int t = 0; t < hp->ncoef; t++) {
        json_t *abc = json_array_get(coef, (size_t)t);
        if (!json_is_array(abc) || json_array_size(abc) != 3)
            return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.coefficients[%d] must be [a, b, c]",
                           path, t);
        for (int k = 0; k < 3; k++)
            if ((st = hex_value(path, json_array_get(abc, (size_t)k), &hp->coef[t][k], d)))
                return st;
    }
    if (!json_is_integer(steps) || json_integer_value(steps) < 1 ||
        json_integer_value(steps) > OC_NS_MAX_STEPS)
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.steps must be 1 to %d", path,
                       OC_NS_MAX_STEPS);
    hp->steps = (int)json_integer_value(steps);
    if (!sched || (strcmp(sched, "cycle") != 0 && strcmp(sched, "repeat_last") != 0) || !mode ||
        (strcmp(mode, "add") != 0 && strcmp(mode, "max") != 0))
        return oc_fail(d, OC_ERR_FORMAT,
                       "%s: hparams.schedule must be cycle|repeat_last, epsMode add|max", path);
    hp->schedule = strcmp(sched, "cycle") == 0 ? OC_NS_CYCLE : OC_NS_REPEAT_LAST;
    hp->eps_mode = strcmp(mode, "add") == 0 ? OC_NS_EPS_ADD : OC_NS_EPS_MAX;
    if ((st = oc_get_hex(path, h, "eps", &hp->eps, d)) ||
        (st = oc_get_hex(path, h, "normScale", &hp->norm_scale, d)))
        return st;
    return OC_OK;
}

static oc_status ns_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                          oc_diag *d)
{
    if (oc_ns_profile_parse(profile, &u->ns.profile) != OC_OK)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown Newton-Schulz profile '%s'", path, profile);
    return ns_fields(path, h, &u->ns, d);
}

/* VEC-FMT-12: rows, cols, the input matrices `inputs` [rows, cols] into c->in[], and for every
 * output (state_names) expected.<name>.{f32, f64} [rows, cols] and expected.<name>.tol [4, 2]. */
static oc_status matrix_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                             oc_diag *d, const char *const *inputs, int ninputs)
{
    oc_status s;
    int64_t rows = 0, cols = 0;
    if (!st)
        return oc_fail(d, OC_ERR_FORMAT, "%s: newton_schulz families need a tensors file", path);
    if ((s = oc_get_int(path, c->tcid, t, "rows", 1, OC_NS_MAX_ELEMS, &rows, d)) ||
        (s = oc_get_int(path, c->tcid, t, "cols", 1, OC_NS_MAX_ELEMS / rows, &cols, d)))
        return s;
    c->steps = (size_t)rows;
    c->n = (size_t)cols;
    c->first_step = 1;
    json_t *in = json_object_get(t, "inputs"), *ex = json_object_get(t, "expected");
    if (!json_is_object(in))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: missing inputs", path, c->tcid);
    for (int k = 0; k < ninputs; k++)
        if ((s = oc_tensor_ref(st, path, c->tcid, in, inputs[k], OC_F32, c->steps, c->n,
                               (void **)&c->in[k], d)))
            return s;
    if (c->result != OC_RESULT_VALID)
        return OC_OK;
    for (int k = 0; k < c->nstate; k++) {
        const char *name = c->algo->state_names[k];
        json_t *x = json_is_object(ex) ? json_object_get(ex, name) : NULL;
        const char *f32 = json_string_value(json_object_get(x, "f32"));
        if (!json_is_object(x) || !f32)
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: valid case without expected.%s.f32",
                           path, c->tcid, name);
        if ((s = oc_st_tensor_widened(st, f32, OC_FMT_F32, c->steps, c->n, &c->exp[k].stored, d)) ||
            (s = oc_tensor_ref(st, path, c->tcid, x, "f64", OC_F64, c->steps, c->n,
                               (void **)&c->exp[k].f64, d)) ||
            (s = oc_tensor_ref(st, path, c->tcid, x, "tol", OC_F64, OC_NCLASSES, 2,
                               (void **)&c->exp[k].tol, d)))
            return s;
        if ((s = oc_check_tol_classes(path, c->tcid, name, c->exp[k].tol, c->exp[k].f64,
                                      c->steps * c->n, d)))
            return s;
    }
    return OC_OK;
}

static oc_status ns_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                              oc_diag *d)
{
    static const char *const inputs[] = {"g"};
    return matrix_case(path, st, t, c, d, inputs, 1);
}

/* One call; outputs [rows * cols]. *dirty: the call failed but wrote to its output buffer. */
static void ns_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                   int *dirty)
{
    size_t len = c->steps * c->n, bytes = len * sizeof(float);
    float *out = oc_alloc_guarded(bytes), *snap = malloc(bytes), *g = oc_alloc_guarded(bytes);
    for (size_t i = 0; i < len; i++)
        out[i] = snap[i] = -0x1.5p-3f * (float)(i % 7); /* a pattern a correct call rewrites */
    memcpy(g, c->in[0], bytes);
    *st = OC_ENTRY(impl, oc_newton_schulz_fn)(impl->ctx, &c->hp.ns, c->steps, c->n, g, out);
    oc_check_input(o, "g", g, c->in[0], bytes); /* VEC-PLUG-2, VEC-PLUG-3 */
    oc_check_output(o, "out", out, bytes);
    if (*st == OC_OK) {
        o->out[0] = malloc((len + 1) * sizeof(double));
        for (size_t i = 0; i < len; i++)
            o->out[0][i] = out[i];
    } else {
        *dirty = memcmp(out, snap, len * sizeof *out) != 0;
    }
    free(out);
    free(snap);
    free(g);
}

/* ||a - b||_F and max_i |sigma_i(a) - sigma_i(b)| of two rows x cols matrices. */
static void distances(const double *a, const double *b, size_t rows, size_t cols, double *frob,
                      double *band)
{
    size_t len = rows * cols, k = rows < cols ? rows : cols;
    double s = 0, *sa = malloc(k * sizeof *sa), *sb = malloc(k * sizeof *sb);
    for (size_t i = 0; i < len; i++)
        s += (a[i] - b[i]) * (a[i] - b[i]);
    *frob = sqrt(s);
    *band = INFINITY;
    if (sa && sb && ns_singular_values(a, rows, cols, sa) == 0 &&
        ns_singular_values(b, rows, cols, sb) == 0) {
        *band = 0;
        for (size_t i = 0; i < k; i++)
            *band = fmax(*band, fabs(sa[i] - sb[i]));
    }
    free(sa);
    free(sb);
}

static double over(double err, double bound)
{
    return err == 0 ? 0 : bound > 0 ? err / bound : INFINITY;
}

/* NS-TOL-1: within the class's Frobenius bound and singular-value band of the exact result. */
void oc_judge_matrix(const oc_case *c, const oc_outputs *o, int cls, oc_case_result *r)
{
    size_t len = c->steps * c->n;
    for (int k = 0; k < c->nstate; k++) {
        const double *got = o->out[k], *want = c->exp[k].f64, *tol = c->exp[k].tol + 2 * cls;
        double frob = INFINITY, band = INFINITY, norm = 0;
        int finite = 1;
        for (size_t i = 0; i < len; i++) {
            finite &= isfinite(got[i]) != 0;
            norm += want[i] * want[i];
        }
        norm = sqrt(norm);
        if (finite)
            distances(got, want, c->steps, c->n, &frob, &band);
        r->max_ratio = fmax(r->max_ratio, fmax(over(frob, tol[0]), over(band, tol[1])));
        /* relative Frobenius error in units of 2^-24 */
        r->max_ulps = fmax(r->max_ulps, over(frob, norm) / 0x1p-24);
        if (!(frob <= tol[0] && band <= tol[1]) && r->verdict == OC_PASS) {
            r->verdict = OC_FAIL;
            snprintf(r->detail, sizeof r->detail,
                     "%s %s: ||Y - Y*||_F = %.3g (relative %.3g), bound %.3g; singular values "
                     "off by %.3g, band %.3g",
                     c->algo->state_names[k], finite ? "outside the bound" : "non-finite", frob,
                     over(frob, norm), tol[0], band, tol[1]);
        }
    }
    oc_plot_spectra(c, o, &r->plot);
}

/* A mutant explains observed outputs when they lie within the fp32 class of each other (as
 * the elementwise diagnosis does). */
static int ns_explains(const oc_case *c, const oc_outputs *got, const oc_outputs *mutant)
{
    for (int k = 0; k < c->nstate; k++) {
        const double *tol = c->exp[k].tol + 2 * OC_CLASS_FP32;
        double frob, band;
        for (size_t i = 0; i < c->steps * c->n; i++)
            if (!isfinite(got->out[k][i]) || !isfinite(mutant->out[k][i]))
                return 0;
        distances(got->out[k], mutant->out[k], c->steps, c->n, &frob, &band);
        if (!(frob <= tol[0] && band <= tol[1]))
            return 0;
    }
    return 1;
}

/* NS-NORM-1 in binary64 (each square of a binary32 input exact, their sum rounded) and the
 * singular values of X / d (common/singular_values.c, k = min(rows, cols) of them) of the
 * row-major rows x cols matrix x: the inputs of NS-TOL-1's model. 0, or -1 if out of memory. */
static int normalised_singular_values(const oc_ns_hparams *hp, const double *x, size_t rows,
                                      size_t cols, double *sv)
{
    double sum = 0;
    for (size_t i = 0; i < rows * cols; i++)
        sum += x[i] * x[i];
    double norm = sqrt(sum) * hp->norm_scale;
    double dd = hp->eps_mode == OC_NS_EPS_ADD ? norm + hp->eps : fmax(norm, hp->eps);
    if (ns_singular_values(x, rows, cols, sv) != 0)
        return -1;
    for (size_t i = 0; i < (rows < cols ? rows : cols); i++)
        sv[i] /= dd;
    return 0;
}

/* VEC-TOL-2: every entry of output `slot`'s table at most the model's, widened by the slack of
 * VEC-TOL-2 (2^-20; a zero, the exact output of a zero input, stays zero). */
static oc_status table_within(const char *path, const oc_case *c, int slot,
                              const double tol[NS_NCLASSES][2], oc_tolcap_stats *stats, oc_diag *d)
{
    oc_status st = OC_OK;
    for (size_t i = 0; i < 2 * NS_NCLASSES && st == OC_OK; i++) {
        double t = tol[i / 2][i % 2];
        st = oc_tolcap_within(path, c, slot, i, t > 0 ? oc_tolcap_widen(t) : t, stats, d);
    }
    return st;
}

_Static_assert((int)OC_NCLASSES == (int)NS_NCLASSES, "the classes of VEC-FMT-12's table");

/* VEC-TOL-2 for NS-TOL-1: a valid case's table re-evaluated by the model the generator writes
 * it with (common/ns_tolerance.c) from the harness's own d and singular values of G / d; the
 * two agree to 4.5e-12 relative on the committed vectors (spec/vectors.md). */
static oc_status ns_cap_tolerances(const char *path, const oc_case *c, oc_tolcap_stats *stats,
                                   oc_diag *d)
{
    size_t rows = c->steps, cols = c->n, len = rows * cols, k = rows < cols ? rows : cols;
    double *g = malloc(len * sizeof *g), *sv = malloc(k * sizeof *sv), tol[NS_NCLASSES][2];
    for (size_t i = 0; g && i < len; i++)
        g[i] = c->in[0][i];
    int failed = !g || !sv || normalised_singular_values(&c->hp.ns, g, rows, cols, sv) != 0 ||
                 ns_tolerances(&c->hp.ns, sv, k, len / k, tol, NULL) != 0;
    free(g), free(sv);
    if (failed)
        return oc_fail(d, OC_ERR_INTERNAL, "out of memory checking tolerances of %s", path);
    return table_within(path, c, 0, tol, stats, d);
}

/* The case's hyper-parameters: oc_hparams.ns (algos.h). */
OC_HPARAMS(oc_ns_hparams, ns);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_ns(void *ctx, const oc_ns_hparams *hp, size_t rows, size_t cols,
                        const float *g, float *out)
{
    size_t len = oc_ns_work_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    if (!work)
        return OC_ERR_INTERNAL;
    oc_status st =
        oc_ns_mutant_orthogonalise((oc_ns_mutant)oc_ref_mutant_of(ctx, &oc_algo_newton_schulz), hp,
                                   rows, cols, g, out, work, len);
    free(work);
    return st;
}

const oc_algo oc_algo_newton_schulz = {
    .name = "newton-schulz",
    .group_type = "NewtonSchulz",
    .state_names = {"x"},
    .precision = 24,
    .nmutants = OC_NS_MUTANT_COUNT,
    .mutant_name = ns_mutant,
    .nstate = ns_nstate,
    .parse = ns_parse,
    .load_case = ns_load_case,
    .run = ns_run,
    .alg = OC_ALG_COUNT,
    .judge = oc_judge_matrix,
    .explains = ns_explains,
    .cap_tolerances = ns_cap_tolerances,
    .reference = (oc_entry_point)ref_ns,
};

/* ---- The Muon step (MUON-*) ---- */
static const char *muon_mutant(int mu) { return oc_muon_mutant_name((oc_muon_mutant)mu); }
static int muon_nstate(const oc_hparams *hp) { return (void)hp, 2; }

static oc_status muon_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                            oc_diag *d)
{
    oc_muon_hparams *hp = &u->muon;
    const char *form = json_string_value(json_object_get(h, "momentumForm"));
    const char *scale = json_string_value(json_object_get(h, "scaleMode"));
    oc_status st;
    if (oc_muon_profile_parse(profile, &hp->profile) != OC_OK)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown Muon profile '%s'", path, profile);
    hp->ns.profile = hp->profile == OC_MUON_MEGATRON ? OC_NS_QUINTIC : OC_NS_SIMPLE;
    if ((st = ns_fields(path, h, &hp->ns, d)) || (st = oc_get_hex(path, h, "lr", &hp->lr, d)) ||
        (st = oc_get_hex(path, h, "momentum", &hp->momentum, d)) ||
        (st = oc_get_hex(path, h, "weightDecay", &hp->weight_decay, d)) ||
        (st = oc_get_hex(path, h, "extraScale", &hp->extra_scale, d)) ||
        (st = oc_get_bool(path, h, "nesterov", &hp->nesterov, d)))
        return st;
    if (!form || (strcmp(form, "ema") != 0 && strcmp(form, "sgd") != 0) || !scale ||
        (strcmp(scale, "shape_scaling") != 0 && strcmp(scale, "spectral") != 0 &&
         strcmp(scale, "unit_rms_norm") != 0))
        return oc_fail(d, OC_ERR_FORMAT,
                       "%s: hparams.momentumForm must be ema|sgd, scaleMode "
                       "shape_scaling|spectral|unit_rms_norm", path);
    hp->form = strcmp(form, "ema") == 0 ? OC_MUON_EMA : OC_MUON_SGD;
    hp->scale = strcmp(scale, "shape_scaling") == 0 ? OC_MUON_SHAPE_SCALING
                : strcmp(scale, "spectral") == 0    ? OC_MUON_SPECTRAL
                                                    : OC_MUON_UNIT_RMS_NORM;
    return OC_OK;
}

static oc_status muon_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                                oc_diag *d)
{
    static const char *const inputs[] = {"p", "m", "g"};
    return matrix_case(path, st, t, c, d, inputs, 3);
}

/* The call of one step on p, m, g (copies of the case's inputs). */
typedef oc_status (*step_call)(const oc_runner *impl, const oc_case *c, float *p, float *m,
                               const float *g);

/* One step from copies of the inputs; outputs p, m. *dirty: a failing call changed them. */
static void step_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                     int *dirty, step_call call)
{
    size_t len = c->steps * c->n, bytes = len * sizeof(float);
    float *p = oc_alloc_guarded(bytes), *m = oc_alloc_guarded(bytes), *g = oc_alloc_guarded(bytes);
    memcpy(p, c->in[0], bytes);
    memcpy(m, c->in[1], bytes);
    memcpy(g, c->in[2], bytes);
    *st = call(impl, c, p, m, g);
    oc_check_input(o, "g", g, c->in[2], bytes); /* VEC-PLUG-2, VEC-PLUG-3 */
    oc_check_output(o, "p", p, bytes);
    oc_check_output(o, "m", m, bytes);
    if (*st == OC_OK) {
        for (int k = 0; k < 2; k++) {
            const float *v = k == 0 ? p : m;
            o->out[k] = malloc((len + 1) * sizeof(double));
            for (size_t i = 0; i < len; i++)
                o->out[k][i] = v[i];
        }
    } else {
        *dirty = memcmp(p, c->in[0], len * sizeof *p) != 0 ||
                 memcmp(m, c->in[1], len * sizeof *m) != 0;
    }
    free(p);
    free(m);
    free(g);
}

static oc_status muon_call(const oc_runner *impl, const oc_case *c, float *p, float *m,
                           const float *g)
{
    return OC_ENTRY(impl, oc_muon_step_fn)(impl->ctx, &c->hp.muon, c->steps, c->n, p, m, g);
}

static void muon_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                     int *dirty)
{
    step_run(impl, c, o, st, dirty, muon_call);
}

/* VEC-TOL-2 for MUON-TOL-1 and MUON-BLK-TOL-1 (tolcap.h), by the model
 * the generator writes the tables with (common/muon_tolerance.c): the direction from the golden
 * momentum (MUON-MOM-1; with Nesterov mu m' + take g, MUON-NEST-1, rounded to binary32 through
 * binary64: at most one binary32 ulp from the generator's where that is a tie), NS-TOL-1's
 * model on it and ||O*||_F from the same singular values, the golden norms of p' and m', the
 * inputs' ||mu |m| + take |g| || and ||(1 - lr wd) p||. */
/* MUON-BLK-TOL-1: NS-TOL-1's tables and ||O*||_F of each block of the direction dir (the
 * blocks of ref's oc_muon_block_at, which the generator's partition must match: the cap of a
 * mismatched one refuses the file), each times its step lr * scale, summed into orth_tol and
 * *orth_norm. 0, or -1 if out of memory. */
static int block_tables(const oc_muon_hparams *hp, const oc_muon_partition *part,
                        const double *dir, size_t rows, size_t cols,
                        double orth_tol[NS_NCLASSES][2], double *orth_norm)
{
    double *blk = malloc(rows * cols * sizeof *blk), *sv = malloc((rows < cols ? rows : cols) * sizeof *sv);
    int failed = !blk || !sv;
    for (size_t bi = 0; bi < oc_muon_block_count(part) && !failed; bi++) {
        oc_muon_block b;
        oc_muon_block_at(part, rows, cols, bi, &b);
        size_t br = b.run * b.nruns, bn = br * b.ncols, bk = br < b.ncols ? br : b.ncols, t = 0;
        for (size_t j = 0; j < b.nruns; j++)
            for (size_t r = 0; r < b.run; r++)
                for (size_t col = 0; col < b.ncols; col++)
                    blk[t++] = dir[(b.row0 + j * b.stride + r) * cols + b.col0 + col];
        double ns_tol[NS_NCLASSES][2], onorm;
        if ((failed = normalised_singular_values(&hp->ns, blk, br, b.ncols, sv) != 0 ||
                      ns_tolerances(&hp->ns, sv, bk, bn / bk, ns_tol, &onorm) != 0))
            break;
        double step = hp->lr * muon_scale_bound_factor(hp, b.scale_rows, b.scale_cols);
        for (int cl = 0; cl < NS_NCLASSES; cl++)
            orth_tol[cl][0] += step * ns_tol[cl][0], orth_tol[cl][1] += step * ns_tol[cl][1];
        *orth_norm += step * onorm;
    }
    free(blk), free(sv);
    return failed ? -1 : 0;
}

oc_status oc_tolcap_muon_tables(const char *path, const oc_case *c, const oc_muon_hparams *hp,
                                const oc_muon_partition *part, const float *p, const float *m,
                                const float *g, oc_tolcap_stats *stats, oc_diag *d)
{
    static const oc_muon_partition whole = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    size_t rows = c->steps, cols = c->n, len = rows * cols;
    double mu = hp->momentum, take = hp->form == OC_MUON_SGD ? 1.0 : 1.0 - mu;
    double keep = 1.0 - hp->lr * hp->weight_decay, pn = 0, mn = 0, wn = 0, kn = 0;
    double *dir = malloc(len * sizeof *dir);
    for (size_t i = 0; dir && i < len; i++) {
        double m1 = c->exp[1].stored[i], gi = g[i];
        double w = mu * fabs((double)m[i]) + take * fabs(gi), kept = p[i] * keep;
        dir[i] = hp->nesterov ? (double)(float)(mu * m1 + take * gi) : m1;
        pn += c->exp[0].f64[i] * c->exp[0].f64[i], mn += c->exp[1].f64[i] * c->exp[1].f64[i];
        wn += w * w, kn += kept * kept;
    }
    double orth_tol[NS_NCLASSES][2] = {{0}}, onorm = 0, tol_p[NS_NCLASSES][2], tol_m[NS_NCLASSES][2];
    int failed = !dir || block_tables(hp, part ? part : &whole, dir, rows, cols, orth_tol, &onorm);
    free(dir);
    if (failed)
        return oc_fail(d, OC_ERR_INTERNAL, "out of memory checking tolerances of %s", path);
    muon_tolerances(orth_tol, onorm, sqrt(pn), sqrt(mn), sqrt(wn), sqrt(kn), tol_p, tol_m);
    oc_status st = table_within(path, c, 0, tol_p, stats, d);
    return st ? st : table_within(path, c, 1, tol_m, stats, d);
}

static oc_status muon_cap_tolerances(const char *path, const oc_case *c, oc_tolcap_stats *stats,
                                     oc_diag *d)
{
    return oc_tolcap_muon_tables(path, c, &c->hp.muon, NULL, c->in[0], c->in[1], c->in[2], stats,
                                 d);
}

/* The case's hyper-parameters: oc_hparams.muon (algos.h). */
OC_HPARAMS(oc_muon_hparams, muon);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_muon(void *ctx, const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                          float *m, const float *g)
{
    size_t len = oc_muon_work_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((3 * rows * cols + 1) * sizeof *scratch);
    oc_status st = work && scratch
                       ? oc_muon_mutant_step((oc_muon_mutant)oc_ref_mutant_of(ctx, &oc_algo_muon),
                                             hp, rows, cols, p, m, g, work, len, scratch)
                       : OC_ERR_INTERNAL;
    free(work);
    free(scratch);
    return st;
}

const oc_algo oc_algo_muon = {
    .name = "muon",
    .group_type = "MuonStep",
    .state_names = {"p", "m"},
    .precision = 24,
    .nmutants = OC_MUON_MUTANT_COUNT,
    .mutant_name = muon_mutant,
    .nstate = muon_nstate,
    .parse = muon_parse,
    .load_case = muon_load_case,
    .run = muon_run,
    .alg = OC_ALG_COUNT,
    .judge = oc_judge_matrix,
    .explains = ns_explains,
    .cap_tolerances = muon_cap_tolerances,
    .reference = (oc_entry_point)ref_muon,
};

/* ---- Muon over blocks: split QKV, blockwise tensor parallelism (MUON-BLK-*) ---- */
static const char *blocks_mutant(int mu)
{
    return oc_muon_block_mutant_name((oc_muon_block_mutant)mu);
}

/* A non-negative integer field of a group's hparams. */
static oc_status size_field(const char *path, json_t *h, const char *key, size_t *out, oc_diag *d)
{
    json_t *v = json_object_get(h, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (1 << 30))
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.%s must be an integer in [0, 2^30]", path,
                       key);
    *out = (size_t)json_integer_value(v);
    return OC_OK;
}

/* VEC-FMT-12: the Muon fields, then tpSize, tpDim, scaleShape, qkvHeads, qkvGroups,
 * qkvHeadDim. The partition's consistency with the shape is the implementation's check
 * (MUON-BLK-ERR-1): invalid cases carry inconsistent ones. */
static oc_status blocks_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                              oc_diag *d)
{
    oc_muon_partition *part = &u->blocks.part;
    const char *dim = json_string_value(json_object_get(h, "tpDim"));
    const char *shape = json_string_value(json_object_get(h, "scaleShape"));
    oc_status st;
    if ((st = muon_parse(path, profile, h, u, d)) ||
        (st = size_field(path, h, "tpSize", &part->tp_size, d)) ||
        (st = size_field(path, h, "qkvHeads", &part->qkv_heads, d)) ||
        (st = size_field(path, h, "qkvGroups", &part->qkv_groups, d)) ||
        (st = size_field(path, h, "qkvHeadDim", &part->qkv_head_dim, d)))
        return st;
    if (!dim || (strcmp(dim, "none") != 0 && strcmp(dim, "rows") != 0 && strcmp(dim, "cols") != 0) ||
        !shape || (strcmp(shape, "global") != 0 && strcmp(shape, "local") != 0))
        return oc_fail(d, OC_ERR_FORMAT,
                       "%s: hparams.tpDim must be none|rows|cols, scaleShape global|local", path);
    part->tp_dim = strcmp(dim, "none") == 0   ? OC_MUON_TP_NONE
                   : strcmp(dim, "rows") == 0 ? OC_MUON_TP_ROWS
                                              : OC_MUON_TP_COLS;
    part->scale_shape = strcmp(shape, "global") == 0 ? OC_MUON_SCALE_GLOBAL : OC_MUON_SCALE_LOCAL;
    return OC_OK;
}

/* VEC-FMT-18: a valid case's partition fits its rows x cols (MUON-BLK-TP-1, MUON-BLK-QKV-1);
 * an invalid case may carry one that does not (MUON-BLK-ERR-1). */
static oc_status blocks_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                                  oc_diag *d)
{
    oc_status s = muon_load_case(path, st, t, c, d);
    if (s == OC_OK && c->result == OC_RESULT_VALID &&
        oc_muon_partition_check(&c->hp.blocks.part, c->steps, c->n) != OC_OK)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: the partition (tpSize, tpDim, qkvHeads, "
                       "qkvGroups, qkvHeadDim) does not fit rows x cols = [%zu, %zu] in a valid "
                       "case", path, c->tcid, c->steps, c->n);
    return s;
}

static oc_status blocks_call(const oc_runner *impl, const oc_case *c, float *p, float *m,
                             const float *g)
{
    return OC_ENTRY(impl, oc_muon_block_step_fn)(impl->ctx, &c->hp.muon, &c->hp.blocks.part,
                                                 c->steps, c->n, p, m, g);
}

static void blocks_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                       int *dirty)
{
    step_run(impl, c, o, st, dirty, blocks_call);
}

static oc_status blocks_cap_tolerances(const char *path, const oc_case *c,
                                       oc_tolcap_stats *stats, oc_diag *d)
{
    return oc_tolcap_muon_tables(path, c, &c->hp.muon, &c->hp.blocks.part, c->in[0], c->in[1],
                                 c->in[2], stats, d);
}

/* The case's hyper-parameters: oc_hparams.blocks (algos.h). */
OC_HPARAMS(oc_muon_blocks_hparams, blocks);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_muon_blocks(void *ctx, const oc_muon_hparams *hp,
                                 const oc_muon_partition *part, size_t rows, size_t cols, float *p,
                                 float *m, const float *g)
{
    size_t len = oc_muon_work_len(rows, cols), slen = oc_muon_block_scratch_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((slen + 1) * sizeof *scratch);
    oc_status st = work && scratch
                       ? oc_muon_block_mutant_step(
                             (oc_muon_block_mutant)oc_ref_mutant_of(ctx, &oc_algo_muon_blocks), hp,
                             part, rows, cols, p, m, g, work, len, scratch, slen)
                       : OC_ERR_INTERNAL;
    free(work);
    free(scratch);
    return st;
}

const oc_algo oc_algo_muon_blocks = {
    .name = "muon-blocks",
    .group_type = "MuonBlockStep",
    .state_names = {"p", "m"},
    .precision = 24,
    .nmutants = OC_MUON_BLOCK_MUTANT_COUNT,
    .mutant_name = blocks_mutant,
    .nstate = muon_nstate,
    .parse = blocks_parse,
    .load_case = blocks_load_case,
    .run = blocks_run,
    .alg = OC_ALG_COUNT,
    .judge = oc_judge_matrix,
    .explains = ns_explains,
    .cap_tolerances = blocks_cap_tolerances,
    .reference = (oc_entry_point)ref_muon_blocks,
};
