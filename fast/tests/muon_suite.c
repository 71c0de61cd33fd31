/* Distributed Muon (spec/layouts.md §9), on however many ranks run it. Checks:
 *   LAYOUT-MUON-2  gather-all (replicated) and owner-compute (the layerwise profiles), four
 *                  steps with a found_inf skip, a clipped step and a loss-scaled step: the
 *                  gathered parameters and the owned momenta bit-identical to the single-rank
 *                  fast Muon step of the same logical gradients; every matrix orthogonalised
 *                  by every rank (gather-all) or by exactly one (owner-compute);
 *   LAYOUT-MUON-1, LAYOUT-MUON-3  all or nothing: a layout that cuts matrices (zero1-flat), or a NaN reaching
 *                  one owner, fails on every rank and changes nothing anywhere;
 *   LAYOUT-QKCLIP-1  MuonClip's S_max MAX-reduced over the ranks: every rank clips as the
 *                  single-process clip of the maximum, a NaN anywhere rejected everywhere;
 *   LAYOUT-TP-MUON-1, LAYOUT-TP-MUON-2, LAYOUT-TP-MUON-3  the TP modes (FAST-MUON-3) on
 *                  column- and row-parallel weights, three steps: duplicated bit-identical to
 *                  the single-rank step, blockwise bit-identical to the single-process block
 *                  step (MUON-BLK-*), distributed (FAST-NS-4) within the fp32-class bound
 *                  (MUON-TOL-1) of the exact MPFR step taken from the run's own state; bad
 *                  input rejected by every rank with nothing written (LAYOUT-AGREE-1).
 * Gradient contributions are k * 2^e with |k| < 2^12 (exact sums in any order, as in
 * layout_suite.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../vectors/gen/gen.h"
#include "../common/elementwise.h"
#include "muon_suite.h"
#include "optcert/dist_muon.h"
#include "suite_data.h"

static const oc_layout_param model[] = {
    {24, 40, 2, 0}, {40, 24, 2, 0}, {16, 16, 2, 0}, {8, 56, 2, 0}, {33, 17, 2, 0}, {64, 48, 2, 0},
};
enum { NP = sizeof model / sizeof model[0], STEPS = 4, TP_STEPS = 3 };

static size_t numel(size_t i) { return model[i].dim0 * model[i].dim1; }

static oc_muon_hparams muon_hparams(void)
{
    oc_muon_hparams hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp);
    hp.nesterov = 1, hp.lr = 0.02;
    return hp;
}

static int fail(const oc_comm *c, const char *what, const char *run, int step)
{
    fprintf(stderr, "muon_suite rank %d/%d: %s: %s (step %d)\n", c->rank, c->size, run, what, step);
    return 1;
}

/* The single-rank state of every logical matrix. */
typedef struct single {
    float *p[NP], *m[NP], *g;
} single;

/* ---- data-parallel strategies ---- */

/* One run of STEPS steps under `kind`: step 2 has an inf on the last rank (skipped), step 3
 * is clipped to half its norm, step 4 loss-scaled by 8. */
static int dp_run(const oc_comm *c, oc_layout_kind kind, int verbose)
{
    const char *name = oc_layout_kind_name(kind);
    oc_muon_hparams hp = muon_hparams();
    oc_layout l;
    oc_dist d;
    if (oc_layout_build(kind, c->size, model, NP, NULL, &l) != OC_OK)
        return fail(c, "layout not built", name, 0);
    if (oc_dist_init(&d, &l, c) != OC_OK) {
        oc_layout_free(&l);
        return fail(c, "engine not initialised", name, 0);
    }
    float *params = calloc(l.size, 4), *grads = calloc(l.size, 4), *mom = calloc(d.owned + 1, 4);
    single s1 = {{0}, {0}, malloc(64 * 64 * 4)};
    for (size_t i = 0; i < NP; i++) {
        s1.p[i] = malloc(numel(i) * 4), s1.m[i] = calloc(numel(i), 4);
        for (size_t j = 0; j < numel(i); j++)
            s1.p[i][j] = params[l.offset[i] + j] = init_param(i, j);
    }
    oc_dist_buffers b = {params, NULL, NULL, grads, {mom, NULL, NULL}};
    oc_dist_muon ctx = {&d, model, &hp, OC_FAST_NS_FP32, 0, 0.0};
    int fails = 0;
    for (int s = 1; s <= STEPS; s++) { /* no early exit: every rank runs every collective */
        double sumsq = 0.0;
        for (size_t i = 0; i < NP; i++)
            for (size_t j = 0; j < numel(i); j++) {
                int total = 0;
                for (int r = 0; r < c->size; r++)
                    total += grad_k(r, i, j, s);
                float logical = (float)total * grad_scale(i, j);
                sumsq += (double)logical * logical;
                grads[l.offset[i] + j] = (float)grad_k(c->rank, i, j, s) * grad_scale(i, j);
            }
        if (s == 2 && c->rank == c->size - 1)
            grads[l.offset[1] + 3] = INFINITY;
        oc_clip_config cc = {OC_CLIP_MEGATRON, 0.5 * sqrt(sumsq), 0, INFINITY,
                             kind != OC_LAYOUT_REPLICATED, 1, 1, c->size};
        oc_dist_control ctl = {s == 3 ? &cc : NULL, NULL, 0, 0, NULL};
        oc_fast_opts o = {s == 4 ? 0.125f : 1.0f, 1.0f, OC_FAST_MODEL_NONE};
        oc_dist_outcome out;
        ctx.orthogonalised = 0; /* a skipped step does not call the step function */
        oc_status st = oc_dist_controlled_step(&d, &b, &o, &ctl, oc_dist_muon_step, &ctx, &out);
        if (st != OC_OK) {
            fails += fail(c, oc_status_str(st), name, s);
            break;
        }
        fails += out.skipped != (s == 2) ? fail(c, "wrong skip decision", name, s) : 0;
        fails += (s == 3) != (out.clip_coeff < 1.0f) ? fail(c, "clip coefficient", name, s) : 0;
        /* every matrix orthogonalised by every rank, or by exactly one */
        float count = (float)ctx.orthogonalised;
        if (c->allreduce_sum(c->ctx, &count, 1) != OC_OK)
            fails += fail(c, "count not reduced", name, s);
        float want = s == 2 ? 0.0f : kind == OC_LAYOUT_REPLICATED ? (float)(NP * c->size) : (float)NP;
        fails += count != want ? fail(c, "matrices orthogonalised", name, s) : 0;
        for (size_t i = 0; s != 2 && i < NP; i++) { /* the single-rank step */
            for (size_t j = 0; j < numel(i); j++) {
                int total = 0;
                for (int r = 0; r < c->size; r++)
                    total += grad_k(r, i, j, s);
                s1.g[j] = oc_fast_grad((float)total * grad_scale(i, j), o.inv_scale, out.clip_coeff);
            }
            if (oc_fast_muon_step(&hp, OC_FAST_NS_FP32, model[i].dim0, model[i].dim1, s1.p[i],
                                  s1.m[i], s1.g, NULL, 0) != OC_OK)
                fails += fail(c, "single-rank step failed", name, s);
        }
        for (size_t i = 0; i < NP; i++)
            fails += memcmp(params + l.offset[i], s1.p[i], numel(i) * 4) != 0
                         ? fail(c, "parameters differ from the single-rank step", name, s) : 0;
        for (size_t k = 0, pos = 0; k < d.nseg; pos += d.seg[k].len, k++)
            fails += memcmp(mom + pos, s1.m[d.seg[k].param], d.seg[k].len * 4) != 0
                         ? fail(c, "momentum differs from the single-rank step", name, s) : 0;
    }
    if (verbose && c->rank == 0)
        printf("muon %-16s %d ranks: %s (%zu matrices owned by rank 0)\n", name, c->size,
               fails ? "FAIL" : "bit-identical to single-rank", d.nseg);
    for (size_t i = 0; i < NP; i++)
        free(s1.p[i]), free(s1.m[i]);
    free(s1.g), free(params), free(grads), free(mom);
    oc_dist_free(&d);
    oc_layout_free(&l);
    return fails;
}

/* LAYOUT-MUON-3: a step that fails somewhere changes nothing anywhere. `nan`: a NaN in the last
 * rank's contribution to matrix 0 under layerwise; else a zero1-flat layout, which fails iff it
 * cuts a matrix on some rank. */
static int all_or_nothing(const oc_comm *c, int nan, int verbose)
{
    const char *name = nan ? "nan-to-owner" : "zero1-flat-cut";
    oc_muon_hparams hp = muon_hparams();
    oc_layout l;
    oc_dist d;
    oc_layout_kind kind = nan ? OC_LAYOUT_LAYERWISE : OC_LAYOUT_ZERO1_FLAT;
    if (oc_layout_build(kind, c->size, model, NP, NULL, &l) != OC_OK)
        return fail(c, "layout not built", name, 0);
    if (oc_dist_init(&d, &l, c) != OC_OK) {
        oc_layout_free(&l);
        return fail(c, "engine not initialised", name, 0);
    }
    int expect_fail = nan;
    for (int r = 0; !nan && r < c->size; r++) {
        size_t ns = oc_layout_segments(&l, r, NULL, 0);
        oc_layout_segment *seg = calloc(ns + 1, sizeof *seg);
        oc_layout_segments(&l, r, seg, ns);
        for (size_t k = 0; k < ns; k++)
            expect_fail |= seg[k].off != 0 || seg[k].len != numel(seg[k].param);
        free(seg);
    }
    float *params = calloc(l.size, 4), *grads = calloc(l.size, 4), *mom = calloc(d.owned + 1, 4);
    float *before = calloc(l.size, 4), *mom_before = calloc(d.owned + 1, 4);
    for (size_t i = 0; i < NP; i++)
        for (size_t j = 0; j < numel(i); j++) {
            params[l.offset[i] + j] = init_param(i, j);
            grads[l.offset[i] + j] = (float)grad_k(c->rank, i, j, 1) * grad_scale(i, j);
        }
    for (size_t j = 0; j < d.owned; j++)
        mom[j] = (float)j * 0x1p-12f;
    if (nan && c->rank == c->size - 1)
        grads[l.offset[0] + 5] = NAN;
    memcpy(before, params, l.size * 4), memcpy(mom_before, mom, d.owned * 4);
    oc_dist_buffers b = {params, NULL, NULL, grads, {mom, NULL, NULL}};
    oc_dist_muon ctx = {&d, model, &hp, OC_FAST_NS_FP32, 0, 0.0};
    oc_status st = oc_dist_step(&d, &b, NULL, oc_dist_muon_step, &ctx);
    int fails = (st != OC_OK) != expect_fail ? fail(c, oc_status_str(st), name, 1) : 0;
    if (expect_fail)
        fails += memcmp(before, params, l.size * 4) != 0 || memcmp(mom_before, mom, d.owned * 4) != 0
                     ? fail(c, "state changed by a failed step", name, 1) : 0;
    if (verbose && c->rank == 0)
        printf("muon %-16s %d ranks: %s (%s expected)\n", name, c->size, fails ? "FAIL" : "ok",
               expect_fail ? "failure on every rank, nothing written" : "success: no cut");
    free(params), free(grads), free(mom), free(before), free(mom_before);
    oc_dist_free(&d);
    oc_layout_free(&l);
    return fails;
}

/* ---- tensor-parallel modes ---- */

static void own_block(const oc_muon_block *b, size_t cols, const float *full, float *blk)
{
    for (size_t r = 0, t = 0; r < b->run * b->nruns; r++)
        for (size_t k = 0; k < b->ncols; k++)
            blk[t++] = full[(b->row0 + r / b->run * b->stride + r % b->run) * cols + b->col0 + k];
}

/* The whole matrix from every rank's block (all-gathered). */
static oc_status whole(const oc_comm *c, const oc_muon_partition *part, size_t rows,
                       size_t cols, const float *blk, float *full)
{
    size_t n = rows * cols / (size_t)c->size;
    float *all = malloc(rows * cols * 4);
    memcpy(all + (size_t)c->rank * n, blk, n * 4);
    oc_status st = c->allgather(c->ctx, all, n, 4);
    for (int r = 0; st == OC_OK && r < c->size; r++) {
        oc_muon_block b;
        oc_muon_block_at(part, rows, cols, (size_t)r, &b);
        for (size_t q = 0, t = 0; q < b.run * b.nruns; q++)
            for (size_t k = 0; k < b.ncols; k++)
                full[(b.row0 + q / b.run * b.stride + q % b.run) * cols + b.col0 + k] =
                    all[(size_t)r * n + t++];
    }
    free(all);
    return st;
}

static double frobenius_error(const float *x, const double *y, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += ((double)x[i] - y[i]) * ((double)x[i] - y[i]);
    return sqrt(s);
}

static const char *const mode_names[] = {"blockwise", "duplicated", "distributed"};

static int tp_run(const oc_comm *c, oc_fast_muon_tp_mode mode, oc_muon_tp_dim dim,
                  oc_muon_scale_shape shape, size_t rows, size_t cols, int verbose, double worst[2])
{
    char name[96];
    snprintf(name, sizeof name, "tp-%s %s-parallel %zux%zu scale %s", mode_names[mode],
             dim == OC_MUON_TP_ROWS ? "column" : "row", rows, cols,
             shape == OC_MUON_SCALE_GLOBAL ? "global" : "local");
    oc_muon_hparams hp = muon_hparams();
    oc_muon_partition part = {(size_t)c->size, dim, shape, 0, 0, 0};
    oc_muon_block b;
    oc_muon_block_at(&part, rows, cols, (size_t)c->rank, &b);
    size_t full = rows * cols, n = full / (size_t)c->size;
    float *p = malloc(full * 4), *m = calloc(full, 4), *g = malloc(full * 4);
    float *ps = malloc(n * 4), *ms = calloc(n, 4), *gs = malloc(n * 4), *bs = malloc(n * 4);
    float *pw = malloc(full * 4), *mw = malloc(full * 4), *pw1 = malloc(full * 4), *mw1 = malloc(full * 4);
    for (size_t j = 0; j < full; j++)
        p[j] = init_param(99, j);
    own_block(&b, cols, p, ps);
    int fails = 0;
    for (int s = 1; s <= TP_STEPS; s++) {
        for (size_t j = 0; j < full; j++)
            g[j] = (float)grad_k(0, 7, j, s) * 0x1p-12f;
        own_block(&b, cols, g, gs);
        if (mode == OC_FAST_MUON_TP_DISTRIBUTED && (whole(c, &part, rows, cols, ps, pw) != OC_OK ||
                                                    whole(c, &part, rows, cols, ms, mw) != OC_OK))
            fails += fail(c, "state not gathered", name, s);
        oc_status st = oc_fast_muon_tp_step(&hp, OC_FAST_NS_FP32, c, mode, &part, rows, cols, ps,
                                            ms, gs);
        if (st != OC_OK) {
            fails += fail(c, oc_status_str(st), name, s);
            break;
        }
        if (mode == OC_FAST_MUON_TP_DISTRIBUTED) {
            /* MUON-TOL-1 from the run's own state, judged on rank 0 */
            if (whole(c, &part, rows, cols, ps, pw1) != OC_OK || whole(c, &part, rows, cols, ms, mw1) != OC_OK)
                fails += fail(c, "state not gathered", name, s);
            if (c->rank == 0) {
                gen_muon_golden gd;
                gen_muon_exact(&hp, NULL, rows, cols, pw, mw, g, 256, &gd);
                double ep = frobenius_error(pw1, gd.p64, full) / gd.tol_p[NS_CLASS_FP32][0];
                double em = frobenius_error(mw1, gd.m64, full) / gd.tol_m[NS_CLASS_FP32][0];
                worst[0] = fmax(worst[0], ep), worst[1] = fmax(worst[1], em);
                char what[64];
                snprintf(what, sizeof what, "outside the fp32 bound (p %.3g, m %.3g of it)", ep, em);
                fails += ep > 1.0 || em > 1.0 ? fail(c, what, name, s) : 0;
                gen_muon_golden_free(&gd);
            }
            continue;
        }
        st = mode == OC_FAST_MUON_TP_DUPLICATED
                 ? oc_fast_muon_step(&hp, OC_FAST_NS_FP32, rows, cols, p, m, g, NULL, 0)
                 : oc_fast_muon_block_step(&hp, OC_FAST_NS_FP32, &part, rows, cols, p, m, g,
                                           NULL, 0);
        fails += st != OC_OK ? fail(c, "single-rank step failed", name, s) : 0;
        own_block(&b, cols, p, bs);
        fails += memcmp(bs, ps, n * 4) != 0 ? fail(c, "parameters differ from single-rank", name, s) : 0;
        own_block(&b, cols, m, bs);
        fails += memcmp(bs, ms, n * 4) != 0 ? fail(c, "momentum differs from single-rank", name, s) : 0;
    }
    if (verbose && c->rank == 0)
        printf("muon %s, %d ranks: %s\n", name, c->size, fails ? "FAIL"
               : mode == OC_FAST_MUON_TP_DISTRIBUTED ? "within the fp32 bound" : "bit-identical");
    free(p), free(m), free(g), free(ps), free(ms), free(gs), free(bs);
    free(pw), free(mw), free(pw1), free(mw1);
    return fails;
}

/* Bad input: a partition that does not match the group, or a NaN gradient on the last rank:
 * every rank reports a status and writes nothing. */
static int tp_rejections(const oc_comm *c, oc_fast_muon_tp_mode mode)
{
    oc_muon_hparams hp = muon_hparams();
    size_t rows = 24, cols = 48, n = rows * cols / (size_t)c->size;
    oc_muon_partition part = {(size_t)c->size, OC_MUON_TP_COLS, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    oc_muon_partition wrong = {(size_t)c->size + 1, OC_MUON_TP_COLS, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    float *p = malloc(n * 4), *m = calloc(n, 4), *g = malloc(n * 4), *p0 = malloc(n * 4);
    for (size_t j = 0; j < n; j++)
        p[j] = p0[j] = init_param(5, j), g[j] = (float)grad_k(c->rank, 5, j, 1) * 0x1p-12f;
    int fails = 0;
    /* 24 x 48 splits over c->size + 1 ranks only when that divides 48 */
    oc_status want = 48 % (c->size + 1) == 0 ? OC_ERR_BAD_HPARAM : OC_ERR_BAD_SHAPE;
    oc_status st = oc_fast_muon_tp_step(&hp, OC_FAST_NS_FP32, c, mode, &wrong, rows, cols, p, m, g);
    fails += st != want ? fail(c, "partition of another group size accepted", mode_names[mode], 0) : 0;
    if (c->rank == c->size - 1)
        g[n / 2] = NAN;
    st = oc_fast_muon_tp_step(&hp, OC_FAST_NS_FP32, c, mode, &part, rows, cols, p, m, g);
    want = c->rank == c->size - 1 ? OC_ERR_NONFINITE : OC_ERR_PEER;
    fails += st != want ? fail(c, oc_status_str(st), mode_names[mode], 0) : 0;
    for (size_t j = 0; j < n; j++)
        fails += p[j] != p0[j] || m[j] != 0.0f ? fail(c, "written on error", mode_names[mode], 0) : 0;
    free(p), free(m), free(g), free(p0);
    return fails;
}

/* LAYOUT-QKCLIP-1: each rank sees a different S_max per head (head 0 above tau only on the last
 * rank); every rank's weights must equal, bit for bit, the single-process QK-clip with the
 * maximum over all ranks; a NaN on the last rank is rejected by every rank, nothing written. */
static int muon_clip_run(const oc_comm *c, oc_muon_clip_profile profile, int verbose)
{
    oc_muon_clip_config cfg = {.profile = profile, .tau = 100.0, .alpha = 0.5, .heads = 4,
                               .groups = profile == OC_MUON_CLIP_MEGATRON ? 2 : 4, .head_dim = 4,
                               .hidden = 8};
    size_t n = oc_muon_clip_len(&cfg), h = cfg.heads;
    float *w = malloc(n * 4), *w1 = malloc(n * 4), *w0 = malloc(n * 4);
    float mine[4], s_max[4] = {0};
    for (size_t j = 0; j < n; j++)
        w[j] = w1[j] = w0[j] = init_param(77, j);
    for (int r = 0; r < c->size; r++)
        for (size_t k = 0; k < h; k++) {
            /* raw q.k, S = q.k / sqrt(d) = q.k / 2: head 0 crosses tau = 100 only on the last rank */
            float x = k == 0 ? (r == c->size - 1 ? 260.0f : 180.0f - (float)r)
                             : 120.0f + (float)((grad_k(r, 77, k, 1) + 4095) % 160);
            s_max[k] = r == 0 || x > s_max[k] ? x : s_max[k];
            if (r == c->rank)
                mine[k] = x;
        }
    int fails = oc_dist_muon_clip(c, &cfg, mine, w) != OC_OK ? fail(c, "qk-clip failed", "qk-clip", 1) : 0;
    fails += oc_fast_muon_clip(&cfg, s_max, w1) != OC_OK;
    fails += memcmp(w, w1, n * 4) != 0 ? fail(c, "weights differ from the single-process clip", "qk-clip", 1) : 0;
    fails += memcmp(w, w0, n * 4) == 0 ? fail(c, "nothing was clipped", "qk-clip", 1) : 0;
    memcpy(w1, w, n * 4);
    if (c->rank == c->size - 1)
        mine[1] = NAN;
    oc_status st = oc_dist_muon_clip(c, &cfg, mine, w);
    fails += st != OC_ERR_NONFINITE || memcmp(w, w1, n * 4) != 0
                 ? fail(c, "NaN on one rank not rejected by every rank", "qk-clip", 2) : 0;
    if (verbose && c->rank == 0)
        printf("muon qk-clip %s %d ranks: %s\n", profile == OC_MUON_CLIP_MEGATRON ? "megatron" : "kimi",
               c->size, fails ? "FAIL" : "bit-identical to the single-process clip of the maximum");
    free(w), free(w1), free(w0);
    return fails;
}

int muon_suite(const oc_comm *c, int verbose)
{
    static const oc_layout_kind dp_kinds[] = {OC_LAYOUT_REPLICATED, OC_LAYOUT_LAYERWISE,
                                              OC_LAYOUT_LAYERWISE_LPT, OC_LAYOUT_LAYERWISE_NUMEL};
    int fails = 0;
    for (size_t k = 0; k < sizeof dp_kinds / sizeof dp_kinds[0]; k++)
        fails += dp_run(c, dp_kinds[k], verbose);
    fails += all_or_nothing(c, 0, verbose) + all_or_nothing(c, 1, verbose);
    fails += muon_clip_run(c, OC_MUON_CLIP_KIMI, verbose) + muon_clip_run(c, OC_MUON_CLIP_MEGATRON, verbose);
    double worst[2] = {0.0, 0.0}; /* error/bound of p and of m */
    for (int mode = 0; mode < 3; mode++) {
        for (int dim = OC_MUON_TP_ROWS; dim <= OC_MUON_TP_COLS; dim++)
            for (int wide = 0; wide < 2; wide++)
                fails += tp_run(c, (oc_fast_muon_tp_mode)mode, (oc_muon_tp_dim)dim,
                                OC_MUON_SCALE_GLOBAL, wide ? 24 : 48, wide ? 48 : 24, verbose, worst);
        fails += tp_rejections(c, (oc_fast_muon_tp_mode)mode);
    }
    fails += tp_run(c, OC_FAST_MUON_TP_BLOCKWISE, OC_MUON_TP_ROWS, OC_MUON_SCALE_LOCAL, 48, 24,
                    verbose, worst);
    if (verbose && c->rank == 0)
        printf("muon tp-distributed %d ranks: worst error/bound p %.3f, m %.3f\n", c->size,
               worst[0], worst[1]);
    return fails;
}
