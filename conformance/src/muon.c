/* The Muon families in the harness (spec/muon.md MUON-*, MUON-BLK-*): the Muon step and Muon
 * over blocks, matrices judged as a whole by MUON-TOL-1 with the loading and judging shared with
 * Newton-Schulz (matrix_judge.h), and the cap of MUON-TOL-1's tables (VEC-TOL-2) that the Muon
 * route's Muon cases use too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/muon.h"
#include "algos.h"
#include "judge.h"
#include "matrix_judge.h"
#include "tolcap.h"
#include "../../common/muon_tolerance.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/muon.h"

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
    if ((st = oc_ns_fields(path, h, &hp->ns, d)) || (st = oc_get_hex(path, h, "lr", &hp->lr, d)) ||
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
    return oc_matrix_case(path, st, t, c, d, inputs, 3);
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
        if ((failed = oc_ns_normalised_singular_values(&hp->ns, blk, br, b.ncols, sv) != 0 ||
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
    oc_status st = oc_ns_table_within(path, c, 0, tol_p, stats, d);
    return st ? st : oc_ns_table_within(path, c, 1, tol_m, stats, d);
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
    .explains = oc_matrix_explains,
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
    .explains = oc_matrix_explains,
    .cap_tolerances = blocks_cap_tolerances,
    .reference = (oc_entry_point)ref_muon_blocks,
};
