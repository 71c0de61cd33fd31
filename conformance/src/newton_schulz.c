/* The Newton–Schulz family in the harness (spec/muon.md NS-*), and the matrix loading and
 * judging it shares with the Muon families (matrix_judge.h; conformance/src/muon.c): matrices
 * judged as a whole by NS-TOL-1 / MUON-TOL-1 (Frobenius bound and singular-value band) instead
 * of element by element. A case stores its shape as steps = rows, n = cols, so that results
 * files and the shared loaders see each output as one [rows, cols] tensor; exp[k].tol holds the
 * tolerance table [class][frobenius, band] of output k (VEC-FMT-12). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "algos.h"
#include "judge.h"
#include "matrix_judge.h"
#include "tolcap.h"
#include "../../common/ns_tolerance.h"
#include "../../common/singular_values.h"
#include "vectors.h"
#include "ref_impl.h"
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

/* VEC-FMT-12 (matrix_judge.h). */
oc_status oc_ns_fields(const char *path, json_t *h, oc_ns_hparams *hp, oc_diag *d)
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
    return oc_ns_fields(path, h, &u->ns, d);
}

/* VEC-FMT-12 (matrix_judge.h). */
oc_status oc_matrix_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
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
    return oc_matrix_case(path, st, t, c, d, inputs, 1);
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

/* VEC-DIAG-1 for matrices (matrix_judge.h). */
int oc_matrix_explains(const oc_case *c, const oc_outputs *got, const oc_outputs *mutant)
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

/* NS-NORM-1 and the singular values of X / d (matrix_judge.h). */
int oc_ns_normalised_singular_values(const oc_ns_hparams *hp, const double *x, size_t rows,
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

/* VEC-TOL-2 on output `slot`'s table (matrix_judge.h). */
oc_status oc_ns_table_within(const char *path, const oc_case *c, int slot,
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
    int failed = !g || !sv ||
                 oc_ns_normalised_singular_values(&c->hp.ns, g, rows, cols, sv) != 0 ||
                 ns_tolerances(&c->hp.ns, sv, k, len / k, tol, NULL) != 0;
    free(g), free(sv);
    if (failed)
        return oc_fail(d, OC_ERR_INTERNAL, "out of memory checking tolerances of %s", path);
    return oc_ns_table_within(path, c, 0, tol, stats, d);
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
    .explains = oc_matrix_explains,
    .cap_tolerances = ns_cap_tolerances,
    .reference = (oc_entry_point)ref_ns,
};
