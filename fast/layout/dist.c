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
 * multi-tensor call, state tensors (and the mixed mode's master) packed in segment order;
 * (3) the fp32 parameters, or the mixed mode's model copy, all-gathered per bucket
 * (replicated: every rank stepped everything). */
oc_status oc_dist_step(const oc_dist *d, const oc_dist_buffers *b, const oc_fast_opts *o,
                       oc_dist_step_fn step, void *ctx)
{
    const oc_layout *l = d->layout;
    const oc_comm *c = d->comm;
    oc_fast_opts def = oc_fast_opts_default();
    o = o ? o : &def;
    int repl = l->kind == OC_LAYOUT_REPLICATED, mixed = b->master != NULL;
    if ((mixed && (!b->model || o->model == OC_FAST_MODEL_NONE)) || (!mixed && !b->params))
        return OC_ERR_NULL_POINTER;
    oc_status st = OC_OK;
    if (repl)
        st = c->allreduce_sum(c->ctx, b->grads, l->size);
    for (size_t k = 0; !repl && k < l->nbuckets && st == OC_OK; k++) {
        size_t sh = l->shard[k], mine = l->bucket_start[k] + (size_t)c->rank * sh;
        st = c->reduce_scatter_sum(c->ctx, b->grads + l->bucket_start[k], d->scratch, sh);
        if (st == OC_OK)
            memcpy(b->grads + mine, d->scratch, sh * sizeof(float));
    }
    if (st != OC_OK)
        return st;
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
    oc_fast_opts so = *o;
    if (!mixed)
        so.model = OC_FAST_MODEL_NONE;
    st = step(ctx, &so, d->nseg, d->t);
    for (size_t k = 0; !repl && k < l->nbuckets && st == OC_OK; k++)
        st = mixed ? c->allgather(c->ctx, b->model + l->bucket_start[k], l->shard[k],
                                  sizeof(uint16_t))
                   : c->allgather(c->ctx, b->params + l->bucket_start[k], l->shard[k],
                                  sizeof(float));
    return st;
}
