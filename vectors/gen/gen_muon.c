/* Muon step vector families (spec/muon.md, rules MUON-*): the exact step in MPFR with the
 * exact Newton-Schulz of gen_newton_schulz.c, tolerances MUON-TOL-1, and the cases. tcIds are
 * assigned in generation order: append new cases at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/muon.h"
#include "family.h"
#include "gen.h"
#include "ns_model.h"
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

/* Element t of block b (stacked order) as an index into the rows x cols matrix (MUON-BLK-*). */
static size_t block_index(const oc_muon_block *b, size_t cols, size_t t)
{
    size_t r = t / b->ncols, c = t % b->ncols;
    return (b->row0 + r / b->run * b->stride + r % b->run) * cols + b->col0 + c;
}

static const char *const tp_dims[] = {"none", "rows", "cols"};

/* One valid case: the exact step and its tolerances (MUON-TOL-1), tensors and JSON. With a
 * partition (MUON-BLK-*) each block of the direction is orthogonalised and scaled on its own
 * and the bounds add over the blocks (MUON-BLK-TOL-1); without, the whole matrix is one block. */
static void emit(family *f, const oc_muon_hparams *hp, const oc_muon_partition *part,
                 const char *comment, const char *flag, size_t rows, size_t cols, float *p,
                 float *m, float *g, mpfr_prec_t prec)
{
    static const oc_muon_partition whole = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    const oc_muon_partition *pt = part ? part : &whole;
    size_t n = rows * cols, k = rows < cols ? rows : cols, nblocks = oc_muon_block_count(pt);
    float *m32 = malloc(n * sizeof *m32), *d32 = malloc(n * sizeof *d32);
    float *o32 = malloc(n * sizeof *o32), *p32 = malloc(n * sizeof *p32);
    float *bin = malloc(n * sizeof *bin), *bout32 = malloc(n * sizeof *bout32);
    double *m64 = malloc(n * sizeof *m64), *o64 = malloc(n * sizeof *o64);
    double *p64 = malloc(n * sizeof *p64), *w = malloc(n * sizeof *w);
    double *kept = malloc(n * sizeof *kept), *sv0 = malloc(k * sizeof *sv0);
    double *bout64 = malloc(n * sizeof *bout64);
    double ns_tol[NS_NCLASSES][2], tol_p[NS_NCLASSES][2], tol_m[NS_NCLASSES][2];
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
        oc_muon_block b;
        oc_muon_block_at(pt, rows, cols, bi, &b);
        size_t br = b.run * b.nruns, bn = br * b.ncols, bk = br < b.ncols ? br : b.ncols;
        for (size_t t = 0; t < bn; t++)
            bin[t] = d32[block_index(&b, cols, t)];
        ns_exact(&hp->ns, br, b.ncols, bin, prec, bout32, bout64, sv0);
        ns_tolerances(&hp->ns, sv0, bk, bn / bk, ns_tol);
        exact_step(s, hp, b.scale_rows, b.scale_cols);
        double step = hp->lr * oc_muon_scale_factor(hp, b.scale_rows, b.scale_cols);
        for (size_t t = 0; t < bn; t++) {
            size_t i = block_index(&b, cols, t);
            o32[i] = bout32[t];
            o64[i] = bout64[t];
        }
        orth_norm += step * norm2(bout64, bn);
        for (int cl = 0; cl < NS_NCLASSES; cl++)
            for (int j = 0; j < 2; j++)
                orth_tol[cl][j] += step * ns_tol[cl][j];
        for (size_t t = 0; t < bn; t++) {                           /* MUON-WD-1, MUON-UPD-1 */
            size_t i = block_index(&b, cols, t);
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
    /* MUON-TOL-1: the momentum elementwise (three roundings, or one for the exact class); the
     * parameter: lr * scale times the orthogonalisation's bound of the class, plus four
     * roundings of the elementwise update (summed over blocks, MUON-BLK-TOL-1). */
    double pnorm = norm2(p64, n), mnorm = norm2(m64, n), wnorm = norm2(w, n);
    double keptnorm = norm2(kept, n);
    for (int cl = 0; cl < NS_NCLASSES; cl++) {
        double u = 0x1p-24, elem_m = cl == NS_CLASS_EXACT ? u * mnorm : u * mnorm + 3 * u * wnorm;
        double elem_p = cl == NS_CLASS_EXACT ? u * pnorm + u * orth_norm
                                             : u * pnorm + 4 * u * (keptnorm + orth_norm);
        tol_m[cl][0] = tol_m[cl][1] = elem_m * (1 + 0x1p-20);
        tol_p[cl][0] = (orth_tol[cl][0] + elem_p) * (1 + 0x1p-20);
        tol_p[cl][1] = (orth_tol[cl][1] + elem_p) * (1 + 0x1p-20);
    }
    json_t *hj = hparams_json(hp);
    if (part)
        json_object_update_new(hj, json_pack("{s:I,s:s,s:s,s:I,s:I,s:I}", "tpSize",
                                             (json_int_t)part->tp_size, "tpDim",
                                             tp_dims[part->tp_dim], "scaleShape",
                                             part->scale_shape == OC_MUON_SCALE_GLOBAL ? "global"
                                                                                       : "local",
                                             "qkvHeads", (json_int_t)part->qkv_heads, "qkvGroups",
                                             (json_int_t)part->qkv_groups, "qkvHeadDim",
                                             (json_int_t)part->qkv_head_dim));
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
    json_t *in = json_object(), *ep = json_object(), *em = json_object();
    family_add_tensor(f, id, "p", "F32", rows, cols, p, in, "p");
    family_add_tensor(f, id, "m", "F32", rows, cols, m, in, "m");
    family_add_tensor(f, id, "g", "F32", rows, cols, g, in, "g");
    family_add_tensor(f, id, "p.out", "F32", rows, cols, p32, ep, "f32");
    family_add_tensor(f, id, "p.out.f64", "F64", rows, cols, p64, ep, "f64");
    family_add_tensor(f, id, "p.tol", "F64", NS_NCLASSES, 2, tol_p, ep, "tol");
    family_add_tensor(f, id, "m.out", "F32", rows, cols, m32, em, "f32");
    family_add_tensor(f, id, "m.out.f64", "F64", rows, cols, m64, em, "f64");
    family_add_tensor(f, id, "m.tol", "F64", NS_NCLASSES, 2, tol_m, em, "tol");
    json_object_set_new(test, "inputs", in);
    json_object_set_new(test, "expected", json_pack("{s:o,s:o}", "p", ep, "m", em));
    family_test(f, test);
    mpfr_clears(x, y, s, (mpfr_ptr)0);
    free(m32), free(d32), free(o32), free(p32), free(m64), free(o64), free(p64), free(w);
    free(kept), free(sv0), free(bin), free(bout32), free(bout64), free(p), free(m), free(g);
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

int gen_muon(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"MUON-HP-1", "MUON-MOM-1", "MUON-NEST-1", "MUON-NS-1",
                                        "MUON-SCALE-1", "MUON-WD-1", "MUON-UPD-1",
                                        "MUON-STORE-1", "MUON-TOL-1", NULL};
    int rc = 0;
    for (int pr = 0; pr < OC_MUON_PROFILE_COUNT && rc == 0; pr++) {
        char name[64];
        oc_muon_hparams hp;
        oc_muon_profile_defaults((oc_muon_profile)pr, &hp);
        snprintf(name, sizeof name, "muon-%s", oc_muon_profile_name((oc_muon_profile)pr));
        rng.state = opt->seed * 1000043ull + (uint64_t)pr;
        family f;
        if (family_init(&f, name, "muon", oc_muon_profile_name((oc_muon_profile)pr), rules, opt)) {
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

/* MUON-BLK-ERR-1: a partition that does not fit the shape, rejected with the state unchanged. */
static void block_invalid(family *f, const oc_muon_hparams *hp, const oc_muon_partition *part,
                          const char *comment, size_t rows, size_t cols)
{
    json_t *hj = hparams_json(hp);
    json_object_update_new(hj, json_pack("{s:I,s:s,s:s,s:I,s:I,s:I}", "tpSize",
                                         (json_int_t)part->tp_size, "tpDim", tp_dims[part->tp_dim],
                                         "scaleShape",
                                         part->scale_shape == OC_MUON_SCALE_GLOBAL ? "global"
                                                                                   : "local",
                                         "qkvHeads", (json_int_t)part->qkv_heads, "qkvGroups",
                                         (json_int_t)part->qkv_groups, "qkvHeadDim",
                                         (json_int_t)part->qkv_head_dim));
    family_group(f, "MuonBlockStep", hj);
    int id = f->next_tcid;
    static const char *const names[3] = {"p", "m", "g"};
    json_t *in = json_object();
    for (int k = 0; k < 3; k++) {
        float *v = uniform(rows * cols, k ? 0.01 : 1);
        family_add_tensor(f, id, names[k], "F32", rows, cols, v, in, names[k]);
        free(v);
    }
    family_test(f, json_pack("{s:s,s:[s],s:[s,s],s:s,s:I,s:I,s:o}", "comment", comment, "flags",
                             "InvalidPartition", "specRules", "MUON-BLK-ERR-1", "MUON-ERR-1",
                             "result", "invalid", "rows", (json_int_t)rows, "cols",
                             (json_int_t)cols, "inputs", in));
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
}

static void tp_cases(family *f, const oc_muon_hparams *hp0, mpfr_prec_t prec)
{
    static const struct { size_t rows, cols, tp; oc_muon_tp_dim dim; oc_muon_scale_shape shape;
                          const char *what; } cases[] = {
        {32, 8, 2, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, "column-parallel TP 2, global scale"},
        {32, 8, 4, OC_MUON_TP_ROWS, OC_MUON_SCALE_LOCAL, "column-parallel TP 4, local scale"},
        {8, 32, 2, OC_MUON_TP_COLS, OC_MUON_SCALE_GLOBAL, "row-parallel TP 2, global scale"},
        {8, 32, 4, OC_MUON_TP_COLS, OC_MUON_SCALE_LOCAL, "row-parallel TP 4, local scale"},
        {16, 16, 2, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, "column-parallel TP 2 of a square weight"},
        {24, 12, 4, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, "column-parallel TP 4, wide shards"},
    };
    oc_muon_hparams hp = *hp0;
    for (int group = 0; group < 2; group++) {
        if (group == 1) { /* Keller's shape_scaling: sqrt(max(1, rows / cols)) also sees the shape */
            hp.scale = OC_MUON_SHAPE_SCALING;
            hp.lr = 0.02f;
            hp.nesterov = !hp0->nesterov;
        }
        for (size_t s = 0; s < sizeof cases / sizeof cases[0]; s++) {
            oc_muon_partition part = {cases[s].tp, cases[s].dim, cases[s].shape, 0, 0, 0};
            block_case(f, &hp, &part, cases[s].what, group ? "TpBlocksShapeScaling" : "TpBlocks",
                       cases[s].rows, cases[s].cols, 0, prec);
        }
    }
    oc_muon_partition bad = {4, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    block_invalid(f, hp0, &bad, "30 rows over 4 TP ranks (uneven shards)", 30, 8);
    bad.tp_dim = OC_MUON_TP_NONE;
    block_invalid(f, hp0, &bad, "TP size 4 without a split dimension", 32, 8);
    bad = (oc_muon_partition){0, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    block_invalid(f, hp0, &bad, "TP size 0", 32, 8);
}

int gen_muon_blocks(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"MUON-BLK-ORTH-1", "MUON-BLK-SCALE-1", "MUON-BLK-TOL-1",
                                        "MUON-BLK-TP-1", "MUON-BLK-QKV-1", "MUON-BLK-ERR-1",
                                        NULL};
    static const char *const names[2] = {"muon-split-qkv", "muon-tp-blockwise"};
    int rc = 0;
    for (int fam = 0; fam < 2 && rc == 0; fam++) {
        oc_muon_hparams hp;
        oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp);
        rng.state = opt->seed * 1000039ull + (uint64_t)fam;
        family f;
        if (family_init(&f, names[fam], "muon_blocks", "megatron", rules, opt))
            return -1;
        if (fam == 0) {
            family_note(&f, "SplitQkv", "BASIC", "fused QKV weight split per query group",
                        "Q, K, V orthogonalised separately (Megatron split_qkv)", NULL);
            family_note(&f, "SplitQkvDecay", "BASIC", "split QKV with lr 0.02, wd 0.1",
                        "the other Nesterov setting and a visible decay", NULL);
        } else {
            family_note(&f, "TpBlocks", "BASIC", "blockwise tensor-parallel orthogonalisation",
                        "each rank's shard orthogonalised alone; global or local scale shape",
                        NULL);
            family_note(&f, "TpBlocksShapeScaling", "BASIC", "blockwise TP with shape_scaling",
                        "the scale shape under Keller's convention", NULL);
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
