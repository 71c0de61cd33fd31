/* The MPI layout suite (spec/layouts.md §7): every element-wise fam_kind under every layout, on
 * however many ranks mpiexec started, several steps. Checks:
 *   LAYOUT-INV-1  the parameters after every step are bit-identical to the single-rank fast
 *                 step of the same logical gradients (every rank checks its gathered copy);
 *   LAYOUT-INV-2  (rank 0) the single-rank parameters and state are within the fp32-class
 *                 bound of the exact MPFR trajectory of the vector generator, step after step;
 *   LAYOUT-OWN-1  every element is owned by exactly one rank (by exactly all when replicated).
 * The gradient contributions of the ranks are k * 2^e with |k| < 2^12 and e fixed per element,
 * so their sum is exact in binary32 in any order: the all-reduce order of MPI cannot change the
 * logical gradient, and bit-identity is a property of the optimizer and the layout alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../vectors/gen/gen.h"
#include "layout_suite.h"
#include "suite_data.h"

static const oc_layout_param model[] = {
    {301, 32, 2, 1}, /* embedding, shared with the output layer */
    {32, 1, 1, 0},   {32, 96, 2, 0}, {96, 1, 1, 0}, {32, 32, 2, 0}, {96, 32, 2, 0},
    {32, 1, 1, 0},   {17, 5, 2, 0},  {3, 1, 1, 0},  {128, 33, 2, 0}, {1, 1, 1, 0},
    {65, 64, 2, 0},  {7, 1, 1, 0},
};
enum { NP = sizeof model / sizeof model[0], STEPS = 4 };

const char *const fam_names[NFAM] = {"adamw", "adam-amsgrad-l2", "sgd-nesterov", "sgd-ema",
                                     "lion"};
static const oc_adam_hparams adamw = {OC_ADAM_TORCH, 1e-2, 0.9, 0.95, 1e-8, 0.1, 0, 1, 1, 0, 0};
static const oc_adam_hparams adam_ams = {OC_ADAM_TORCH, 1e-3, 0.8, 0.99, 1e-6, 0.01, 0, 1, 0, 1, 0};
static const oc_sgd_hparams sgd_nest = {OC_SGD_TORCH, 1e-2, 0.9, 0, 1e-3, 1, 0};
static const oc_sgd_hparams sgd_ema = {OC_SGD_EMA, 2e-2, 0.95, 0, 0.1, 1, 0};
static const oc_lion_hparams lion = {OC_LION_TORCH, 1e-3, 0.9, 0.99, 0.1};

int nstates(fam_kind f) { return f == ADAM_AMS ? 3 : f == ADAMW ? 2 : 1; }

oc_status family_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    const step_ctx *s = ctx;
    switch (s->f) {
    case ADAMW: return oc_fast_adam_step(&adamw, s->step, o, nt, t, NULL);
    case ADAM_AMS: return oc_fast_adam_step(&adam_ams, s->step, o, nt, t, NULL);
    case SGD_NEST: return oc_fast_sgd_step(&sgd_nest, s->step, o, nt, t, NULL);
    case SGD_EMA: return oc_fast_sgd_step(&sgd_ema, s->step, o, nt, t, NULL);
    default: return oc_fast_lion_step(&lion, s->step, o, nt, t, NULL);
    }
}

/* The vector generator's exact step of family f (LAYOUT-INV-2). */
static int exact_stepper(fam_kind f, gen_stepper *s)
{
    switch (f) {
    case ADAMW: return gen_adam_stepper(&adamw, 256, s);
    case ADAM_AMS: return gen_adam_stepper(&adam_ams, 256, s);
    case SGD_NEST: return gen_sgd_stepper(&sgd_nest, 256, s);
    case SGD_EMA: return gen_sgd_stepper(&sgd_ema, 256, s);
    default: return gen_lion_stepper(&lion, 256, s);
    }
}

static void exact_stepper_free(fam_kind f, gen_stepper *s)
{
    if (f == ADAMW || f == ADAM_AMS)
        gen_adam_stepper_free(s);
    else if (f == LION)
        gen_lion_stepper_free(s);
    else
        gen_sgd_stepper_free(s);
}


static size_t numel(size_t i) { return model[i].dim0 * model[i].dim1; }

/* Which bucket holds flat position x. */
static size_t bucket_of(const oc_layout *l, size_t x)
{
    size_t b = 0;
    while (b + 1 < l->nbuckets && l->bucket_start[b + 1] <= x)
        b++;
    return b;
}

static int is_layerwise(oc_layout_kind k)
{
    return k == OC_LAYOUT_LAYERWISE || k == OC_LAYOUT_LAYERWISE_LPT ||
           k == OC_LAYOUT_LAYERWISE_NUMEL || k == OC_LAYOUT_LAYERWISE_MEGATRON;
}

/* The layout rules that bit-identity cannot see (any consistent map steps the same values):
 * returns the number of violations. */
static int check_rules(const oc_layout *l, const oc_layout_opts *o)
{
    int bad = 0, dp = l->dp;
    size_t div = oc_layout_bucket_divisor(dp, o->high_busbw);
    for (size_t i = 0; i < NP; i++) {
        size_t b = bucket_of(l, l->offset[i]), sh = l->shard[b];
        size_t rel = l->offset[i] - l->bucket_start[b];
        switch (l->kind) {
        case OC_LAYOUT_ZERO1_FLAT:
            bad += l->offset[i] % 64 != 0;                                  /* LAYOUT-ZERO1-1 */
            bad += i + 1 < NP && l->offset[i] <= l->offset[i + 1];          /* LAYOUT-ZERO1-1 */
            bad += ((size_t)dp * sh) % div != 0;                            /* LAYOUT-ZERO1-3 */
            /* LAYOUT-ZERO1-2: a shared embedding is alone in its bucket */
            for (size_t j = 0; model[i].shared_embedding && j < NP; j++)
                bad += j != i && bucket_of(l, l->offset[j]) == b;
            break;
        case OC_LAYOUT_FSDP2_DIM0: /* LAYOUT-FSDP2-1 */
            bad += rel != 0 || sh != (model[i].dim0 + (size_t)dp - 1) / (size_t)dp * model[i].dim1;
            break;
        case OC_LAYOUT_LAYERWISE:
        case OC_LAYOUT_LAYERWISE_NUMEL:
        case OC_LAYOUT_LAYERWISE_MEGATRON:
        case OC_LAYOUT_LAYERWISE_LPT: /* LAYOUT-LW-3: whole, aligned, inside its owner's shard */
            bad += l->offset[i] % 64 != 0 || rel / sh != (rel + numel(i) - 1) / sh;
            bad += (int)(rel / sh) != l->owner[i];
            bad += sh % oc_layout_lcm(64, div / (size_t)dp) != 0;
            /* LAYOUT-LW-1: the shared embedding alone in its bucket, in shard 0 */
            if (model[i].shared_embedding && l->kind != OC_LAYOUT_LAYERWISE_LPT) {
                bad += l->owner[i] != 0;
                for (size_t j = 0; j < NP; j++)
                    bad += j != i && bucket_of(l, l->offset[j]) == b;
            }
            break;
        default:
            bad += l->offset[i] + numel(i) > l->size;                       /* LAYOUT-REPL-1 */
        }
    }
    /* LAYOUT-LW-2: the makespan is the largest per-rank sum of the Newton-Schulz costs
     * max(m,n)*min(m,n)^2 (2-D) or numel; it is at least the lower bound max(total/dp, max);
     * LAYOUT-LPT-1: LPT (a list schedule) is within total/dp + max*(1 - 1/dp) (Graham). */
    if (is_layerwise(l->kind)) {
        double load[64] = {0}, total = 0.0, largest = 0.0, makespan = 0.0;
        for (size_t i = 0; i < NP && dp <= 64; i++) {
            double m = (double)model[i].dim0, n = (double)model[i].dim1;
            double cost = model[i].ndim == 2 ? (m > n ? m * n * n : n * m * m) : m * n;
            load[l->owner[i]] += cost;
            total += cost;
            largest = cost > largest ? cost : largest;
        }
        for (int r = 0; r < dp && dp <= 64; r++)
            makespan = load[r] > makespan ? load[r] : makespan;
        bad += dp > 64 || makespan != l->makespan || makespan < l->lower_bound ||
               l->lower_bound != (total / dp > largest ? total / dp : largest);
        bad += l->kind == OC_LAYOUT_LAYERWISE_LPT &&
               makespan > total / dp + largest * (1.0 - 1.0 / dp) * (1 + 1e-12);
    }
    /* LAYOUT-ZERO1-4, LAYOUT-LWN-1, LAYOUT-LWM-1: a bucket that is not closed by a shared
     * embedding holds bucket_size elements (layerwise-numel and layerwise-megatron: at least
     * that many parameter elements) */
    int by_sum = l->kind == OC_LAYOUT_LAYERWISE_NUMEL || l->kind == OC_LAYOUT_LAYERWISE_MEGATRON;
    int closes = l->kind == OC_LAYOUT_ZERO1_FLAT || by_sum;
    for (size_t b = 0; closes && o->bucket_size && b + 1 < l->nbuckets; b++) {
        size_t end = 0, sum = 0;
        int emb = 0;
        for (size_t i = 0; i < NP; i++) {
            size_t ib = bucket_of(l, l->offset[i]);
            if (ib == b && l->offset[i] + numel(i) - l->bucket_start[b] > end)
                end = l->offset[i] + numel(i) - l->bucket_start[b];
            sum += ib == b ? numel(i) : 0;
            emb |= model[i].shared_embedding && (ib == b || ib == b + 1);
        }
        if (by_sum)
            end = sum;
        bad += !emb && end < o->bucket_size;
    }
    return bad;
}

/* The rank's buffers and the single-rank run they must equal. */
typedef struct run_bufs {
    oc_fast_dtype mode;   /* NONE: fp32 mode; else mixed with this model copy */
    float *pbuf, *master; /* fp32 mode: flat parameters; mixed: owned masters */
    uint16_t *mbuf;       /* mixed: flat model copy */
    float *p1;            /* single-rank parameters (logical order) */
    uint16_t *copy1;      /* single-rank model copy */
    size_t loff[NP];      /* logical offset of each parameter */
} run_bufs;

/* LAYOUT-INV-1: what differs from the single-rank run (parameters in fp32 mode; owned masters
 * and the gathered model copy in mixed mode). */
static size_t count_differences(const oc_layout *l, const oc_dist *d, const run_bufs *rb)
{
    size_t diff = 0, pos = 0;
    for (size_t i = 0; i < NP; i++)
        diff += rb->mode == OC_FAST_MODEL_NONE
                    ? memcmp(rb->pbuf + l->offset[i], rb->p1 + rb->loff[i], numel(i) * 4) != 0
                    : memcmp(rb->mbuf + l->offset[i], rb->copy1 + rb->loff[i], numel(i) * 2) != 0;
    for (size_t k = 0; rb->mode != OC_FAST_MODEL_NONE && k < d->nseg; pos += d->seg[k].len, k++)
        diff += memcmp(rb->master + pos, rb->p1 + rb->loff[d->seg[k].param] + d->seg[k].off,
                       d->seg[k].len * 4) != 0;
    return diff;
}

/* One family under one layout: returns the number of failed checks on this rank. */
static int run(fam_kind f, oc_layout_kind kind, const oc_layout_opts *opts, oc_fast_dtype mode,
               const oc_comm *c, FILE *log)
{
    oc_layout l;
    oc_dist d;
    int fails = 0;
    if (oc_layout_build(kind, c->size, model, NP, opts, &l) != OC_OK ||
        oc_dist_init(&d, &l, c) != OC_OK) {
        fprintf(stderr, "rank %d: layout %s: build failed\n", c->rank, oc_layout_kind_name(kind));
        return 1;
    }
    fails += check_rules(&l, opts);
    /* LAYOUT-OWN-1: the ranks' segments cover every parameter element once (dp times if
     * replicated), each inside its parameter */
    size_t owned = 0, logical = 0;
    for (size_t i = 0; i < NP; i++)
        logical += numel(i);
    for (int r = 0; r < c->size; r++) {
        size_t ns = oc_layout_segments(&l, r, NULL, 0);
        oc_layout_segment *sg = calloc(ns + 1, sizeof *sg);
        oc_layout_segments(&l, r, sg, ns);
        for (size_t k = 0; sg && k < ns; k++) {
            owned += sg[k].len;
            fails += sg[k].off + sg[k].len > numel(sg[k].param) ||
                     sg[k].flat != l.offset[sg[k].param] + sg[k].off;
        }
        free(sg);
    }
    fails += owned != logical * (kind == OC_LAYOUT_REPLICATED ? (size_t)c->size : 1);

    float *pbuf = calloc(l.size, sizeof(float)), *gbuf = calloc(l.size, sizeof(float));
    float *st[3] = {NULL, NULL, NULL}, *p1 = malloc(logical * sizeof(float)),
          *g1 = malloc(logical * sizeof(float)), *s1[3] = {NULL, NULL, NULL};
    for (int k = 0; k < nstates(f); k++) {
        st[k] = calloc(d.owned + 1, sizeof(float));
        s1[k] = calloc(logical, sizeof(float));
    }
    run_bufs rb = {mode, pbuf, mode ? calloc(d.owned + 1, sizeof(float)) : NULL,
                   mode ? calloc(l.size, sizeof(uint16_t)) : NULL, p1,
                   mode ? calloc(logical, sizeof(uint16_t)) : NULL, {0}};
    size_t off = 0;
    for (size_t i = 0; i < NP; off += numel(i), i++) {
        rb.loff[i] = off;
        for (size_t j = 0; j < numel(i); j++)
            pbuf[l.offset[i] + j] = p1[off + j] = init_param(i, j);
    }
    for (size_t k = 0, pos = 0; mode && k < d.nseg; pos += d.seg[k].len, k++)
        for (size_t j = 0; j < d.seg[k].len; j++)
            rb.master[pos + j] = init_param(d.seg[k].param, d.seg[k].off + j);
    oc_fast_opts o = {1.0f, 1.0f, mode};
    oc_dist_buffers db = {pbuf, rb.master, rb.mbuf, gbuf, {st[0], st[1], st[2]}};

    /* the exact trajectory with its fp32-class bound (rank 0, once per family and rank count) */
    int exact = c->rank == 0 && kind == OC_LAYOUT_REPLICATED && mode == OC_FAST_MODEL_NONE;
    gen_stepper gs;
    exact = exact && exact_stepper(f, &gs) == 0;
    float (*gold)[GEN_MAX_STATE] = exact ? calloc(logical, sizeof *gold) : NULL;
    double (*bound)[GEN_MAX_STATE] = exact ? calloc(logical, sizeof *bound) : NULL;
    for (size_t e = 0; gold && e < logical; e++)
        gold[e][0] = p1[e];
    double worst = 0.0;

    for (int s = 1; s <= STEPS; s++) {
        memset(gbuf, 0, l.size * sizeof(float));
        off = 0;
        for (size_t i = 0; i < NP; off += numel(i), i++)
            for (size_t j = 0; j < numel(i); j++) {
                int total = 0;
                for (int r = 0; r < c->size; r++)
                    total += grad_k(r, i, j, s);
                gbuf[l.offset[i] + j] = (float)grad_k(c->rank, i, j, s) * grad_scale(i, j);
                g1[off + j] = (float)total * grad_scale(i, j);
            }
        step_ctx sc = {f, s};
        /* LAYOUT-STEP-1: reduce to the owners, step the owned pieces, gather */
        if (oc_dist_step(&d, &db, &o, family_step, &sc) != OC_OK) {
            fails++;
            break;
        }
        oc_fast_tensor one = {logical, p1, g1, {s1[0], s1[1], s1[2]}, rb.copy1};
        fails += family_step(&sc, &o, 1, &one) != OC_OK;
        size_t diff = count_differences(&l, &d, &rb);
        if (diff)
            fprintf(stderr, "rank %d: %s %s step %d: %zu parameters differ from single-rank\n",
                    c->rank, fam_names[f], oc_layout_kind_name(kind), s, diff);
        fails += diff != 0;
        if (exact) {
            gs.begin_step(gs.ctx, s);
            for (size_t e = 0; e < logical; e++) {
                gen_golden out;
                gs.element(gs.ctx, g1[e], gold[e], bound[e], &out);
                for (int k = 0; k < gs.nstate; k++) {
                    double got = k ? s1[k - 1][e] : p1[e];
                    double err = fabs(got - out.f32[k]);
                    double ratio = out.tol[k] > 0 ? err / out.tol[k] : err > 0 ? INFINITY : 0;
                    worst = ratio > worst ? ratio : worst;
                }
            }
        }
    }
    if (exact) {
        if (log)
            fprintf(log, "  %s: single-rank fast vs exact, %d steps, p and state: worst error/bound %.3f\n",
                fam_names[f], STEPS, worst);
        if (!(worst <= 1.0))
            fprintf(stderr, "%s: fast exceeds the fp32 bound of the exact step\n", fam_names[f]);
        fails += !(worst <= 1.0);
        exact_stepper_free(f, &gs);
        free(gold), free(bound);
    }
    if (log && is_layerwise(kind) && f == ADAMW)
        fprintf(log, "  %s dp=%d bucket=%zu: makespan/lower bound = %.4f (%zu buckets)\n",
                oc_layout_kind_name(kind), c->size, opts->bucket_size,
                l.makespan / l.lower_bound, l.nbuckets);
    free(pbuf), free(gbuf), free(p1), free(g1), free(rb.master), free(rb.mbuf), free(rb.copy1);
    for (int k = 0; k < 3; k++)
        free(st[k]), free(s1[k]);
    oc_dist_free(&d);
    oc_layout_free(&l);
    return fails;
}

int layout_suite(const oc_comm *c, int verbose)
{
    static const oc_layout_opts bucket_opts[] = {{0, 0}, {4000, 0}, {4000, 1}};
    static const char *const mode_names[] = {"fp32", "bf16", "fp16"};
    int fails = 0;
    FILE *log = verbose && c->rank == 0 ? stdout : NULL;
    for (int f = 0; f < NFAM; f++)
        for (int k = 0; k < OC_LAYOUT_KIND_COUNT; k++)
            for (int b = 0; b < 3; b++) {
                /* fp32 mode with one bucket, bf16 and fp16 model copies with the others */
                oc_fast_dtype mode = (oc_fast_dtype)b;
                int bad = run((fam_kind)f, (oc_layout_kind)k, &bucket_opts[b], mode, c, log) != 0;
                fails += bad;
                if (c->allreduce_max_int(c->ctx, &bad) != OC_OK)
                    return fails + 1;
                if (c->rank == 0 && (verbose || bad))
                    printf("%-16s %-15s bucket=%-5zu busbw=%d %-5s ranks=%d: %s\n", fam_names[f],
                           oc_layout_kind_name((oc_layout_kind)k), bucket_opts[b].bucket_size,
                           bucket_opts[b].high_busbw, mode_names[b], c->size, bad ? "FAIL" : "ok");
            }
    return fails;
}
