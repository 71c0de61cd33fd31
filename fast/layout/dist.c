/* One step under a layout (spec/layouts.md §5, LAYOUT-STEP-1). Each owned element receives
 * the same gradient sum and runs the same element-wise arithmetic as in a single-rank step
 * (FAST-DET-1: the cut into pieces does not matter), which is LAYOUT-INV-1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/dist.h"

oc_status oc_dist_init(oc_dist *d, const oc_layout *l, const oc_comm *c)
{
    if (!d || !l || !c)
        return OC_ERR_NULL_POINTER;
    memset(d, 0, sizeof *d);
    if (l->dp != c->size || c->rank < 0 || c->rank >= c->size)
        return OC_ERR_BAD_HPARAM;
    *d = (oc_dist){.layout = l, .comm = c};
    d->nseg = oc_layout_segments(l, c->rank, NULL, 0);
    d->seg = calloc(d->nseg + 1, sizeof *d->seg);
    d->t = calloc(d->nseg + 1, sizeof *d->t);
    size_t big = 1;
    for (size_t b = 0; b < l->nbuckets; b++)
        big = l->shard[b] > big ? l->shard[b] : big;
    d->scratch = malloc(big * sizeof(float));
    if (!d->seg || !d->t || !d->scratch) {
        oc_dist_free(d);
        return OC_ERR_INTERNAL;
    }
    oc_layout_segments(l, c->rank, d->seg, d->nseg);
    for (size_t i = 0; i < d->nseg; i++)
        d->owned += d->seg[i].len;
    return OC_OK;
}

void oc_dist_free(oc_dist *d)
{
    free(d->seg), free(d->t), free(d->scratch);
    memset(d, 0, sizeof *d);
}

/* LAYOUT-STEP-1 (1): gradients summed over the ranks onto their owners. */
static oc_status reduce_grads(const oc_dist *d, const oc_dist_buffers *b)
{
    const oc_layout *l = d->layout;
    const oc_comm *c = d->comm;
    if (l->kind == OC_LAYOUT_REPLICATED)
        return c->allreduce_sum(c->ctx, b->grads, l->size);
    oc_status st = OC_OK;
    for (size_t k = 0; k < l->nbuckets && st == OC_OK; k++) {
        size_t sh = l->shard[k], mine = l->bucket_start[k] + (size_t)c->rank * sh;
        st = c->reduce_scatter_sum(c->ctx, b->grads + l->bucket_start[k], d->scratch, sh);
        if (st == OC_OK)
            memcpy(b->grads + mine, d->scratch, sh * sizeof(float));
    }
    return st;
}

/* The owned pieces as tensors d->t (state and the mixed mode's master packed in segment
 * order). */
static void owned_tensors(const oc_dist *d, const oc_dist_buffers *b)
{
    int mixed = b->master != NULL;
    size_t pos = 0;
    for (size_t i = 0; i < d->nseg; i++) {
        const oc_layout_segment *s = &d->seg[i];
        d->t[i] = (oc_fast_tensor){s->len, mixed ? b->master + pos : b->params + s->flat,
                                   b->grads + s->flat,
                                   {b->state[0] ? b->state[0] + pos : NULL,
                                    b->state[1] ? b->state[1] + pos : NULL,
                                    b->state[2] ? b->state[2] + pos : NULL},
                                   mixed ? b->model + s->flat : NULL};
        pos += s->len;
    }
}

static oc_status check_buffers(const oc_dist_buffers *b, const oc_fast_opts *o)
{
    int mixed = b->master != NULL;
    return (mixed && (!b->model || o->model == OC_FAST_MODEL_NONE)) || (!mixed && !b->params)
               ? OC_ERR_NULL_POINTER : OC_OK;
}

/* LAYOUT-STEP-1 (2), (3): the owned pieces stepped as one multi-tensor call, then the fp32
 * parameters, or the mixed mode's model copy, all-gathered per bucket (replicated: every rank
 * stepped everything). */
static oc_status step_and_gather(const oc_dist *d, const oc_dist_buffers *b,
                                 const oc_fast_opts *o, oc_dist_step_fn step, void *ctx)
{
    const oc_layout *l = d->layout;
    const oc_comm *c = d->comm;
    int repl = l->kind == OC_LAYOUT_REPLICATED, mixed = b->master != NULL;
    oc_fast_opts so = *o;
    if (!mixed)
        so.model = OC_FAST_MODEL_NONE;
    oc_status st = step(ctx, &so, d->nseg, d->t);
    for (size_t k = 0; !repl && k < l->nbuckets && st == OC_OK; k++)
        st = mixed ? c->allgather(c->ctx, b->model + l->bucket_start[k], l->shard[k],
                                  sizeof(uint16_t))
                   : c->allgather(c->ctx, b->params + l->bucket_start[k], l->shard[k],
                                  sizeof(float));
    return st;
}

/* LAYOUT-STEP-1: reduce, step the owned pieces, gather. */
oc_status oc_dist_step(const oc_dist *d, const oc_dist_buffers *b, const oc_fast_opts *o,
                       oc_dist_step_fn step, void *ctx)
{
    oc_fast_opts def = oc_fast_opts_default();
    o = o ? o : &def;
    oc_status st = check_buffers(b, o);
    if (st == OC_OK)
        st = reduce_grads(d, b);
    if (st != OC_OK)
        return st;
    owned_tensors(d, b);
    return step_and_gather(d, b, o, step, ctx);
}

/* LAYOUT-CLIP-1: whether this rank counts the owned piece of parameter p. */
static int counted(const oc_dist *d, const oc_dist_control *sc, size_t p)
{
    const oc_dist_param_attr *a = sc->attr ? &sc->attr[p] : NULL;
    if (a && a->shared)
        return 0;                               /* CLIP-DEDUP-SHARED-1 */
    if (!(a && a->tensor_parallel) && sc->tp_rank != 0)
        return 0;                               /* CLIP-DEDUP-TP-1 */
    return d->layout->kind != OC_LAYOUT_REPLICATED || d->comm->rank == 0; /* CLIP-DEDUP-DP-1 */
}

/* LAYOUT-CLIP-2: x := the sum (or max) of every rank's x over group g, added in rank order on
 * every rank from an all-gather of the binary64 values, so every rank holds the same bits. */
static oc_status combine(const oc_comm *g, double *x, int max, double *buf)
{
    if (!g || g->size == 1)
        return OC_OK;
    buf[g->rank] = *x;
    oc_status st = g->allgather(g->ctx, buf, 1, sizeof(double));
    double acc = 0.0;
    for (int r = 0; r < g->size && st == OC_OK; r++)
        acc = max ? (buf[r] > acc ? buf[r] : acc) : acc + buf[r];
    if (st == OC_OK)
        *x = acc;
    return st;
}

/* This rank's part of the norm: the sum of the squared unscaled gradients of the counted
 * pieces (FAST-NORM-1 order) or their max |g|; *local_inf: some owned gradient is not finite. */
static oc_status local_norm(const oc_dist *d, const oc_dist_control *sc, float inv_scale,
                            double *part, int *local_inf)
{
    double *sq = malloc((d->nseg + 1) * sizeof *sq), total;
    if (!sq)
        return OC_ERR_INTERNAL;
    oc_status st = oc_fast_grad_sumsq(d->nseg, d->t, inv_scale, sq, &total, local_inf);
    int inf_norm = sc->clip && sc->clip->inf_norm; /* no clipping: found_inf only */
    *part = 0.0;
    for (size_t i = 0; i < d->nseg && st == OC_OK; i++) {
        if (!counted(d, sc, d->seg[i].param))
            continue;
        for (size_t j = 0; inf_norm && j < d->t[i].n; j++) {
            double g = fabsf(d->t[i].grad[j] * inv_scale);
            *part = g > *part ? g : *part;
        }
        *part += inf_norm ? 0.0 : sq[i];
    }
    free(sq);
    return st;
}

oc_status oc_dist_controlled_step(const oc_dist *d, const oc_dist_buffers *b,
                                  const oc_fast_opts *o, const oc_dist_control *sc,
                                  oc_dist_step_fn step, void *ctx, oc_dist_outcome *out)
{
    if (!d || !b || !sc || !out || !step)
        return OC_ERR_NULL_POINTER;
    oc_fast_opts so = o ? *o : oc_fast_opts_default();
    const oc_clip_config *cc = sc->clip;
    const oc_comm *mp = sc->mp;
    int mp_size = mp ? mp->size : 1;
    oc_status st = check_buffers(b, &so);
    if (st == OC_OK && cc && (st = oc_clip_check(cc, 0, NULL)) == OC_OK &&
        (cc->dp_size != d->layout->dp || cc->tp_size * cc->pp_size != mp_size ||
         sc->tp_rank < 0 || sc->tp_rank >= cc->tp_size || sc->pp_stage < 0 ||
         sc->pp_stage >= cc->pp_size || (mp && mp->rank != sc->pp_stage * cc->tp_size + sc->tp_rank)))
        st = OC_ERR_BAD_HPARAM;
    if (st != OC_OK)
        return st;
    double *buf = malloc((size_t)(d->comm->size > mp_size ? d->comm->size : mp_size) *
                         sizeof *buf);
    if (!buf)
        return OC_ERR_INTERNAL;
    if ((st = reduce_grads(d, b)) == OC_OK)
        owned_tensors(d, b);
    /* LAYOUT-SKIP-1: found_inf from every owned gradient, MAX over the data-parallel and the
     * model-parallel group: every rank skips together, before any write */
    double part = 0.0;
    int inf = 0;
    if (st == OC_OK && (st = local_norm(d, sc, so.inv_scale, &part, &inf)) == OC_OK &&
        (st = d->comm->allreduce_max_int(d->comm->ctx, &inf)) == OC_OK && mp)
        st = mp->allreduce_max_int(mp->ctx, &inf);
    /* LAYOUT-CLIP-2: the counted parts over the data-parallel group (ZeRO-1, FSDP2, layerwise:
     * disjoint shards; replicated: DP rank 0's alone), then over the model-parallel group */
    int clip = cc && (cc->profile == OC_CLIP_TORCH || cc->max_norm > 0); /* CLIP-DISABLE-1 */
    if (st == OC_OK && !inf && clip && (st = combine(d->comm, &part, cc->inf_norm, buf)) == OC_OK)
        st = combine(mp, &part, cc->inf_norm, buf);
    free(buf);
    if (st != OC_OK)
        return st;
    double norm = clip && !cc->inf_norm ? sqrt(part) : part;
    *out = (oc_dist_outcome){clip && !inf ? (float)norm : 0.0f, 1.0f, inf, inf};
    out->skipped |= clip && !inf && cc->profile == OC_CLIP_MEGATRON && norm > cc->skip_threshold;
    if (out->skipped)
        return OC_OK;                           /* nothing written: LAYOUT-SKIP-1 */
    out->clip_coeff = so.clip_coeff = clip ? oc_fast_clip_coeff(cc, norm) : 1.0f;
    return step_and_gather(d, b, &so, step, ctx);
}
