/* The mixed Muon + AdamW family in the harness (spec/muon.md §11, ROUTE-*): one test per
 * parameter of a small model. The implementation routes the parameter and steps it; the route
 * is compared exactly, then the outputs are judged by the routed optimizer's rule: as matrices
 * (MUON-TOL-1) for Muon, element by element (ADAM-TOL-1/2) for AdamW. Tensors are stored as
 * [rows, cols] (the 2-D shape; 1 x n for a 1-D parameter; dims[0] x rest above 2-D), so a case
 * has steps = rows, n = cols. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "algos.h"
#include "judge.h"
#include "safetensors.h"
#include "tolcap.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/muon_route.h"

static const char *route_mutant(int mu) { return oc_route_mutant_name((oc_route_mutant)mu); }
static int route_nstate(const oc_hparams *hp) { return (void)hp, 3; }

/* VEC-FMT-12: the Muon fields of MuonStep, and `adamw` with the AdamStep fields. */
static oc_status route_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                             oc_diag *d)
{
    oc_hparams muon, adam;
    oc_status st;
    memset(&muon, 0, sizeof muon);
    memset(&adam, 0, sizeof adam);
    if ((st = oc_algo_muon.parse(path, profile, h, &muon, d)) ||
        (st = oc_algo_adam.parse(path, "torch", json_object_get(h, "adamw"), &adam, d)))
        return st;
    u->route.muon = muon.muon;
    u->route.adamw = adam.adam;
    return OC_OK;
}

/* ROUTE-PARAM-1: the test's `parameter` {name, shape, isEmbeddingOrOutput} (checked when the
 * case is loaded; the implementation judges validity). */
static int param_of(const oc_case *c, oc_param_info *info)
{
    json_t *pj = json_object_get(c->test, "parameter"), *shape = json_object_get(pj, "shape");
    memset(info, 0, sizeof *info);
    info->name = json_string_value(json_object_get(pj, "name"));
    info->is_embedding_or_output = json_is_true(json_object_get(pj, "isEmbeddingOrOutput"));
    if (!info->name || !json_is_array(shape) || json_array_size(shape) > 64)
        return -1;
    info->ndim = (int)json_array_size(shape); /* above OC_PARAM_MAX_DIMS: dims not read */
    for (int k = 0; k < info->ndim && k < OC_PARAM_MAX_DIMS; k++) {
        json_t *v = json_array_get(shape, (size_t)k);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        info->dims[k] = (size_t)json_integer_value(v);
    }
    return 0;
}

static int expected_route(const oc_case *c)
{
    const char *r = json_string_value(json_object_get(c->test, "expectedRoute"));
    return r && strcmp(r, "muon") == 0 ? OC_ROUTE_MUON : OC_ROUTE_ADAMW;
}

/* Reads rows, cols, the inputs p, m, v, g and, for a valid case, expectedRoute and the
 * outputs of that route: p, m as matrices (tol [4, 2]) for Muon; p, m, v elementwise (tol
 * [rows, cols]) for AdamW. */
static oc_status route_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                                 oc_diag *d)
{
    static const char *const inputs[4] = {"p", "m", "v", "g"};
    oc_status s;
    int64_t rows = 0, cols = 0;
    oc_param_info info;
    if (!st)
        return oc_fail(d, OC_ERR_FORMAT, "%s: muon_route families need a tensors file", path);
    if (param_of(c, &info) != 0)
        return oc_fail(d, OC_ERR_FORMAT,
                       "%s: tcId %d: parameter needs name, shape (1 to 4 integers >= 0), "
                       "isEmbeddingOrOutput", path, c->tcid);
    if ((s = oc_get_int(path, c->tcid, t, "rows", 1, OC_NS_MAX_ELEMS, &rows, d)) ||
        (s = oc_get_int(path, c->tcid, t, "cols", 1, OC_NS_MAX_ELEMS / rows, &cols, d)) ||
        (s = oc_get_int(path, c->tcid, t, "firstStep", 1, INT32_MAX, &c->first_step, d)))
        return s;
    c->steps = (size_t)rows;
    c->n = (size_t)cols;
    /* ROUTE-PARAM-1: a shape the implementation accepts is stored as [dims[0], rest] ([1, n]
     * for a 1-D one); the buffers have rows x cols elements, so the two must agree (a shape it
     * rejects is an invalid case's and carries any rows and cols). */
    if (oc_param_check(&info) == OC_OK) {
        size_t numel = oc_param_numel(&info);
        size_t want_rows = info.ndim == 1 ? 1 : info.dims[0], want_cols = numel / want_rows;
        if (want_rows != c->steps || want_cols != c->n)
            return oc_fail(d, OC_ERR_FORMAT,
                           "%s: tcId %d: parameter.shape (%zu elements, stored as [%zu, %zu]) "
                           "disagrees with rows x cols = [%zu, %zu]", path, c->tcid, numel,
                           want_rows, want_cols, c->steps, c->n);
    }
    json_t *in = json_object_get(t, "inputs"), *ex = json_object_get(t, "expected");
    if (!json_is_object(in))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: missing inputs", path, c->tcid);
    for (int k = 0; k < 4; k++)
        if ((s = oc_tensor_ref(st, path, c->tcid, in, inputs[k], OC_F32, c->steps, c->n,
                               (void **)&c->in[k], d)))
            return s;
    if (c->result != OC_RESULT_VALID)
        return OC_OK;
    const char *route = json_string_value(json_object_get(t, "expectedRoute"));
    if (!route || (strcmp(route, "muon") != 0 && strcmp(route, "adamw") != 0))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: expectedRoute must be muon|adamw", path,
                       c->tcid);
    int muon = strcmp(route, "muon") == 0;
    c->nstate = muon ? 2 : 3;
    for (int k = 0; k < c->nstate; k++) {
        json_t *x = json_object_get(ex, c->names[k]);
        const char *f32 = json_string_value(json_object_get(x, "f32"));
        if (!f32)
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: valid case without expected.%s.f32",
                           path, c->tcid, c->names[k]);
        if ((s = oc_st_tensor_widened(st, f32, OC_FMT_F32, c->steps, c->n, &c->exp[k].stored, d)) ||
            (s = oc_tensor_ref(st, path, c->tcid, x, "f64", OC_F64, c->steps, c->n,
                               (void **)&c->exp[k].f64, d)) ||
            (s = oc_tensor_ref(st, path, c->tcid, x, "tol", OC_F64, muon ? OC_NCLASSES : c->steps,
                               muon ? 2 : c->n, (void **)&c->exp[k].tol, d)))
            return s;
        const double *tol = c->exp[k].tol, *f64 = c->exp[k].f64; /* VEC-TOL-1 */
        if ((s = muon ? oc_check_tol_classes(path, c->tcid, c->names[k], tol, f64,
                                             c->steps * c->n, d)
                      : oc_check_tol_entries(path, c->tcid, c->names[k], tol, f64, c->in[k],
                                             c->steps, c->n, OC_FMT_F32, d)))
            return s;
    }
    return OC_OK;
}

/* VEC-TOL-2 for an AdamW route: each element is one AdamW step t = firstStep from the inputs
 * (ADAM-TOL-2 from a zero bound, as the generator's), its decay multiplied by 0 for a 1-D
 * parameter or a name ending in ".bias" (ROUTE-WD-1). A Muon route: the Muon step's tables
 * (MUON-TOL-1 on p, m, g). */
static oc_status route_cap_tolerances(const char *path, const oc_case *c, oc_tolcap_stats *stats,
                                      oc_diag *d)
{
    oc_param_info info;
    if (expected_route(c) == OC_ROUTE_MUON)
        return oc_tolcap_muon_tables(path, c, &c->hp.route.muon, NULL, c->in[0], c->in[1],
                                     c->in[3], stats, d);
    if (expected_route(c) != OC_ROUTE_ADAMW || param_of(c, &info))
        return OC_OK;
    oc_hparams hp = {.adam = c->hp.route.adamw};
    size_t len = strlen(info.name);
    if (info.ndim == 1 || (len >= 5 && strcmp(info.name + len - 5, ".bias") == 0))
        hp.adam.weight_decay = 0; /* ROUTE-WD-1 */
    oc_status s = OC_OK;
    for (size_t i = 0; i < c->steps * c->n && s == OC_OK; i++) {
        double before[OC_MAX_STATE] = {0}, after[OC_MAX_STATE] = {0}, E[OC_MAX_STATE] = {0};
        for (int k = 0; k < 3; k++) {
            before[k] = c->in[k][i];
            after[k] = c->exp[k].stored[i];
        }
        oc_tolcap_element(&oc_algo_adam, &hp, c->first_step, before, after, c->in[3][i], E);
        for (int k = 0; k < 3 && s == OC_OK; k++)
            s = oc_tolcap_within(path, c, k, i, E[k], stats, d);
    }
    return s;
}

/* One routed step from copies of the inputs; outputs p, m, v and the route. */
static void route_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                      int *dirty)
{
    size_t len = c->steps * c->n;
    float *s[3];
    oc_param_info info;
    oc_route route = OC_ROUTE_ADAMW;
    param_of(c, &info);
    const oc_param_info info_copy = info;
    for (int k = 0; k < 3; k++)
        s[k] = oc_guarded_copy(c->in[k], len * sizeof(float));
    float *g = oc_guarded_copy(c->in[3], len * sizeof(float));
    *st = OC_ENTRY(impl, oc_routed_step_fn)(impl->ctx, &c->hp.route, &info, c->first_step, s[0],
                                            s[1], s[2], g, &route);
    oc_check_input(o, "g", g, c->in[3], len * sizeof(float)); /* VEC-PLUG-2, VEC-PLUG-3 */
    oc_check_unchanged(o, "info", &info, &info_copy, sizeof info);
    free(g);
    for (int k = 0; k < 3; k++) {
        oc_check_output(o, c->names[k], s[k], len * sizeof(float));
        if (*st == OC_OK) {
            o->out[k] = malloc((len + 1) * sizeof(double));
            for (size_t i = 0; i < len; i++)
                o->out[k][i] = s[k][i];
        } else {
            *dirty |= memcmp(s[k], c->in[k], len * sizeof(float)) != 0;
        }
        free(s[k]);
    }
    if (*st == OC_OK) {
        o->out[OC_ROUTE_OUTPUT] = malloc(sizeof(double));
        /* a value outside oc_route is kept as 2: no route, judged a failure */
        o->out[OC_ROUTE_OUTPUT][0] = route == OC_ROUTE_ADAMW || route == OC_ROUTE_MUON ? route : 2;
    }
}

/* ROUTE-RULE-1 exactly, then MUON-TOL-1 or ADAM-TOL-1/2 by the route. */
static void route_judge(const oc_case *c, const oc_outputs *o, int cls, oc_case_result *r)
{
    double g = o->out[OC_ROUTE_OUTPUT] ? o->out[OC_ROUTE_OUTPUT][0] : -1;
    int want = expected_route(c), got = g == 0 || g == 1 ? (int)g : -1;
    if (got < 0) {
        r->verdict = OC_FAIL;
        r->max_ratio = r->max_ulps = INFINITY;
        snprintf(r->detail, sizeof r->detail, "%s", g == -1 ? "no route given (results files: VEC-RES-4)"
                                                             : "gave a route that is no oc_route");
        return;
    }
    if (got != want) {
        r->verdict = OC_FAIL;
        r->max_ratio = r->max_ulps = INFINITY;
        snprintf(r->detail, sizeof r->detail, "routed to %s, expected %s",
                 got == OC_ROUTE_MUON ? "Muon" : "AdamW", want == OC_ROUTE_MUON ? "Muon" : "AdamW");
        return;
    }
    if (want == OC_ROUTE_MUON)
        oc_judge_matrix(c, o, cls, r);
    else {
        oc_judge_elementwise(c, o, (oc_class)cls, r);
        r->plot.nruns = 0; /* its "steps" are the parameter's rows: no plot by step */
    }
}

/* A mutant explains observed outputs when it routes the same way and its outputs are within
 * 2^-20 of them relative to their norm (a coarse match: routing mistakes change the outputs
 * by far more). */
static int route_explains(const oc_case *c, const oc_outputs *got, const oc_outputs *mutant)
{
    if (!got->out[OC_ROUTE_OUTPUT] || got->out[OC_ROUTE_OUTPUT][0] != mutant->out[OC_ROUTE_OUTPUT][0])
        return 0;
    for (int k = 0; k < c->nstate; k++) {
        double diff = 0, norm = 0;
        for (size_t i = 0; i < c->steps * c->n; i++) {
            diff += (got->out[k][i] - mutant->out[k][i]) * (got->out[k][i] - mutant->out[k][i]);
            norm += mutant->out[k][i] * mutant->out[k][i];
        }
        if (!(sqrt(diff) <= 0x1p-20 * sqrt(norm)))
            return 0;
    }
    return 1;
}

/* The case's hyper-parameters: oc_hparams.route (algos.h). */
OC_HPARAMS(oc_route_hparams, route);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_routed(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                            int64_t step, float *p, float *m, float *v, const float *g,
                            oc_route *route)
{
    if (oc_param_check(info) != OC_OK)
        return oc_ref_routed_step(hp, info, step, p, m, v, g, route, NULL, 0, NULL,
                                  0); /* the reference's status, nothing written */
    size_t len = oc_routed_work_len(info), slen = oc_routed_scratch_len(info);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((slen + 1) * sizeof *scratch);
    oc_status st =
        work && scratch
            ? oc_route_mutant_step((oc_route_mutant)oc_ref_mutant_of(ctx, &oc_algo_muon_route), hp,
                                   info, step, p, m, v, g, route, work, len, scratch, slen)
            : OC_ERR_INTERNAL;
    free(work);
    free(scratch);
    return st;
}

const oc_algo oc_algo_muon_route = {
    .name = "muon-route",
    .group_type = "RoutedStep",
    .state_names = {"p", "m", "v"},
    .precision = 24,
    .nmutants = OC_ROUTE_MUTANT_COUNT,
    .mutant_name = route_mutant,
    .nstate = route_nstate,
    .parse = route_parse,
    .load_case = route_load_case,
    .run = route_run,
    .alg = OC_ALG_COUNT,
    .judge = route_judge,
    .explains = route_explains,
    .cap_tolerances = route_cap_tolerances,
    .reference = (oc_entry_point)ref_routed,
};
