/* The clipping family's descriptor (spec/clip.md): values inline in the JSON (VEC-FMT-11). A
 * test is a configuration and the per-rank views of a logical parameter set; the one output,
 * "value", is the total norm, every view's clipped gradient in view order, then the skip
 * decision (1 skipped, 0 not: CLIP-SKIP-1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "judge.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/clip.h"

enum { VIEW_TP, VIEW_PP, VIEW_DP, VIEW_OPT, VIEW_TP_SHARDED, VIEW_SHARED, VIEW_LEN, VIEW_FIELDS };

static const char *clip_mutant(int mu) { return oc_clip_mutant_name((oc_clip_mutant)mu); }
static int clip_nstate(const oc_hparams *hp) { return (void)hp, 1; }

static oc_status clip_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                            oc_diag *d)
{
    oc_clip_config *c = &u->clip;
    const char *norm = json_string_value(json_object_get(h, "normType"));
    int64_t v[3];
    oc_status st;
    if (oc_clip_profile_parse(profile, &c->profile) != OC_OK)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown clip profile '%s'", path, profile);
    if (!norm || (strcmp(norm, "2") != 0 && strcmp(norm, "inf") != 0))
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.normType must be \"2\" or \"inf\"", path);
    c->inf_norm = strcmp(norm, "inf") == 0;
    if ((st = oc_get_hex(path, h, "maxNorm", &c->max_norm, d)) ||
        (st = oc_get_hex(path, h, "skipThreshold", &c->skip_threshold, d)) ||
        (st = oc_get_bool(path, h, "distributed", &c->distributed, d)) ||
        (st = oc_get_int(path, 0, h, "tpSize", 0, 1 << 20, &v[0], d)) ||
        (st = oc_get_int(path, 0, h, "ppSize", 0, 1 << 20, &v[1], d)) ||
        (st = oc_get_int(path, 0, h, "dpSize", 0, 1 << 20, &v[2], d)))
        return st;
    c->tp_size = (int32_t)v[0];
    c->pp_size = (int32_t)v[1];
    c->dp_size = (int32_t)v[2];
    return OC_OK;
}

oc_status oc_get_hex_array(const char *path, int tcid, json_t *a, size_t n, float *out, oc_diag *d)
{
    json_t *v;
    size_t i;
    if (!json_is_array(a) || json_array_size(a) != n)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: a value list has the wrong length",
                       path, tcid);
    json_array_foreach(a, i, v) {
        json_t *one = json_pack("{s:O}", "v", v);
        double x;
        oc_status s = oc_get_hex(path, one, "v", &x, d);
        json_decref(one);
        if (s != OC_OK)
            return s;
        out[i] = (float)x;
    }
    return OC_OK;
}

/* VEC-FMT-18: in a valid case every view's tp, pp and dp rank lies below the
 * group's tpSize, ppSize and dpSize (CLIP-VIEW-1); the reference rejects any other view
 * (CLIP-ERR-1), so such a case is a bad vector, not a valid one. */
static oc_status views_fit_sizes(const char *path, const oc_case *c, oc_diag *d)
{
    static const char *const rank[] = {"tp", "pp", "dp"}, *const size[] = {"tpSize", "ppSize",
                                                                            "dpSize"};
    const int32_t sizes[] = {c->hp.clip.tp_size, c->hp.clip.pp_size, c->hp.clip.dp_size};
    for (int64_t i = 0; i < c->positions[0]; i++)
        for (int k = 0; k < 3; k++) {
            int64_t r = c->positions[1 + i * VIEW_FIELDS + k]; /* VIEW_TP, VIEW_PP, VIEW_DP */
            if (r >= sizes[k])
                return oc_fail(d, OC_ERR_FORMAT,
                               "%s: tcId %d: views[%lld].%s = %lld, but the group's %s is %d: "
                               "a valid case's views must fit its tp/pp/dp sizes (CLIP-VIEW-1)",
                               path, c->tcid, (long long)i, rank[k], (long long)r, size[k],
                               sizes[k]);
        }
    return OC_OK;
}

/* "views": [{"tp", "pp", "dp", "optimizer", "tensorParallel", "shared", "grad": [hex]}],
 * "expected": {"norm", "normTol", "gradRelTol", "grad": [[hex] per view]} (valid cases).
 * The view metadata is kept in c->positions: the number of views, then VIEW_FIELDS integers
 * per view; the inputs (every
 * view's gradient, in order) in c->in[0][1 ..], so that output element 0 is the norm. */
static oc_status clip_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                                oc_diag *d)
{
    static const char *const keys[] = {"tp", "pp", "dp", "optimizer"};
    (void)st;
    json_t *views = json_object_get(t, "views"), *v;
    size_t i, total = 0;
    if (!json_is_array(views))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: views must be a list", path, c->tcid);
    json_array_foreach(views, i, v) total += json_array_size(json_object_get(v, "grad"));
    c->steps = 1;
    c->n = 2 + total; /* norm, gradients, skip decision */
    c->positions = calloc(json_array_size(views) * VIEW_FIELDS + 1, sizeof *c->positions);
    c->positions[0] = (int64_t)json_array_size(views);
    c->in[0] = calloc(c->n, sizeof(float));
    size_t at = 1;
    json_array_foreach(views, i, v) {
        int64_t *m = &c->positions[1 + i * VIEW_FIELDS];
        json_t *g = json_object_get(v, "grad");
        oc_status s = OC_OK;
        int flag[2];
        for (int k = 0; k < 4 && s == OC_OK; k++)
            s = oc_get_int(path, c->tcid, v, keys[k], 0, 1 << 20, &m[k], d);
        if (s || (s = oc_get_bool(path, v, "tensorParallel", &flag[0], d)) ||
            (s = oc_get_bool(path, v, "shared", &flag[1], d)) ||
            (s = oc_get_hex_array(path, c->tcid, g, json_array_size(g), c->in[0] + at, d)))
            return s;
        m[VIEW_TP_SHARDED] = flag[0];
        m[VIEW_SHARED] = flag[1];
        m[VIEW_LEN] = (int64_t)json_array_size(g);
        at += json_array_size(g);
    }
    if (c->result != OC_RESULT_VALID)
        return OC_OK;
    oc_status s = views_fit_sizes(path, c, d);
    if (s != OC_OK)
        return s;
    json_t *exp = json_object_get(t, "expected"), *eg = json_object_get(exp, "grad");
    double rel, norm, norm_tol;
    int skipped;
    if ((s = oc_get_bool(path, exp, "skipped", &skipped, d)) ||
        (s = oc_get_hex(path, exp, "norm", &norm, d)) ||
        (s = oc_get_hex64(path, exp, "normTol", &norm_tol, d)) ||
        (s = oc_get_hex64(path, exp, "gradRelTol", &rel, d)))
        return s;
    if (!json_is_array(eg) || json_array_size(eg) != json_array_size(views))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: expected.grad needs one list per view",
                       path, c->tcid);
    /* CLIP-TOL-2 with m the elements listed and R = tpSize ppSize dpSize (at least the counted
     * elements and ranks): normTol <= (m + R + 4) u |norm|, gradRelTol <= (m + R + 9) u, each
     * with the generator's upward rounding as slack; the inf-norm is exact (normTol 0 but for
     * that rounding, gradRelTol 5 u). */
    const double u = 0x1p-24, ranks = (double)c->hp.clip.tp_size * c->hp.clip.pp_size *
                                      c->hp.clip.dp_size;
    const double k = c->hp.clip.inf_norm ? 0 : ((double)total + ranks + 4) * u * (1 + 0x1p-30);
    if ((s = oc_check_tol(path, c->tcid, "normTol", &norm_tol, 1, k * fabs(norm) + 0x1p-1074, d)) ||
        (s = oc_check_tol(path, c->tcid, "gradRelTol", &rel, 1, k + 5 * u * (1 + 0x1p-30), d)))
        return s;
    float *x = calloc(c->n, sizeof(float));
    c->exp[0].stored = calloc(c->n, sizeof(double));
    c->exp[0].f64 = calloc(c->n, sizeof(double));
    c->exp[0].tol = calloc(c->n, sizeof(double));
    at = 1;
    json_array_foreach(eg, i, v) {
        if ((s = oc_get_hex_array(path, c->tcid, v, (size_t)c->positions[1 + i * VIEW_FIELDS + VIEW_LEN],
                           x + at, d))) {
            free(x);
            return s;
        }
        at += json_array_size(v);
    }
    x[0] = (float)norm;
    x[c->n - 1] = (float)skipped;
    for (size_t j = 0; j < c->n; j++) { /* CLIP-TOL-2: relative bounds, 2^-149 below them */
        c->exp[0].stored[j] = c->exp[0].f64[j] = x[j];
        c->exp[0].tol[j] = j == 0 ? norm_tol : fabs((double)x[j]) * rel + 0x1p-149;
    }
    c->exp[0].tol[c->n - 1] = 0; /* CLIP-SKIP-1: the decision is exact */
    free(x);
    return OC_OK;
}

/* One call with fresh buffers, each view's gradient in its own guarded allocation (VEC-PLUG-3);
 * a rejected call must leave the gradients and the norm alone. The harness reads the gradients
 * through its own pointers, never through the views the implementation could rewrite. */
static void clip_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                     int *dirty)
{
    size_t nv = (size_t)c->positions[0], at = 1;
    oc_clip_view *views = calloc(nv + 1, sizeof *views);
    float **grads = calloc(nv + 1, sizeof *grads);
    for (size_t i = 0; i < nv; i++) {
        const int64_t *m = &c->positions[1 + i * VIEW_FIELDS];
        grads[i] = oc_guarded_copy(c->in[0] + at, (size_t)m[VIEW_LEN] * sizeof(float));
        views[i] = (oc_clip_view){(int32_t)m[VIEW_TP], (int32_t)m[VIEW_PP], (int32_t)m[VIEW_DP],
                                  (int32_t)m[VIEW_OPT], (int)m[VIEW_TP_SHARDED],
                                  (int)m[VIEW_SHARED], (size_t)m[VIEW_LEN], grads[i]};
        at += (size_t)m[VIEW_LEN];
    }
    float norm = -1.0f; /* sentinel */
    int skipped = -1;
    *st = OC_ENTRY(impl, oc_clip_step_fn)(impl->ctx, &c->hp.clip, nv, views, &norm, &skipped);
    o->out[0] = malloc((c->n + 1) * sizeof(double));
    o->out[0][0] = norm;
    at = 1;
    for (size_t i = 0; i < nv; i++) {
        size_t len = (size_t)c->positions[1 + i * VIEW_FIELDS + VIEW_LEN];
        oc_check_output(o, "grad", grads[i], len * sizeof(float));
        if (*st != OC_OK)
            *dirty |= memcmp(grads[i], c->in[0] + at, len * sizeof(float)) != 0;
        for (size_t j = 0; j < len; j++)
            o->out[0][at + j] = grads[i][j];
        at += len;
        free(grads[i]);
    }
    o->out[0][c->n - 1] = skipped; /* VEC-FMT-11: value = norm, gradients, skip decision */
    if (*st != OC_OK)
        *dirty |= norm != -1.0f || skipped != -1;
    free(grads);
    free(views);
}

/* VEC-FMT-11: value = norm, every view's gradient, the skip decision. */
static const char *clip_quantity(const oc_case *c, int k, size_t j)
{
    (void)k;
    return j == 0 ? "norm" : j == c->n - 1 ? "skipped" : "grad";
}

/* The case's hyper-parameters: oc_hparams.clip (algos.h). */
OC_HPARAMS(oc_clip_config, clip);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_clip(void *ctx, const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                          float *total_norm, int *skipped)
{
    return oc_clip_mutant_step((oc_clip_mutant)oc_ref_mutant_of(ctx, &oc_algo_clip), c, nviews,
                               views, total_norm, skipped);
}

const oc_algo oc_algo_clip = {
    .name = "clip",
    .group_type = "ClipStep",
    .state_names = {"value"},
    .precision = 24,
    .nmutants = OC_CLIP_MUTANT_COUNT,
    .mutant_name = clip_mutant,
    .nstate = clip_nstate,
    .parse = clip_parse,
    .load_case = clip_load_case,
    .run = clip_run,
    .alg = OC_ALG_COUNT,
    .quantity = clip_quantity,
    .reference = (oc_entry_point)ref_clip,
};
