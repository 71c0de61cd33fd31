/* Step control under every layout (spec/layouts.md §8), run by the MPI driver on 1, 2, 3, 4 and
 * 8 ranks arranged as TP x PP x DP grids. Every rank checks:
 *   LAYOUT-CLIP-1/2  the deduplicated global norm of the engine is within CLIP-TOL-2 of the
 *                    reference's logical norm (ref/clip.c over the views of every TP/PP rank),
 *                    and every rank of the world holds the same norm, coefficient and decision;
 *   LAYOUT-STEP-1    the stepped parameters (and state) equal, bit for bit, the single-rank step
 *                    of this model-parallel rank's logical gradients with that coefficient;
 *   LAYOUT-PP-1      the tied embedding's gradient has a contribution from the first and from
 *                    the last stage, added over the embedding group before the step: both
 *                    copies step identically;
 *   LAYOUT-SKIP-1    an inf on one rank, or a norm above the skip threshold, makes every rank
 *                    skip, and parameters, state, masters and model copies stay bit-identical.
 * Gradient contributions are k * 2^e with |k| < 2^12 (exact sums in any order, as in
 * layout_suite.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_suite.h"

static const oc_layout_param model[] = {
    {157, 16, 2, 1}, /* embedding, tied with the output layer of the last stage */
    {16, 1, 1, 0}, {16, 48, 2, 0}, {48, 1, 1, 0}, {48, 16, 2, 0}, {9, 5, 2, 0}, {3, 1, 1, 0},
};
/* tensor_parallel per parameter (the embedding and the linear weights are split over TP) */
static const int tp_split[] = {1, 0, 1, 1, 1, 0, 0};
enum { NP = sizeof model / sizeof model[0] };

static const oc_adam_hparams adamw = {OC_ADAM_TORCH, 1e-2, 0.9, 0.95, 1e-8, 0.1, 0, 1, 1, 0, 0};

static oc_status adamw_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    return oc_fast_adam_step(&adamw, *(const int64_t *)ctx, o, nt, t, NULL);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}
static size_t numel(size_t i) { return model[i].dim0 * model[i].dim1; }

/* The grid position of this rank. */
typedef struct grid {
    int tp, pp, dp;            /* sizes */
    int tp_rank, pp_stage;     /* this rank's */
    const oc_comm *dpc, *mpc, *world;
    const oc_comm *emb;        /* first and last stage of this TP and DP rank (pp > 1) */
} grid;

/* Which logical tensor parameter i is on model-parallel rank (t, p): the TP-replicated ones
 * are the same on every TP rank, the tied copy of the last stage is the first stage's. */
static uint64_t logical_id(const grid *g, size_t i, int t, int p)
{
    if (i == 0 && p == g->pp - 1)
        p = 0;
    return i + NP * (uint64_t)((tp_split[i] ? t : 0) + 64 * p);
}
static int is_shared_copy(const grid *g, size_t i, int p) { return i == 0 && p == g->pp - 1 && g->pp > 1; }
/* Whose backward pass produced a contribution: the tied parameter gets one from the first stage
 * (input embedding) and one from the last (output layer), which LAYOUT-PP-1 adds. */
static uint64_t contribution_id(size_t i, int t, int p)
{
    return i + NP * (uint64_t)((tp_split[i] ? t : 0) + 64 * p);
}

/* DP rank r's contribution k (|k| < 2^12) and the element's scale 2^e (one per logical element,
 * so that every sum of contributions is exact in binary32). */
static int grad_k(int r, uint64_t id, size_t j, int s)
{
    return (int)(mix(((uint64_t)r << 56) ^ (id << 24) ^ (j << 4) ^ (uint64_t)s) % 8191) - 4095;
}
static float grad_scale(uint64_t id, size_t j) { return ldexpf(1.0f, -(int)(mix(id * 7919u + j) % 12) - 4); }
/* The logical gradient of parameter i on model-parallel rank (t, p): every DP rank's
 * contribution, of both stages for the tied parameter. */
static float logical_grad(const grid *g, size_t i, int t, int p, size_t j, int s)
{
    int total = 0, tied = i == 0 && g->pp > 1;
    for (int stage = 0; stage < g->pp; stage++)
        for (int r = 0; (tied ? stage == 0 || stage == g->pp - 1 : stage == p) && r < g->dp; r++)
            total += grad_k(r, contribution_id(i, t, stage), j, s);
    return (float)total * grad_scale(logical_id(g, i, t, p), j);
}

/* The reference's norm of the logical gradients (unscaled) of every TP/PP rank; *m: the
 * elements it counts. */
static double reference_norm(const grid *g, const oc_clip_config *cfg, float inv_scale, int s,
                             size_t *m)
{
    size_t nv = (size_t)g->tp * g->pp * NP, k = 0;
    oc_clip_view *v = calloc(nv, sizeof *v);
    oc_clip_config c = *cfg;
    c.dp_size = 1, c.distributed = 0, c.skip_threshold = INFINITY;
    *m = 0;
    for (int p = 0; p < g->pp; p++)
        for (int t = 0; t < g->tp; t++)
            for (size_t i = 0; i < NP; i++, k++) {
                v[k] = (oc_clip_view){t, p, 0, 0, tp_split[i], is_shared_copy(g, i, p), numel(i),
                                      malloc(numel(i) * sizeof(float))};
                for (size_t j = 0; j < numel(i); j++)
                    v[k].grad[j] = logical_grad(g, i, t, p, j, s) * inv_scale;
                *m += oc_clip_view_counted(&c, &v[k]) ? numel(i) : 0;
            }
    float norm = NAN;
    int skipped;
    oc_status st = oc_ref_clip_step(&c, nv, v, &norm, &skipped);
    for (k = 0; k < nv; k++)
        free(v[k].grad);
    free(v);
    return st == OC_OK ? norm : NAN;
}

/* 1 unless every rank of the world passed the same x. */
static int differs_across_world(const grid *g, int x)
{
    int hi = x, lo = -x;
    g->world->allreduce_max_int(g->world->ctx, &hi);
    g->world->allreduce_max_int(g->world->ctx, &lo);
    return hi != -lo;
}
static int bits(float x)
{
    int b;
    memcpy(&b, &x, sizeof b);
    return b;
}

typedef enum { CLIP_MEGATRON, CLIP_TORCH_INF, FOUND_INF, SKIP_THRESHOLD, NSCEN } scenario;
static const char *const scen_names[NSCEN] = {"clip megatron 2-norm", "clip torch inf-norm",
                                              "found_inf skip", "norm above skip threshold"};

/* One scenario under one layout: 2 steps (the second one is the scenario's); returns the
 * failed checks on this rank; *ratio: the norm's error/bound. */
static int run(const grid *g, oc_layout_kind kind, scenario sc, oc_fast_dtype mode,
               double *ratio)
{
    oc_layout l;
    oc_dist d;
    if (oc_layout_build(kind, g->dp, model, NP, NULL, &l) != OC_OK)
        return 1;
    if (oc_dist_init(&d, &l, g->dpc) != OC_OK) {
        oc_layout_free(&l);
        return 1;
    }
    size_t logical = 0, loff[NP];
    for (size_t i = 0; i < NP; logical += numel(i), i++)
        loff[i] = logical;
    float *pbuf = calloc(l.size, sizeof(float)), *gbuf = calloc(l.size, sizeof(float));
    float *master = calloc(d.owned + 1, sizeof(float)), *st[2], *s1[2];
    uint16_t *mbuf = calloc(l.size, sizeof(uint16_t)), *copy1 = calloc(logical, sizeof(uint16_t));
    float *p1 = malloc(logical * sizeof(float)), *g1 = malloc(logical * sizeof(float));
    for (int k = 0; k < 2; k++)
        st[k] = calloc(d.owned + 1, sizeof(float)), s1[k] = calloc(logical, sizeof(float));
    for (size_t i = 0; i < NP; i++)
        for (size_t j = 0; j < numel(i); j++)
            pbuf[l.offset[i] + j] = p1[loff[i] + j] =
                (float)((int)(mix(i * 1000003u + j) % 2001) - 1000) * 0x1p-10f;
    for (size_t k = 0, pos = 0; k < d.nseg; pos += d.seg[k].len, k++)
        memcpy(master + pos, p1 + loff[d.seg[k].param] + d.seg[k].off, d.seg[k].len * 4);
    oc_dist_param_attr attr[NP];
    for (size_t i = 0; i < NP; i++)
        attr[i] = (oc_dist_param_attr){.tensor_parallel = tp_split[i],
                                       .shared = is_shared_copy(g, i, g->pp_stage)};
    oc_clip_config cfg = {sc == CLIP_TORCH_INF ? OC_CLIP_TORCH : OC_CLIP_MEGATRON, 1.0,
                          sc == CLIP_TORCH_INF, INFINITY, kind != OC_LAYOUT_REPLICATED,
                          g->tp, g->pp, g->dp};
    oc_dist_control ctl = {&cfg, attr, g->tp_rank, g->pp_stage, g->tp * g->pp > 1 ? g->mpc : NULL};
    oc_fast_opts o = {0x1p-3f, 1.0f, mode};
    oc_dist_buffers db = {pbuf, mode ? master : NULL, mode ? mbuf : NULL, gbuf, {st[0], st[1], NULL}};
    int fails = 0;
    *ratio = 0.0;
    for (int s = 1; s <= 2; s++) {
        size_t m;
        double ref = reference_norm(g, &cfg, o.inv_scale, s, &m);
        cfg.skip_threshold = sc == SKIP_THRESHOLD && s == 2 ? ref / 2 : INFINITY;
        for (size_t i = 0; i < NP; i++) {
            uint64_t id = logical_id(g, i, g->tp_rank, g->pp_stage);
            uint64_t cid = contribution_id(i, g->tp_rank, g->pp_stage);
            for (size_t j = 0; j < numel(i); j++) {
                gbuf[l.offset[i] + j] = (float)grad_k(g->dpc->rank, cid, j, s) * grad_scale(id, j);
                g1[loff[i] + j] = logical_grad(g, i, g->tp_rank, g->pp_stage, j, s);
            }
        }
        int inject = sc == FOUND_INF && s == 2 && g->world->rank == g->world->size - 1;
        if (inject)
            gbuf[l.offset[NP - 1]] = INFINITY;
        size_t nsnap = l.size * 6 + d.owned * 12;
        unsigned char *snap = malloc(nsnap + 1);
        memcpy(snap, pbuf, l.size * 4), memcpy(snap + l.size * 4, mbuf, l.size * 2);
        memcpy(snap + l.size * 6, master, d.owned * 4), memcpy(snap + l.size * 6 + d.owned * 4, st[0], d.owned * 4);
        memcpy(snap + l.size * 6 + d.owned * 8, st[1], d.owned * 4);
        int64_t t = s;
        oc_dist_outcome out;
        if (g->emb && oc_dist_tie_grads(&d, &db, g->emb, 0) != OC_OK) { /* LAYOUT-PP-1 */
            fails++;
            free(snap);
            break;
        }
        if (oc_dist_controlled_step(&d, &db, &o, &ctl, adamw_step, &t, &out) != OC_OK) {
            fails++;
            free(snap);
            break;
        }
        int want_skip = s == 2 && (sc == FOUND_INF || sc == SKIP_THRESHOLD);
        fails += out.skipped != want_skip || out.found_inf != (sc == FOUND_INF && s == 2);
        fails += differs_across_world(g, bits(out.total_norm)) +
                 differs_across_world(g, bits(out.clip_coeff)) + differs_across_world(g, out.skipped);
        if (!out.found_inf) { /* LAYOUT-CLIP-2 against the reference's logical norm */
            double bound = cfg.inf_norm ? 0 : ((double)m + g->world->size + 4) * 0x1p-24 * ref;
            double err = fabs(out.total_norm - ref);
            double r = bound > 0 ? err / bound : err > 0 ? INFINITY : 0;
            *ratio = r > *ratio ? r : *ratio;
            fails += !(r <= 1.0) || (!out.skipped && !(out.clip_coeff < 1.0f)); /* teeth: clipped */
        }
        if (out.skipped) { /* LAYOUT-SKIP-1: nothing written */
            fails += memcmp(snap, pbuf, l.size * 4) != 0 || memcmp(snap + l.size * 4, mbuf, l.size * 2) != 0 ||
                     memcmp(snap + l.size * 6, master, d.owned * 4) != 0 ||
                     memcmp(snap + l.size * 6 + d.owned * 4, st[0], d.owned * 4) != 0 ||
                     memcmp(snap + l.size * 6 + d.owned * 8, st[1], d.owned * 4) != 0;
        } else { /* the single-rank step of this MP rank's logical gradients, same coefficient */
            oc_fast_opts o1 = {o.inv_scale, out.clip_coeff, mode};
            oc_fast_tensor one = {logical, p1, g1, {s1[0], s1[1], NULL}, mode ? copy1 : NULL};
            fails += adamw_step(&t, &o1, 1, &one) != OC_OK;
            for (size_t i = 0; i < NP; i++)
                fails += mode ? memcmp(mbuf + l.offset[i], copy1 + loff[i], numel(i) * 2) != 0
                              : memcmp(pbuf + l.offset[i], p1 + loff[i], numel(i) * 4) != 0;
        }
        free(snap);
    }
    free(pbuf), free(gbuf), free(master), free(mbuf), free(copy1), free(p1), free(g1);
    for (int k = 0; k < 2; k++)
        free(st[k]), free(s1[k]);
    oc_dist_free(&d);
    oc_layout_free(&l);
    return fails;
}

int control_suite(const oc_comm *dpc, const oc_comm *mpc, const oc_comm *world,
                  const oc_comm *emb, int tp, int pp, int verbose)
{
    grid g = {tp, pp, dpc->size, mpc->rank % tp, mpc->rank / tp, dpc, mpc, world, pp > 1 ? emb : NULL};
    int fails = 0;
    for (int k = 0; k < OC_LAYOUT_KIND_COUNT; k++)
        for (int sc = 0; sc < NSCEN; sc++) {
            oc_fast_dtype mode = sc == FOUND_INF ? OC_FAST_MODEL_BF16 : OC_FAST_MODEL_NONE;
            double ratio = 0.0;
            int bad = run(&g, (oc_layout_kind)k, (scenario)sc, mode, &ratio) != 0;
            fails += bad;
            world->allreduce_max_int(world->ctx, &bad);
            if (world->rank == 0 && (verbose || bad))
                printf("step control %-15s %-26s tp=%d pp=%d dp=%d: norm error/bound %.3f %s\n",
                       oc_layout_kind_name((oc_layout_kind)k), scen_names[sc], tp, pp, g.dp,
                       ratio, bad ? "FAIL" : "ok");
        }
    return fails;
}
