/* Muon step vector families (spec/muon.md, rules MUON-*): the exact step in MPFR with the
 * exact Newton-Schulz of gen_newton_schulz.c, tolerances MUON-TOL-1, and the cases. tcIds are
 * assigned in generation order: append new cases at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/muon_route.h"
#include "adam_exact.h"
#include "family.h"
#include "gen.h"
#include "ns_model.h"
#include "../../common/muon_tolerance.h"
#include "rng.h"

static gen_rng rng;

static float *uniform(size_t len, double scale)
{
    float *v = malloc(len * sizeof *v);
    for (size_t i = 0; i < len; i++)
        v[i] = (float)(scale * (2 * rng_unit(&rng) - 1));
    return v;
}

static double norm2(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i] * v[i];
    return sqrt(s);
}

static json_t *hparams_json(const oc_muon_hparams *hp)
{
    static const char *const scales[] = {"shape_scaling", "spectral", "unit_rms_norm"};
    json_t *coef = json_array();
    for (int t = 0; t < hp->ns.ncoef; t++)
        json_array_append_new(coef, json_pack("[o,o,o]", hexfloat(hp->ns.coef[t][0]),
                                              hexfloat(hp->ns.coef[t][1]),
                                              hexfloat(hp->ns.coef[t][2])));
    return json_pack("{s:o,s:i,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:b,s:s,s:s,s:o}", "coefficients", coef,
                     "steps", hp->ns.steps, "schedule",
                     hp->ns.schedule == OC_NS_CYCLE ? "cycle" : "repeat_last", "epsMode",
                     hp->ns.eps_mode == OC_NS_EPS_ADD ? "add" : "max", "eps",
                     hexfloat(hp->ns.eps), "normScale", hexfloat(hp->ns.norm_scale), "lr",
                     hexfloat(hp->lr), "momentum", hexfloat(hp->momentum), "weightDecay",
                     hexfloat(hp->weight_decay), "nesterov", hp->nesterov, "momentumForm",
                     hp->form == OC_MUON_EMA ? "ema" : "sgd", "scaleMode", scales[hp->scale],
                     "extraScale", hexfloat(hp->extra_scale));
}

static const char *const profile_rules[OC_MUON_PROFILE_COUNT] = {
    "MUON-PROF-KELLER", "MUON-PROF-MOONLIGHT", "MUON-PROF-MEGATRON"};

/* MUON-PROF-*: each profile's conventions and library defaults as spec/muon.md §7 states them
 * (the decimals rounded to binary32: the vectors carry binary32-exact hyper-parameters). */
static const struct muon_profile_def {
    const char *name;
    oc_ns_profile ns;
    oc_muon_momentum form;
    int nesterov;
    oc_muon_scale scale;
    float extra_scale, lr, weight_decay, momentum;
} muon_profiles[OC_MUON_PROFILE_COUNT] = {
    /* KellerJordan/Muon: ema, Nesterov, shape_scaling, simple NS, lr 0.02, wd 0, mu 0.95 */
    [OC_MUON_KELLER] = {"keller", OC_NS_SIMPLE, OC_MUON_EMA, 1, OC_MUON_SHAPE_SCALING, 1.0f,
                        0.02f, 0.0f, 0.95f},
    /* Moonlight: sgd momentum, Nesterov, spectral with extraScale 0.2, simple NS, lr 1e-3,
     * wd 0.1, mu 0.95 */
    [OC_MUON_MOONLIGHT] = {"moonlight", OC_NS_SIMPLE, OC_MUON_SGD, 1, OC_MUON_SPECTRAL, 0.2f,
                           1e-3f, 0.1f, 0.95f},
    /* Megatron-LM + Emerging-Optimizers: ema, no Nesterov, spectral, quintic NS, lr 3e-4,
     * wd 0.01, mu 0.95 */
    [OC_MUON_MEGATRON] = {"megatron", OC_NS_QUINTIC, OC_MUON_EMA, 0, OC_MUON_SPECTRAL, 1.0f,
                          3e-4f, 0.01f, 0.95f},
};

/* The profile's hyper-parameters into *hp (every other field zero); returns its name. */
static const char *muon_defaults(oc_muon_profile pr, oc_muon_hparams *hp)
{
    const struct muon_profile_def *d = &muon_profiles[pr];
    *hp = (oc_muon_hparams){.profile = pr};
    ns_profile_defaults(d->ns, &hp->ns);
    hp->form = d->form;
    hp->nesterov = d->nesterov;
    hp->scale = d->scale;
    hp->extra_scale = d->extra_scale;
    hp->lr = d->lr;
    hp->weight_decay = d->weight_decay;
    hp->momentum = d->momentum;
    return d->name;
}

/* MUON-SCALE-1 in MPFR for a rows x cols shape, times lr: s = lr extraScale f(rows, cols). */
static void exact_step(mpfr_t s, const oc_muon_hparams *hp, size_t rows, size_t cols)
{
    mpfr_set_ui(s, (unsigned long)(rows > cols ? rows : cols), MPFR_RNDN);
    if (hp->scale == OC_MUON_SHAPE_SCALING) {
        mpfr_set_ui(s, rows > cols ? (unsigned long)rows : 1ul, MPFR_RNDN);
        mpfr_div_ui(s, s, rows > cols ? (unsigned long)cols : 1ul, MPFR_RNDN);
    } else if (hp->scale == OC_MUON_UNIT_RMS_NORM) {
        mpfr_set_ui(s, (unsigned long)rows, MPFR_RNDN);
        mpfr_div_ui(s, s, (unsigned long)cols, MPFR_RNDN);
    }
    mpfr_sqrt(s, s, MPFR_RNDN);
    mpfr_mul_d(s, s, hp->extra_scale, MPFR_RNDN);
    mpfr_mul_d(s, s, hp->lr, MPFR_RNDN);                            /* lr * scale */
}

/* One block of MUON-BLK-ORTH-1: `groups` runs of `len` consecutive rows, run j starting at
 * row `first + j * period`, over the columns [col0, col0 + ncols); its rows stacked in that
 * order form a (len * groups) x ncols matrix; scale_rows x scale_cols is the shape
 * MUON-BLK-SCALE-1 scales it by. */
typedef struct gen_block {
    size_t first, len, period, groups, col0, ncols, scale_rows, scale_cols;
} gen_block;

#define GEN_MAX_BLOCKS (3 * 64) /* Q, K, V on each of at most 64 TP ranks (MUON-BLK-TP-1) */

/* The blocks of a valid partition of a rows x cols parameter, rank by rank and within a rank
 * Q, K, V (MUON-BLK-TP-1, MUON-BLK-QKV-1); returns their number. */
static size_t partition_blocks(const oc_muon_partition *pt, size_t rows, size_t cols,
                               gen_block *out)
{
    size_t tp = pt->tp_size, nb = 0;
    int by_rows = pt->tp_dim == OC_MUON_TP_ROWS, by_cols = pt->tp_dim == OC_MUON_TP_COLS;
    int global = pt->scale_shape == OC_MUON_SCALE_GLOBAL;
    size_t shard_rows = by_rows ? rows / tp : rows, shard_cols = by_cols ? cols / tp : cols;
    for (size_t rank = 0; rank < tp; rank++) {
        size_t row0 = by_rows ? rank * shard_rows : 0, col0 = by_cols ? rank * shard_cols : 0;
        gen_block shard = {row0, shard_rows, shard_rows, 1, col0, shard_cols, 0, 0};
        if (!pt->qkv_heads) {
            out[nb++] = shard;
        } else {
            /* the rank's G / tp query groups, each [q rows of its heads; k rows; v rows] */
            size_t d = pt->qkv_head_dim, q = pt->qkv_heads / pt->qkv_groups * d;
            size_t groups = by_rows ? pt->qkv_groups / tp : pt->qkv_groups;
            const size_t off[3] = {0, q, q + d}, len[3] = {q, d, d};
            for (int part = 0; part < 3; part++) /* Q, K, V */
                out[nb++] = (gen_block){row0 + off[part], len[part], q + 2 * d, groups, col0,
                                        shard_cols, 0, 0};
        }
    }
    for (size_t i = 0; i < nb; i++) { /* MUON-BLK-SCALE-1: global multiplies the split dim */
        out[i].scale_rows = out[i].len * out[i].groups * (global && by_rows ? tp : 1);
        out[i].scale_cols = out[i].ncols * (global && by_cols ? tp : 1);
    }
    return nb;
}

/* Element t of block b (stacked order) as an index into the rows x cols matrix. */
static size_t block_index(const gen_block *b, size_t cols, size_t t)
{
    size_t r = t / b->ncols, run = r / b->len;
    return (b->first + run * b->period + r % b->len) * cols + b->col0 + t % b->ncols;
}

static const char *const tp_dims[] = {"none", "rows", "cols"};

void gen_muon_golden_free(gen_muon_golden *gd)
{
    free(gd->p32), free(gd->m32), free(gd->p64), free(gd->m64);
}

/* The exact step and its tolerances (MUON-TOL-1). With a partition (MUON-BLK-*) each block of
 * the direction is orthogonalised and scaled on its own and the bounds add over the blocks
 * (MUON-BLK-TOL-1); without, the whole matrix is one block. */
void gen_muon_exact(const oc_muon_hparams *hp, const oc_muon_partition *part, size_t rows,
                    size_t cols, const float *p, const float *m, const float *g, long prec,
                    gen_muon_golden *gd)
{
    static const oc_muon_partition whole = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    const oc_muon_partition *pt = part ? part : &whole;
    gen_block *blocks = malloc(GEN_MAX_BLOCKS * sizeof *blocks);
    size_t n = rows * cols, k = rows < cols ? rows : cols;
    size_t nblocks = partition_blocks(pt, rows, cols, blocks);
    float *m32 = malloc(n * sizeof *m32), *d32 = malloc(n * sizeof *d32);
    float *o32 = malloc(n * sizeof *o32), *p32 = malloc(n * sizeof *p32);
    float *bin = malloc(n * sizeof *bin), *bout32 = malloc(n * sizeof *bout32);
    double *m64 = malloc(n * sizeof *m64), *o64 = malloc(n * sizeof *o64);
    double *p64 = malloc(n * sizeof *p64), *w = malloc(n * sizeof *w);
    double *kept = malloc(n * sizeof *kept), *sv0 = malloc(k * sizeof *sv0);
    double *bout64 = malloc(n * sizeof *bout64);
    double ns_tol[NS_NCLASSES][2];
    double orth_tol[NS_NCLASSES][2] = {{0}}, orth_norm = 0; /* sums of lr s_b T, lr s_b ||O_b|| */
    mpfr_t x, y, s;
    mpfr_inits2(prec, x, y, s, (mpfr_ptr)0);
    double mu = hp->momentum, take = hp->form == OC_MUON_SGD ? 1.0 : 1.0 - mu;
    for (size_t i = 0; i < n; i++) {                                /* MUON-MOM-1 */
        mpfr_set_flt(x, m[i], MPFR_RNDN);
        mpfr_mul_d(x, x, mu, MPFR_RNDN);
        mpfr_set_flt(y, g[i], MPFR_RNDN);
        mpfr_mul_d(y, y, take, MPFR_RNDN);                          /* 1 - mu exact */
        mpfr_add(x, x, y, MPFR_RNDN);
        m32[i] = mpfr_get_flt(x, MPFR_RNDN);                        /* MUON-STORE-1 */
        m64[i] = mpfr_get_d(x, MPFR_RNDN);
        w[i] = mu * fabs((double)m[i]) + take * fabs((double)g[i]);
        if (hp->nesterov) {                                         /* MUON-NEST-1 */
            mpfr_set_flt(x, m32[i], MPFR_RNDN);
            mpfr_mul_d(x, x, mu, MPFR_RNDN);
            mpfr_add(x, x, y, MPFR_RNDN);
            d32[i] = mpfr_get_flt(x, MPFR_RNDN);                    /* MUON-STORE-1 */
        } else {
            d32[i] = m32[i];
        }
    }
    for (size_t bi = 0; bi < nblocks; bi++) {   /* MUON-NS-1, MUON-BLK-ORTH-1, MUON-BLK-SCALE-1 */
        const gen_block *b = &blocks[bi];
        size_t br = b->len * b->groups, bn = br * b->ncols, bk = br < b->ncols ? br : b->ncols;
        for (size_t t = 0; t < bn; t++)
            bin[t] = d32[block_index(b, cols, t)];
        ns_exact(&hp->ns, br, b->ncols, bin, prec, bout32, bout64, sv0);
        ns_tolerances(&hp->ns, sv0, bk, bn / bk, ns_tol, NULL);
        exact_step(s, hp, b->scale_rows, b->scale_cols);
        double step = hp->lr * muon_scale_bound_factor(hp, b->scale_rows, b->scale_cols);
        for (size_t t = 0; t < bn; t++) {
            size_t i = block_index(b, cols, t);
            o32[i] = bout32[t];
            o64[i] = bout64[t];
        }
        orth_norm += step * norm2(bout64, bn);
        for (int cl = 0; cl < NS_NCLASSES; cl++)
            for (int j = 0; j < 2; j++)
                orth_tol[cl][j] += step * ns_tol[cl][j];
        for (size_t t = 0; t < bn; t++) {                           /* MUON-WD-1, MUON-UPD-1 */
            size_t i = block_index(b, cols, t);
            mpfr_set_flt(x, p[i], MPFR_RNDN);
            mpfr_set_d(y, hp->lr, MPFR_RNDN);
            mpfr_mul_d(y, y, hp->weight_decay, MPFR_RNDN);
            mpfr_ui_sub(y, 1, y, MPFR_RNDN);
            mpfr_mul(x, x, y, MPFR_RNDN);
            kept[i] = fabs(mpfr_get_d(x, MPFR_RNDN));
            mpfr_set_flt(y, o32[i], MPFR_RNDN);
            mpfr_mul(y, y, s, MPFR_RNDN);
            mpfr_sub(x, x, y, MPFR_RNDN);
            p32[i] = mpfr_get_flt(x, MPFR_RNDN);                    /* MUON-STORE-1 */
            p64[i] = mpfr_get_d(x, MPFR_RNDN);
        }
    }
    /* MUON-TOL-1 (common/muon_tolerance.c, summed over blocks, MUON-BLK-TOL-1) */
    muon_tolerances(orth_tol, orth_norm, norm2(p64, n), norm2(m64, n), norm2(w, n),
                    norm2(kept, n), gd->tol_p, gd->tol_m);
    mpfr_clears(x, y, s, (mpfr_ptr)0);
    free(d32), free(o32), free(o64), free(w), free(kept), free(sv0), free(bin), free(bout32);
    free(bout64), free(blocks);
    gd->p32 = p32, gd->m32 = m32, gd->p64 = p64, gd->m64 = m64;
}

/* Writes the partition of a MuonBlockStep group into its hparams (VEC-FMT-12). */
static void partition_json(json_t *hj, const oc_muon_partition *part)
{
    json_object_update_new(hj, json_pack("{s:I,s:s,s:s,s:I,s:I,s:I}", "tpSize",
                                         (json_int_t)part->tp_size, "tpDim", tp_dims[part->tp_dim],
                                         "scaleShape",
                                         part->scale_shape == OC_MUON_SCALE_GLOBAL ? "global"
                                                                                   : "local",
                                         "qkvHeads", (json_int_t)part->qkv_heads, "qkvGroups",
                                         (json_int_t)part->qkv_groups, "qkvHeadDim",
                                         (json_int_t)part->qkv_head_dim));
}

/* Adds expected.<name> {f32, f64, tol} of a matrix-judged output (VEC-FMT-12). */
static void add_matrix_output(family *f, int id, json_t *ex, const char *name, size_t rows,
                              size_t cols, const float *v32, const double *v64,
                              double tol[NS_NCLASSES][2])
{
    char key[32];
    json_t *o = json_object();
    snprintf(key, sizeof key, "%s.out", name);
    family_add_tensor(f, id, key, "F32", rows, cols, v32, o, "f32");
    snprintf(key, sizeof key, "%s.out.f64", name);
    family_add_tensor(f, id, key, "F64", rows, cols, v64, o, "f64");
    snprintf(key, sizeof key, "%s.tol", name);
    family_add_tensor(f, id, key, "F64", NS_NCLASSES, 2, tol, o, "tol");
    json_object_set_new(ex, name, o);
}

/* One valid case: the exact step, tensors and JSON. */
static void emit(family *f, const oc_muon_hparams *hp, const oc_muon_partition *part,
                 const char *comment, const char *flag, size_t rows, size_t cols, float *p,
                 float *m, float *g, mpfr_prec_t prec)
{
    gen_muon_golden gd;
    gen_muon_exact(hp, part, rows, cols, p, m, g, prec, &gd);
    json_t *hj = hparams_json(hp);
    if (part)
        partition_json(hj, part);
    family_group(f, part ? "MuonBlockStep" : "MuonStep", hj);
    int id = f->next_tcid;
    json_t *test = json_pack("{s:s,s:[s],s:[s,s,s,s,s,s,s,s,s],s:s,s:I,s:I}", "comment", comment,
                             "flags", flag, "specRules", "MUON-MOM-1", "MUON-NEST-1", "MUON-NS-1",
                             "MUON-SCALE-1", "MUON-WD-1", "MUON-UPD-1", "MUON-STORE-1",
                             "MUON-TOL-1", profile_rules[hp->profile], "result", "valid", "rows",
                             (json_int_t)rows, "cols", (json_int_t)cols);
    if (part) {
        json_t *rules = json_object_get(test, "specRules");
        json_array_append_new(rules, json_string("MUON-BLK-ORTH-1"));
        json_array_append_new(rules, json_string("MUON-BLK-SCALE-1"));
        json_array_append_new(rules, json_string("MUON-BLK-TOL-1"));
        if (part->tp_size > 1)
            json_array_append_new(rules, json_string("MUON-BLK-TP-1"));
        if (part->qkv_heads)
            json_array_append_new(rules, json_string("MUON-BLK-QKV-1"));
    }
    json_t *in = json_object(), *ex = json_object();
    family_add_tensor(f, id, "p", "F32", rows, cols, p, in, "p");
    family_add_tensor(f, id, "m", "F32", rows, cols, m, in, "m");
    family_add_tensor(f, id, "g", "F32", rows, cols, g, in, "g");
    add_matrix_output(f, id, ex, "p", rows, cols, gd.p32, gd.p64, gd.tol_p);
    add_matrix_output(f, id, ex, "m", rows, cols, gd.m32, gd.m64, gd.tol_m);
    json_object_set_new(test, "inputs", in);
    json_object_set_new(test, "expected", ex);
    family_test(f, test);
    gen_muon_golden_free(&gd);
    free(p), free(m), free(g);
}

static void cases(family *f, const oc_muon_hparams *hp0, mpfr_prec_t prec)
{
    static const size_t shapes[][2] = {{8, 8}, {4, 4}, {6, 16}, {16, 6}, {3, 9}, {9, 3}, {1, 5},
                                       {12, 20}};
    oc_muon_hparams hp = *hp0;
    for (int group = 0; group < 2; group++) {
        if (group == 1) { /* MUON-WD-1, MUON-NEST-1: visible decay, the other Nesterov setting */
            hp.lr = 0.05f;
            hp.weight_decay = 0.5f;
            hp.nesterov = !hp0->nesterov;
        }
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            size_t r = shapes[s][0], c = shapes[s][1], n = r * c;
            float *p = uniform(n, 1);
            float *m = s == 7 ? calloc(n, sizeof(float)) : uniform(n, 0.01);
            float *g = uniform(n, 0.01);
            emit(f, &hp, NULL, s == 7 ? "first step: zero momentum" : "random parameter, momentum, gradient",
                 s == 7 ? "FirstStep" : "Random", r, c, p, m, g, prec);
        }
    }
    /* MUON-HP-1, MUON-ERR-1: momentum 1 must be rejected with the state unchanged. */
    hp.momentum = 1.0;
    family_group(f, "MuonStep", hparams_json(&hp));
    int id = f->next_tcid;
    float *v[3] = {uniform(12, 1), uniform(12, 0.01), uniform(12, 0.01)};
    static const char *const names[3] = {"p", "m", "g"};
    json_t *in = json_object();
    for (int k = 0; k < 3; k++) {
        family_add_tensor(f, id, names[k], "F32", 3, 4, v[k], in, names[k]);
        free(v[k]);
    }
    family_test(f, json_pack("{s:s,s:[s],s:[s,s],s:s,s:i,s:i,s:o}", "comment", "momentum = 1",
                             "flags", "InvalidHyperParameter", "specRules", "MUON-HP-1",
                             "MUON-ERR-1", "result", "invalid", "rows", 3, "cols", 4, "inputs",
                             in));
}

static int gen_muon(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"MUON-HP-1", "MUON-MOM-1", "MUON-NEST-1", "MUON-NS-1",
                                        "MUON-SCALE-1", "MUON-WD-1", "MUON-UPD-1",
                                        "MUON-STORE-1", "MUON-TOL-1", NULL};
    int rc = 0;
    for (int pr = 0; pr < OC_MUON_PROFILE_COUNT && rc == 0; pr++) {
        char name[64];
        oc_muon_hparams hp;
        const char *pname = muon_defaults((oc_muon_profile)pr, &hp);
        snprintf(name, sizeof name, "muon-%s", pname);
        rng.state = opt->seed * 1000043ull + (uint64_t)pr;
        family f;
        if (family_init(&f, name, "muon", pname, rules, opt)) {
            rc = -1;
            break;
        }
        family_note(&f, "Random", "BASIC", "random parameter, momentum and gradient",
                    "general agreement; non-square shapes separate the scale conventions", NULL);
        family_note(&f, "FirstStep", "EDGE_CASE", "zero momentum buffer", "the first step", NULL);
        family_note(&f, "InvalidHyperParameter", "INVALID_INPUT", "hyper-parameter outside MUON-HP-1",
                    "must be rejected with the state left unchanged", NULL);
        cases(&f, &hp, opt->prec);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    return rc;
}

/* Writes vectors/muon-<profile> (spec/muon.md, MUON-*). */
const gen_family gen_family_muon = {.name = "muon", .generate = gen_muon};

/* ---- Blocks: split QKV and blockwise tensor parallelism (MUON-BLK-*) ---- */

/* A rows x cols case of the partition, from random p (scale 1), m and g (scale 0.01); m zero
 * for a first step. */
static void block_case(family *f, const oc_muon_hparams *hp, const oc_muon_partition *part,
                       const char *comment, const char *flag, size_t rows, size_t cols,
                       int first_step, mpfr_prec_t prec)
{
    size_t n = rows * cols;
    float *p = uniform(n, 1);
    float *m = first_step ? calloc(n, sizeof(float)) : uniform(n, 0.01);
    emit(f, hp, part, comment, flag, rows, cols, p, m, uniform(n, 0.01), prec);
}

/* A case that must be rejected with the state unchanged (MUON-ERR-1): `flag` InvalidPartition
 * (MUON-BLK-ERR-1), InvalidHyperParameter (MUON-HP-1, NS-HP-1) or NonFiniteInput (p, m or g
 * holds a NaN at element 1: `nan_in` 0, 1, 2; -1 for none). */
static void rejected_case(family *f, const oc_muon_hparams *hp, const oc_muon_partition *part,
                          const char *comment, const char *flag, const char *rule, int nan_in,
                          size_t rows, size_t cols)
{
    json_t *hj = hparams_json(hp);
    partition_json(hj, part);
    family_group(f, "MuonBlockStep", hj);
    int id = f->next_tcid;
    static const char *const names[3] = {"p", "m", "g"};
    json_t *in = json_object();
    for (int k = 0; k < 3; k++) {
        float *v = uniform(rows * cols, k ? 0.01 : 1);
        if (k == nan_in)
            v[1] = NAN;
        family_add_tensor(f, id, names[k], "F32", rows, cols, v, in, names[k]);
        free(v);
    }
    family_test(f, json_pack("{s:s,s:[s],s:[s,s],s:s,s:I,s:I,s:o}", "comment", comment, "flags",
                             flag, "specRules", rule, "MUON-ERR-1", "result", "invalid", "rows",
                             (json_int_t)rows, "cols", (json_int_t)cols, "inputs", in));
}

#define NO_FIELD ((size_t)-1)

/* MUON-BLK-ERR-1: a partition that does not fit the shape. */
static void block_invalid(family *f, const oc_muon_hparams *hp, const oc_muon_partition *part,
                          const char *comment, size_t rows, size_t cols)
{
    rejected_case(f, hp, part, comment, "InvalidPartition", "MUON-BLK-ERR-1", -1, rows, cols);
}

/* MUON-HP-1, NS-HP-1, MUON-ERR-1 (issue 19 item 3): one case per sub-condition of the
 * hyper-parameter check, each with one field just outside its range (or NaN), on a valid
 * column-parallel TP 2 partition; then a NaN in p, m and g in turn. The step count and the
 * number of tuples are bounded by the schema (1..99, 1..16): no vector holds others. */
static void hparam_invalid(family *f, const oc_muon_hparams *hp0)
{
    static const oc_muon_partition part = {2, OC_MUON_TP_ROWS, OC_MUON_SCALE_LOCAL, 0, 0, 0};
    static const struct { const char *what; size_t field; double value; int coef; } cases[] = {
        {"lr = NaN", offsetof(oc_muon_hparams, lr), NAN, -1},
        {"lr = 2e6 (above 1e6)", offsetof(oc_muon_hparams, lr), 2e6, -1},
        {"momentum = -2^-4", offsetof(oc_muon_hparams, momentum), -0x1p-4, -1},
        {"momentum = NaN", offsetof(oc_muon_hparams, momentum), NAN, -1},
        {"weight decay = -2^-7", offsetof(oc_muon_hparams, weight_decay), -0x1p-7, -1},
        {"weight decay = 2e6 (above 1e6)", offsetof(oc_muon_hparams, weight_decay), 2e6, -1},
        {"extra scale = 0", offsetof(oc_muon_hparams, extra_scale), 0.0, -1},
        {"extra scale = 2e6 (above 1e6)", offsetof(oc_muon_hparams, extra_scale), 2e6, -1},
        {"eps = 0 (below 2^-149)", offsetof(oc_muon_hparams, ns.eps), 0.0, -1},
        {"eps = 2 (above 1)", offsetof(oc_muon_hparams, ns.eps), 2.0, -1},
        {"norm factor s = 0.5 (below 1)", offsetof(oc_muon_hparams, ns.norm_scale), 0.5, -1},
        {"norm factor s = 3 (above 2)", offsetof(oc_muon_hparams, ns.norm_scale), 3.0, -1},
        {"coefficient a of the last tuple = 256", NO_FIELD, 256.0, 0},
        {"coefficient b of the last tuple = -256", NO_FIELD, -256.0, 1},
        {"coefficient c of the last tuple = NaN", NO_FIELD, NAN, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        oc_muon_hparams hp = *hp0;
        if (cases[i].coef >= 0)
            hp.ns.coef[hp.ns.ncoef - 1][cases[i].coef] = cases[i].value;
        else
            *(double *)((char *)&hp + cases[i].field) = cases[i].value;
        rejected_case(f, &hp, &part, cases[i].what, "InvalidHyperParameter", "MUON-HP-1", -1, 16, 8);
    }
    static const char *const poisoned[3] = {"a NaN in p", "a NaN in the momentum", "a NaN in g"};
    for (int k = 0; k < 3; k++)
        rejected_case(f, hp0, &part, poisoned[k], "NonFiniteInput", "MUON-ERR-1", k, 16, 8);
}

/* The fused QKV weight of `groups` query groups: rows = groups (heads / groups + 2) d. */
static void qkv_cases(family *f, const oc_muon_hparams *hp0, mpfr_prec_t prec)
{
    static const struct { size_t heads, groups, d, hidden, tp; const char *what; } shapes[] = {
        {4, 4, 4, 32, 1, "MHA: 4 heads, d 4, hidden 32"},
        {8, 2, 4, 32, 1, "GQA: 8 heads in 2 query groups, d 4, hidden 32"},
        {4, 1, 4, 16, 1, "MQA: 4 heads, one key/value head, d 4, hidden 16"},
        {6, 3, 8, 16, 1, "GQA with tall blocks: 6 heads in 3 groups, d 8, hidden 16"},
        {8, 4, 2, 24, 2, "GQA under column-parallel TP 2: 8 heads in 4 groups, d 2, hidden 24"},
    };
    oc_muon_hparams hp = *hp0;
    for (int group = 0; group < 2; group++) {
        if (group == 1) { /* a larger lr, visible decay, the other Nesterov setting */
            hp.lr = 0.02f;
            hp.weight_decay = 0.1f;
            hp.nesterov = !hp0->nesterov;
        }
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            oc_muon_partition part = {shapes[s].tp, shapes[s].tp > 1 ? OC_MUON_TP_ROWS : OC_MUON_TP_NONE,
                                      OC_MUON_SCALE_GLOBAL, shapes[s].heads, shapes[s].groups,
                                      shapes[s].d};
            size_t rows = (shapes[s].heads + 2 * shapes[s].groups) * shapes[s].d;
            block_case(f, &hp, &part, shapes[s].what, group ? "SplitQkvDecay" : "SplitQkv", rows,
                       shapes[s].hidden, group == 1 && s == 0, prec);
        }
    }
    oc_muon_partition bad = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 4, 4, 4};
    block_invalid(f, hp0, &bad, "rows 40 for an MHA layout of 48 rows", 40, 8);
    bad.qkv_heads = 6; /* 6 heads in 4 groups */
    block_invalid(f, hp0, &bad, "heads not a multiple of the query groups", 64, 8);
    bad = (oc_muon_partition){2, OC_MUON_TP_COLS, OC_MUON_SCALE_GLOBAL, 4, 4, 4};
    block_invalid(f, hp0, &bad, "QKV split of a row-parallel weight", 48, 8);
    bad = (oc_muon_partition){2, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 3, 3, 4};
    block_invalid(f, hp0, &bad, "3 query groups over 2 TP ranks", 60, 8);
    /* one case per remaining sub-condition of MUON-BLK-QKV-1 (issue 19 item 3) */
    static const struct { size_t heads, groups, d; const char *what; } qkv_bad[] = {
        {4, 0, 4, "4 heads in 0 query groups"},
        {0, 1, 4, "0 heads in 1 query group"},
        {0, 0, 4, "0 heads in 0 query groups with head dim 4"},
        {4, 4, 0, "head dim 0"},
        {((size_t)1 << 20) + 1, 1, 1, "2^20 + 1 heads (above 2^20)"},
        {1, 1, ((size_t)1 << 20) + 1, "head dim 2^20 + 1 (above 2^20)"},
    };
    for (size_t i = 0; i < sizeof qkv_bad / sizeof qkv_bad[0]; i++) {
        bad = (oc_muon_partition){1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, qkv_bad[i].heads,
                                  qkv_bad[i].groups, qkv_bad[i].d};
        block_invalid(f, hp0, &bad, qkv_bad[i].what, 48, 8);
    }
}

static void tp_cases(family *f, const oc_muon_hparams *hp0, mpfr_prec_t prec)
{
    /* MUON-BLK-SCALE-1: the megatron profile is Megatron's blockwise mode, which scales by the
     * shard's own shape (partition_dim = None), so every case is `local` */
    static const struct { size_t rows, cols, tp; oc_muon_tp_dim dim; const char *what; } cases[] = {
        {32, 8, 2, OC_MUON_TP_ROWS, "column-parallel TP 2"},
        {32, 8, 4, OC_MUON_TP_ROWS, "column-parallel TP 4"},
        {8, 32, 2, OC_MUON_TP_COLS, "row-parallel TP 2"},
        {8, 32, 4, OC_MUON_TP_COLS, "row-parallel TP 4"},
        {16, 16, 2, OC_MUON_TP_ROWS, "column-parallel TP 2 of a square weight"},
        {24, 12, 4, OC_MUON_TP_ROWS, "column-parallel TP 4, wide shards"},
    };
    oc_muon_hparams hp = *hp0;
    for (int group = 0; group < 2; group++) {
        if (group == 1) { /* Keller's shape_scaling: sqrt(max(1, rows / cols)) also sees the shape */
            hp.scale = OC_MUON_SHAPE_SCALING;
            hp.lr = 0.02f;
            hp.nesterov = !hp0->nesterov;
        }
        for (size_t s = 0; s < sizeof cases / sizeof cases[0]; s++) {
            oc_muon_partition part = {cases[s].tp, cases[s].dim, OC_MUON_SCALE_LOCAL, 0, 0, 0};
            block_case(f, &hp, &part, cases[s].what, group ? "TpBlocksShapeScaling" : "TpBlocks",
                       cases[s].rows, cases[s].cols, 0, prec);
        }
    }
    /* MUON-SCALE-1's third mode, unit_rms_norm sqrt(rows / cols), on a tall and a wide shard
     * (issue 19 item 3: every value of every configuration parameter has a case) */
    hp.scale = OC_MUON_UNIT_RMS_NORM;
    for (size_t s = 0; s < 4; s += 3) {
        oc_muon_partition part = {cases[s].tp, cases[s].dim, OC_MUON_SCALE_LOCAL, 0, 0, 0};
        block_case(f, &hp, &part, cases[s].what, "TpBlocksUnitRms", cases[s].rows,
                   cases[s].cols, 0, prec);
    }
    oc_muon_partition bad = {4, OC_MUON_TP_ROWS, OC_MUON_SCALE_LOCAL, 0, 0, 0};
    block_invalid(f, hp0, &bad, "30 rows over 4 TP ranks (uneven shards)", 30, 8);
    bad.tp_dim = OC_MUON_TP_NONE;
    block_invalid(f, hp0, &bad, "TP size 4 without a split dimension", 32, 8);
    bad = (oc_muon_partition){0, OC_MUON_TP_ROWS, OC_MUON_SCALE_LOCAL, 0, 0, 0};
    block_invalid(f, hp0, &bad, "TP size 0", 32, 8);
    bad = (oc_muon_partition){4, OC_MUON_TP_COLS, OC_MUON_SCALE_LOCAL, 0, 0, 0};
    block_invalid(f, hp0, &bad, "30 columns over 4 TP ranks (uneven shards)", 8, 30);
    bad.tp_size = 65;
    block_invalid(f, hp0, &bad, "TP size 65 (above 64)", 4, 130);
    hparam_invalid(f, hp0);
}

static int gen_muon_blocks(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"MUON-BLK-ORTH-1", "MUON-BLK-SCALE-1", "MUON-BLK-TOL-1",
                                        "MUON-BLK-TP-1", "MUON-BLK-QKV-1", "MUON-BLK-ERR-1",
                                        NULL};
    static const char *const names[2] = {"muon-blocks-megatron-qkv", "muon-blocks-megatron-tp"};
    int rc = 0;
    for (int fam = 0; fam < 2 && rc == 0; fam++) {
        oc_muon_hparams hp;
        muon_defaults(OC_MUON_MEGATRON, &hp);
        rng.state = opt->seed * 1000039ull + (uint64_t)fam;
        family f;
        if (family_init(&f, names[fam], "muon-blocks", "megatron", rules, opt))
            return -1;
        if (fam == 0) {
            family_note(&f, "SplitQkv", "BASIC", "fused QKV weight split per query group",
                        "Q, K, V orthogonalised separately (Megatron split_qkv)", NULL);
            family_note(&f, "SplitQkvDecay", "BASIC", "split QKV with lr 0.02, wd 0.1",
                        "the other Nesterov setting and a visible decay", NULL);
        } else {
            family_note(&f, "TpBlocks", "BASIC", "blockwise tensor-parallel orthogonalisation",
                        "each rank's shard orthogonalised alone and scaled by its own shape",
                        NULL);
            family_note(&f, "TpBlocksShapeScaling", "BASIC", "blockwise TP with shape_scaling",
                        "the scale shape under Keller's convention", NULL);
            family_note(&f, "TpBlocksUnitRms", "BASIC", "blockwise TP with unit_rms_norm",
                        "the scale sqrt(rows / cols) of the shard's own shape", NULL);
            family_note(&f, "InvalidHyperParameter", "INVALID_INPUT",
                        "hyper-parameter outside MUON-HP-1 / NS-HP-1",
                        "must be rejected with the state left unchanged", NULL);
            family_note(&f, "NonFiniteInput", "INVALID_INPUT", "a NaN in p, m or g",
                        "must be rejected with the state left unchanged", NULL);
        }
        family_note(&f, "InvalidPartition", "INVALID_INPUT", "partition that does not fit",
                    "must be rejected with the state left unchanged", NULL);
        if (fam == 0)
            qkv_cases(&f, &hp, opt->prec);
        else
            tp_cases(&f, &hp, opt->prec);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    return rc;
}

/* Writes vectors/muon-blocks-megatron-qkv and -tp (spec/muon.md, MUON-BLK-*). */
const gen_family gen_family_muon_blocks = {.name = "muon-blocks", .generate = gen_muon_blocks};

/* ---- The mixed Muon + AdamW family over a small model's parameters (ROUTE-*) ---- */

/* The AdamStep fields of the group's `adamw` object (VEC-FMT-12). */
static json_t *adamw_json(const oc_adam_hparams *hp)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:b,s:b}", "lr", hexfloat(hp->lr), "beta1",
                     hexfloat(hp->beta1), "beta2", hexfloat(hp->beta2), "eps", hexfloat(hp->eps),
                     "weightDecay", hexfloat(hp->weight_decay), "epsRoot", hexfloat(hp->eps_root),
                     "scheduleMultiplier", hexfloat(hp->schedule_multiplier), "decoupled",
                     hp->decoupled, "amsgrad", hp->amsgrad, "maximize", hp->maximize);
}

/* A parameter of the model: Megatron-LM GPT names, shape and the attribute. */
typedef struct model_param {
    const char *name;
    int ndim;
    size_t dims[OC_PARAM_MAX_DIMS];
    int is_embedding_or_output;
    const char *why;
} model_param;

/* The AdamW step of every element (ADAM-*, with ROUTE-WD-1's multiplier), golden outputs p, m,
 * v and their fp32 bounds into the test's expected. */
static void adamw_expected(family *f, int id, json_t *ex, const oc_adam_hparams *hp, int64_t t,
                           size_t rows, size_t cols, const float *p, const float *m,
                           const float *v, const float *g, mpfr_prec_t prec)
{
    static const char *const names[3] = {"p", "m", "v"};
    size_t n = rows * cols;
    adam_exact_ctx *cx = adam_exact_new(prec);
    float *o32[3];
    double *o64[3], *tol[3];
    for (int k = 0; k < 3; k++) {
        o32[k] = malloc(n * sizeof(float));
        o64[k] = malloc(n * sizeof(double));
        tol[k] = malloc(n * sizeof(double));
    }
    adam_exact_begin_step(cx, hp, t);
    for (size_t i = 0; i < n; i++) {
        float state[ADAM_NOUT] = {p[i], m[i], v[i], 0};
        double bound[ADAM_NOUT] = {0};
        gen_golden out;
        adam_exact_element(cx, hp, g[i], state, bound, &out);
        for (int k = 0; k < 3; k++) {
            o32[k][i] = out.f32[k];
            o64[k][i] = out.f64[k];
            tol[k][i] = out.tol[k];
        }
    }
    for (int k = 0; k < 3; k++) {
        char key[32];
        json_t *o = json_object();
        snprintf(key, sizeof key, "%s.out", names[k]);
        family_add_tensor(f, id, key, "F32", rows, cols, o32[k], o, "f32");
        snprintf(key, sizeof key, "%s.out.f64", names[k]);
        family_add_tensor(f, id, key, "F64", rows, cols, o64[k], o, "f64");
        snprintf(key, sizeof key, "%s.tol", names[k]);
        family_add_tensor(f, id, key, "F64", rows, cols, tol[k], o, "tol");
        json_object_set_new(ex, names[k], o);
        free(o32[k]), free(o64[k]), free(tol[k]);
    }
    adam_exact_free(cx);
}

/* One parameter's test: the route (ROUTE-RULE-1) and the routed step's exact outputs. */
static void route_case(family *f, const oc_route_hparams *hp, const model_param *mp, int64_t t,
                       mpfr_prec_t prec)
{
    /* ROUTE-PARAM-1: stored as the 2-D shape, 1 x n for 1-D, dims[0] x rest above 2-D */
    size_t n = 1;
    for (int k = 0; k < mp->ndim; k++)
        n *= mp->dims[k];
    size_t rows = mp->ndim == 1 ? 1 : mp->dims[0], cols = n / rows;
    /* ROUTE-RULE-1: Muon exactly for a 2-D parameter without the embedding/output attribute */
    oc_route route = mp->ndim == 2 && !mp->is_embedding_or_output ? OC_ROUTE_MUON : OC_ROUTE_ADAMW;
    float *p = uniform(n, 1), *m = uniform(n, 0.01), *v = uniform(n, 1e-4), *g = uniform(n, 0.01);
    for (size_t i = 0; i < n; i++)
        v[i] = fabsf(v[i]); /* a second moment */
    json_t *shape = json_array();
    for (int k = 0; k < mp->ndim; k++)
        json_array_append_new(shape, json_integer((json_int_t)mp->dims[k]));
    int id = f->next_tcid;
    json_t *test = json_pack(
        "{s:s,s:[s],s:[s,s,s],s:s,s:I,s:I,s:I,s:{s:s,s:o,s:b}}", "comment", mp->why, "flags",
        route == OC_ROUTE_MUON ? "RoutedToMuon" : "RoutedToAdamW", "specRules", "ROUTE-RULE-1",
        "ROUTE-PARAM-1", route == OC_ROUTE_MUON ? "MUON-TOL-1" : "ROUTE-WD-1", "result", "valid",
        "rows", (json_int_t)rows, "cols", (json_int_t)cols, "firstStep", (json_int_t)t,
        "parameter", "name", mp->name, "shape", shape, "isEmbeddingOrOutput",
        mp->is_embedding_or_output);
    json_t *in = json_object(), *ex = json_object();
    family_add_tensor(f, id, "p", "F32", rows, cols, p, in, "p");
    family_add_tensor(f, id, "m", "F32", rows, cols, m, in, "m");
    family_add_tensor(f, id, "v", "F32", rows, cols, v, in, "v");
    family_add_tensor(f, id, "g", "F32", rows, cols, g, in, "g");
    json_object_set_new(test, "expectedRoute", json_string(route == OC_ROUTE_MUON ? "muon" : "adamw"));
    if (route == OC_ROUTE_MUON) {
        gen_muon_golden gd;
        gen_muon_exact(&hp->muon, NULL, rows, cols, p, m, g, prec, &gd);
        add_matrix_output(f, id, ex, "p", rows, cols, gd.p32, gd.p64, gd.tol_p);
        add_matrix_output(f, id, ex, "m", rows, cols, gd.m32, gd.m64, gd.tol_m);
        gen_muon_golden_free(&gd);
    } else {
        oc_adam_hparams a = hp->adamw;
        size_t len = strlen(mp->name);
        if (mp->ndim == 1 || (len >= 5 && strcmp(mp->name + len - 5, ".bias") == 0))
            a.weight_decay = 0; /* ROUTE-WD-1 */
        adamw_expected(f, id, ex, &a, t, rows, cols, p, m, v, g, prec);
    }
    json_object_set_new(test, "inputs", in);
    json_object_set_new(test, "expected", ex);
    family_test(f, test);
    free(p), free(m), free(v), free(g);
}

/* ROUTE-PARAM-1 / ROUTE-HP-1 violations (`rule`): rejected with nothing written. Tensors of 4
 * elements as rows x (4 / rows). */
static void route_invalid(family *f, const char *name, const json_t *shape, int rows,
                          const char *rule, const char *why)
{
    int id = f->next_tcid;
    static const char *const names[4] = {"p", "m", "v", "g"};
    json_t *in = json_object();
    for (int k = 0; k < 4; k++) {
        float *x = uniform(4, 0.5);
        x[0] = fabsf(x[0]);
        family_add_tensor(f, id, names[k], "F32", (size_t)rows, 4 / (size_t)rows, x, in, names[k]);
        free(x);
    }
    family_test(f, json_pack("{s:s,s:[s],s:[s,s],s:s,s:i,s:i,s:i,s:{s:s,s:O,s:b},s:o}", "comment",
                             why, "flags", "InvalidParameter", "specRules", rule,
                             "ROUTE-ERR-1", "result", "invalid", "rows", rows, "cols", 4 / rows,
                             "firstStep", 3, "parameter", "name", name, "shape", shape,
                             "isEmbeddingOrOutput", 0, "inputs", in));
}

static int gen_muon_route(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"ROUTE-PARAM-1", "ROUTE-RULE-1", "ROUTE-HP-1",
                                        "ROUTE-WD-1", "ROUTE-ERR-1", NULL};
    static const model_param model[] = {
        {"embedding.word_embeddings.weight", 2, {32, 8}, 1, "token embedding (attribute set)"},
        {"decoder.layers.0.input_layernorm.weight", 1, {8}, 0, "norm gain (1-D, no decay)"},
        {"decoder.layers.0.self_attention.linear_qkv.weight", 2, {24, 8}, 0, "fused QKV weight"},
        {"decoder.layers.0.self_attention.linear_qkv.bias", 1, {24}, 0, "bias (1-D, no decay)"},
        {"decoder.layers.0.self_attention.linear_proj.weight", 2, {8, 8}, 0, "attention output"},
        {"decoder.layers.0.mlp.linear_fc1.weight", 2, {16, 8}, 0, "MLP up projection (tall)"},
        {"decoder.layers.0.mlp.linear_fc2.weight", 2, {8, 16}, 0, "MLP down projection (wide)"},
        {"decoder.final_layernorm.weight", 1, {8}, 0, "final norm gain"},
        {"output_layer.weight", 2, {32, 8}, 1,
         "output head: routed by its attribute, its name has no 'embed'"},
        {"vision.conv1.weight", 4, {8, 3, 2, 2}, 0, "4-D convolution kernel"},
        {"decoder.layers.0.mlp.linear_fc2.bias", 1, {8}, 0, "bias of the down projection"},
    };
    oc_route_hparams hp;
    muon_defaults(OC_MUON_MEGATRON, &hp.muon);
    /* Megatron's Adam for the rest: TE FusedAdam with adam_w_mode (torch AdamW), the config
     * defaults beta1 0.9, beta2 0.999, eps 1e-8, the same lr and weight decay as Muon. */
    hp.adamw = (oc_adam_hparams){OC_ADAM_TORCH, hp.muon.lr, 0.9f, 0.999f, 1e-8f,
                                 hp.muon.weight_decay, 0, 1, 1, 0, 0};
    rng.state = opt->seed * 1000033ull + 7;
    family f;
    if (family_init(&f, "muon-route-megatron", "muon-route", "megatron", rules, opt))
        return -1;
    family_note(&f, "RoutedToMuon", "BASIC", "2-D hidden weight", "stepped by Muon", NULL);
    family_note(&f, "RoutedToAdamW", "BASIC", "embedding, head, gain, bias or non-2-D",
                "stepped by AdamW", NULL);
    family_note(&f, "InvalidParameter", "INVALID_INPUT", "outside ROUTE-PARAM-1 or ROUTE-HP-1",
                "must be rejected with the state left unchanged", NULL);
    for (int group = 0; group < 2; group++) {
        if (group == 1) { /* larger lr and decay: the decay multiplier of ROUTE-WD-1 is visible */
            hp.muon.lr = hp.adamw.lr = 0.01f;
            hp.muon.weight_decay = hp.adamw.weight_decay = 0.1f;
        }
        json_t *hj = hparams_json(&hp.muon);
        json_object_set_new(hj, "adamw", adamw_json(&hp.adamw));
        family_group(&f, "RoutedStep", hj);
        for (size_t i = 0; i < sizeof model / sizeof model[0]; i++)
            route_case(&f, &hp, &model[i], group ? 1 : 3, opt->prec);
    }
    json_t *s0 = json_array(), *s5 = json_pack("[i,i,i,i,i]", 1, 1, 1, 1, 4);
    json_t *sz = json_pack("[i,i]", 4, 0);
    json_t *s22 = json_pack("[i,i]", 2, 2);
    route_invalid(&f, "scalar.weight", s0, 1, "ROUTE-PARAM-1", "a 0-D parameter");
    route_invalid(&f, "empty.weight", sz, 1, "ROUTE-PARAM-1", "a dimension of 0");
    route_invalid(&f, "five.weight", s5, 1, "ROUTE-PARAM-1", "a 5-D parameter");
    hp.adamw.amsgrad = 1; /* ROUTE-HP-1: the AdamW of the mixed optimizer has no AMSGrad */
    json_t *hj = hparams_json(&hp.muon);
    json_object_set_new(hj, "adamw", adamw_json(&hp.adamw));
    family_group(&f, "RoutedStep", hj);
    route_invalid(&f, "decoder.layers.0.mlp.linear_fc1.weight", s22, 2, "ROUTE-HP-1",
                  "AdamW with AMSGrad (the parameter would go to Muon)");
    /* issue 19 item 3: the other sub-conditions of ROUTE-HP-1 and ROUTE-PARAM-1, one each */
    static const struct { int decoupled, maximize; double muon_lr, beta1; const char *why; }
    hp_bad[] = {
        {0, 0, -1, -1, "AdamW with L2 decay, not decoupled (the parameter would go to Muon)"},
        {1, 1, -1, -1, "AdamW with maximize (the parameter would go to Muon)"},
        {1, 0, NAN, -1, "Muon lr = NaN (MUON-HP-1)"},
        {1, 0, -1, 1.0, "AdamW beta1 = 1 (ADAM-HP-1)"},
    };
    for (size_t i = 0; i < sizeof hp_bad / sizeof hp_bad[0]; i++) {
        oc_route_hparams bad = hp;
        bad.adamw.amsgrad = 0;
        bad.adamw.decoupled = hp_bad[i].decoupled;
        bad.adamw.maximize = hp_bad[i].maximize;
        if (hp_bad[i].muon_lr != -1)
            bad.muon.lr = hp_bad[i].muon_lr;
        if (hp_bad[i].beta1 != -1)
            bad.adamw.beta1 = hp_bad[i].beta1;
        hj = hparams_json(&bad.muon);
        json_object_set_new(hj, "adamw", adamw_json(&bad.adamw));
        family_group(&f, "RoutedStep", hj);
        route_invalid(&f, "decoder.layers.0.mlp.linear_fc1.weight", s22, 2, "ROUTE-HP-1",
                      hp_bad[i].why);
    }
    json_t *s04 = json_pack("[i,i]", 0, 4);
    route_invalid(&f, "lead.weight", s04, 1, "ROUTE-PARAM-1", "a first dimension of 0");
    json_decref(s04);
    /* issue 19 item 3, appended: ROUTE-PARAM-1's name length and element-count bounds, then
     * (valid, the second group's lr and decay) ROUTE-WD-1's name test on a name shorter than
     * ".bias" and on a bias that is not 1-D */
    char long_name[OC_PARAM_MAX_NAME + 8];
    memset(long_name, 'w', OC_PARAM_MAX_NAME);
    strcpy(long_name + OC_PARAM_MAX_NAME - 7, ".weight"); /* strlen = OC_PARAM_MAX_NAME */
    hp.adamw.amsgrad = 0; /* a valid group: only the parameter is wrong */
    hj = hparams_json(&hp.muon);
    json_object_set_new(hj, "adamw", adamw_json(&hp.adamw));
    family_group(&f, "RoutedStep", hj);
    json_t *big_rest = json_pack("[i,I,i]", 2, (json_int_t)OC_NS_MAX_ELEMS / 2 + 1, 2);
    json_t *big_lead = json_pack("[I,i]", (json_int_t)OC_NS_MAX_ELEMS / 2 + 1, 2);
    route_invalid(&f, long_name, s22, 2, "ROUTE-PARAM-1",
                  "a name of OC_PARAM_MAX_NAME (128) characters");
    route_invalid(&f, "wide.weight", big_rest, 2, "ROUTE-PARAM-1",
                  "2 x (2^23 + 1) x 2: the trailing dimensions' product beyond 2^24");
    route_invalid(&f, "tall.weight", big_lead, 2, "ROUTE-PARAM-1",
                  "(2^23 + 1) x 2: more than 2^24 elements (the first dimension)");
    json_decref(big_rest), json_decref(big_lead);
    static const model_param appended[] = {
        {"w", 2, {8, 4}, 0, "a 2-D hidden weight with a name shorter than '.bias'"},
        {"vision.patch_embed.pos.bias", 3, {1, 4, 8}, 0,
         "a 3-D bias: AdamW, and no decay by its name (ROUTE-WD-1)"},
    };
    for (size_t i = 0; i < sizeof appended / sizeof appended[0]; i++)
        route_case(&f, &hp, &appended[i], 1, opt->prec);
    json_decref(s0), json_decref(s5), json_decref(sz), json_decref(s22);
    int rc = family_save(&f, outdir);
    family_free(&f);
    return rc;
}

/* Writes vectors/muon-route-megatron (spec/muon.md, ROUTE-*). */
const gen_family gen_family_muon_route = {.name = "muon-route", .generate = gen_muon_route};
