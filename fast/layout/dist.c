/* One step under a layout (spec/layouts.md §5, LAYOUT-STEP-1). Each owned element receives
 * the same gradient sum and runs the same element-wise arithmetic as in a single-rank step
 * (FAST-DET-1: the cut into pieces does not matter), which is LAYOUT-INV-1. */
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

/* LAYOUT-STEP-1: (1) gradients summed over the ranks onto their owners: all-reduce
 * (replicated) or one reduce-scatter per bucket; (2) the owned pieces stepped as one
 * multi-tensor call, state tensors packed in segment order; (3) parameters all-gathered per
 * bucket (replicated: every rank stepped everything). */
oc_status oc_dist_step(const oc_dist *d, float *params, float *grads, float *const state[3],
                       oc_dist_step_fn step, void *ctx)
{
    const oc_layout *l = d->layout;
    const oc_comm *c = d->comm;
    int repl = l->kind == OC_LAYOUT_REPLICATED;
    oc_status st = OC_OK;
    if (repl)
        st = c->allreduce_sum(c->ctx, grads, l->size);
    for (size_t b = 0; !repl && b < l->nbuckets && st == OC_OK; b++) {
        size_t sh = l->shard[b], mine = l->bucket_start[b] + (size_t)c->rank * sh;
        st = c->reduce_scatter_sum(c->ctx, grads + l->bucket_start[b], d->scratch, sh);
        if (st == OC_OK)
            memcpy(grads + mine, d->scratch, sh * sizeof(float));
    }
    if (st != OC_OK)
        return st;
    size_t pos = 0;
    for (size_t i = 0; i < d->nseg; i++) {
        const oc_layout_segment *s = &d->seg[i];
        d->t[i] = (oc_fast_tensor){s->len, params + s->flat, grads + s->flat,
                                   {state[0] ? state[0] + pos : NULL,
                                    state[1] ? state[1] + pos : NULL,
                                    state[2] ? state[2] + pos : NULL}, NULL};
        pos += s->len;
    }
    st = step(ctx, d->nseg, d->t);
    for (size_t b = 0; !repl && b < l->nbuckets && st == OC_OK; b++)
        st = c->allgather(c->ctx, params + l->bucket_start[b], l->shard[b]);
    return st;
}
