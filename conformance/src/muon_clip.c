/* The MuonClip family's descriptor (spec/muon.md, MUONCLIP-*): values inline in the JSON
 * (VEC-FMT-13). A test is the per-head largest raw logits and the fused QKV weight; the one
 * output, "weight", is the clipped weight, judged element by element (MUONCLIP-TOL-1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "judge.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/muon_clip.h"

static const char *muon_clip_mutant(int mu)
{
    return oc_muon_clip_mutant_name((oc_muon_clip_mutant)mu);
}
static int muon_clip_nstate(const oc_hparams *hp) { return (void)hp, 1; }

static oc_status muon_clip_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                                 oc_diag *d)
{
    oc_muon_clip_config *c = &u->muon_clip;
    const struct {
        const char *key;
        size_t *to;
    } sizes[] = {{"heads", &c->heads},       {"groups", &c->groups}, {"headDim", &c->head_dim},
                 {"hidden", &c->hidden},     /* MUONCLIP-LAYOUT-MLA only from here on */
                 {"ropeDim", &c->rope_dim},  {"vDim", &c->v_dim},    {"qCols", &c->q_cols},
                 {"kvCols", &c->kv_cols}};
    oc_status st;
    if (oc_muon_clip_profile_parse(profile, &c->profile) != OC_OK)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown muonclip profile '%s'", path, profile);
    if ((st = oc_get_hex(path, h, "tau", &c->tau, d)) ||
        (st = oc_get_hex(path, h, "alpha", &c->alpha, d)))
        return st;
    size_t count = c->profile == OC_MUON_CLIP_KIMI_MLA ? 8 : 4;
    for (size_t k = 0; k < count; k++) {
        int64_t v;
        if ((st = oc_get_int(path, 0, h, sizes[k].key, 0, 1 << 20, &v, d)))
            return st;
        *sizes[k].to = (size_t)v;
    }
    return OC_OK;
}

/* Elements of the weight as the vectors describe it (a layout MUONCLIP-LAYOUT-1 rejects is
 * an invalid case and carries its weight list as given). */
static size_t stated_len(const oc_muon_clip_config *c, json_t *t)
{
    if (c->groups < 1 || c->heads % c->groups != 0)
        return json_array_size(json_object_get(t, "weight"));
    return oc_muon_clip_len(c);
}

/* "maxDot": [hex per head], "weight": [hex, oc_muon_clip_len], "expected": {"weight": [hex],
 * "relTol": hex} (valid cases). Inputs: c->in[0] the weight, c->in[1] the logits. */
static oc_status muon_clip_load_case(const char *path, const oc_st_file *st, json_t *t,
                                     oc_case *c, oc_diag *d)
{
    (void)st;
    const oc_muon_clip_config *cfg = &c->hp.muon_clip;
    json_t *md = json_object_get(t, "maxDot"), *exp = json_object_get(t, "expected");
    oc_status s;
    c->steps = 1;
    c->n = stated_len(cfg, t);
    if (c->n == 0 || c->n > (1u << 24) || cfg->heads > (1u << 20))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: empty or oversized weight", path, c->tcid);
    c->in[0] = calloc(c->n, sizeof(float));
    c->in[1] = calloc(cfg->heads + 1, sizeof(float));
    if ((s = oc_get_hex_array(path, c->tcid, json_object_get(t, "weight"), c->n, c->in[0], d)) ||
        (s = oc_get_hex_array(path, c->tcid, md, cfg->heads, c->in[1], d)))
        return s;
    if (c->result != OC_RESULT_VALID)
        return OC_OK;
    if (oc_muon_clip_check(cfg) != OC_OK) /* VEC-FMT-18: a valid case's layout is accepted */
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: heads, groups, headDim, hidden do not "
                       "form a layout MUONCLIP-LAYOUT-1 accepts, in a valid case", path, c->tcid);
    double rel;
    float *x = calloc(c->n, sizeof(float));
    if ((s = oc_get_hex64(path, exp, "relTol", &rel, d)) ||
        (s = oc_get_hex_array(path, c->tcid, json_object_get(exp, "weight"), c->n, x, d))) {
        free(x);
        return s;
    }
    if ((s = oc_check_tol(path, c->tcid, "relTol", &rel, 1, 0x1p-21, d))) { /* MUONCLIP-TOL-1: 8u */
        free(x);
        return s;
    }
    c->exp[0].stored = calloc(c->n, sizeof(double));
    c->exp[0].f64 = calloc(c->n, sizeof(double));
    c->exp[0].tol = calloc(c->n, sizeof(double));
    for (size_t j = 0; j < c->n; j++) /* MUONCLIP-TOL-1: relative, 2^-149 below */
        c->exp[0].stored[j] = c->exp[0].f64[j] = x[j];
    oc_muon_clip_segment seg[3];
    for (size_t g = 0; g < cfg->groups; g++) /* outside every q/k part: bit for bit (tol 0) */
        for (size_t p = 0, parts = oc_muon_clip_segments(cfg, g, seg); p < parts; p++)
            for (size_t j = seg[p].offset; j < seg[p].offset + seg[p].len && j < c->n; j++)
                c->exp[0].tol[j] = fabs((double)x[j]) * rel + 0x1p-149;
    free(x);
    return OC_OK;
}

/* One call on guarded copies of the weight and of the logit maxima (VEC-PLUG-2, VEC-PLUG-3); a
 * rejected call must leave the weight alone. */
static void muon_clip_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                          int *dirty)
{
    const size_t heads = c->hp.muon_clip.heads;
    float *w = oc_guarded_copy(c->in[0], c->n * sizeof(float));
    float *max_dot = oc_guarded_copy(c->in[1], heads * sizeof(float));
    *st = OC_ENTRY(impl, oc_muon_clip_fn)(impl->ctx, &c->hp.muon_clip, max_dot, w);
    oc_check_input(o, "max_dot", max_dot, c->in[1], heads * sizeof(float));
    oc_check_output(o, "w", w, c->n * sizeof(float));
    free(max_dot);
    if (*st != OC_OK)
        *dirty = memcmp(w, c->in[0], c->n * sizeof(float)) != 0;
    o->out[0] = malloc((c->n + 1) * sizeof(double));
    for (size_t j = 0; j < c->n; j++)
        o->out[0][j] = w[j];
    free(w);
}

/* The case's hyper-parameters: oc_hparams.muon_clip (algos.h). */
OC_HPARAMS(oc_muon_clip_config, muon_clip);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_muon_clip(void *ctx, const oc_muon_clip_config *c, const float *max_dot,
                               float *w)
{
    return oc_muon_clip_mutant_clip(
        (oc_muon_clip_mutant)oc_ref_mutant_of(ctx, &oc_algo_muon_clip), c, max_dot, w);
}

const oc_algo oc_algo_muon_clip = {
    .name = "muonclip",
    .group_type = "QkClip",
    .state_names = {"weight"},
    .precision = 24,
    .nmutants = OC_MUON_CLIP_MUTANT_COUNT,
    .mutant_name = muon_clip_mutant,
    .nstate = muon_clip_nstate,
    .parse = muon_clip_parse,
    .load_case = muon_clip_load_case,
    .run = muon_clip_run,
    .alg = OC_ALG_COUNT,
    .reference = (oc_entry_point)ref_muon_clip,
};
