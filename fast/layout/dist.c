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
const oc_fast_tensor *oc_dist_tensors(const oc_dist *d, const oc_dist_buffers *b)
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
    return d->t;
}

static oc_status check_buffers(const oc_dist_buffers *b, const oc_fast_opts *o)
{
    int mixed = b->master != NULL;
    return (mixed && (!b->model || o->model == OC_FAST_MODEL_NONE)) || (!mixed && !b->params)
               ? OC_ERR_NULL_POINTER : OC_OK;
}

/* Whether parameter p is in the 'mtp' grad-norm group (STEP-GROUP-1). */
static int in_mtp(const oc_dist_param_attr *attr, size_t p) { return attr && attr[p].mtp; }

/* LAYOUT-STEP-1 (2), (3): the owned pieces stepped as one multi-tensor call (two where some
 * are in the 'mtp' group, which are stepped with mtp_coeff: FAST-DET-1, the grouping of the
 * tensors does not change an element), then the fp32 parameters, or the mixed mode's model
 * copy, all-gathered per bucket (replicated: every rank stepped everything). */
static oc_status step_and_gather(const oc_dist *d, const oc_dist_buffers *b,
                                 const oc_fast_opts *o, oc_dist_step_fn step, void *ctx,
                                 const oc_dist_param_attr *attr, float mtp_coeff)
{
    const oc_layout *l = d->layout;
    const oc_comm *c = d->comm;
    int repl = l->kind == OC_LAYOUT_REPLICATED, mixed = b->master != NULL;
    oc_fast_opts so = *o;
    if (!mixed)
        so.model = OC_FAST_MODEL_NONE;
    size_t ngroup = 0;
    for (size_t i = 0; i < d->nseg; i++)
        ngroup += in_mtp(attr, d->seg[i].param);
    oc_status st;
    if (ngroup == 0)
        st = step(ctx, &so, d->nseg, d->t);
    else {
        oc_fast_tensor *t = malloc(d->nseg * sizeof *t);
        if (!t)
            return OC_ERR_INTERNAL;
        size_t nmain = 0, g = d->nseg - ngroup;
        for (size_t i = 0; i < d->nseg; i++)
            t[in_mtp(attr, d->seg[i].param) ? g++ : nmain++] = d->t[i];
        st = nmain > 0 ? step(ctx, &so, nmain, t) : OC_OK;
        so.clip_coeff = mtp_coeff;
        if (st == OC_OK)
            st = step(ctx, &so, ngroup, t + nmain);
        free(t);
    }
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
    oc_dist_tensors(d, b);
    return step_and_gather(d, b, o, step, ctx, NULL, 1.0f);
}

oc_status oc_dist_tie_grads(const oc_dist *d, const oc_dist_buffers *b,
                            const oc_comm *embedding_group, size_t param)
{
    if (!d || !b || !b->grads || !embedding_group)
        return OC_ERR_NULL_POINTER;
    if (param >= d->layout->nparams)
        return OC_ERR_BAD_HPARAM;
    return embedding_group->allreduce_sum(embedding_group->ctx, b->grads + d->layout->offset[param],
                                          d->layout->numel[param]);
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

/* This rank's parts of the norms: the sum of the squared unscaled gradients of the counted
 * pieces (FAST-NORM-1 order) or their max |g|, part[0] over the pieces in the main norm,
 * part[1] over those in the 'mtp' group (STEP-GROUP-1); *local_inf: some owned gradient is
 * not finite. */
static oc_status local_norm(const oc_dist *d, const oc_dist_control *sc, float inv_scale,
                            double part[2], int *local_inf)
{
    double *sq = malloc((d->nseg + 1) * sizeof *sq), total;
    if (!sq)
        return OC_ERR_INTERNAL;
    oc_status st = oc_fast_grad_sumsq(d->nseg, d->t, inv_scale, sq, &total, local_inf);
    int inf_norm = sc->clip && sc->clip->inf_norm; /* no clipping: found_inf only */
    part[0] = part[1] = 0.0;
    for (size_t i = 0; i < d->nseg && st == OC_OK; i++) {
        if (!counted(d, sc, d->seg[i].param))
            continue;
        double *x = &part[in_mtp(sc->attr, d->seg[i].param)];
        for (size_t j = 0; inf_norm && j < d->t[i].n; j++) {
            double g = fabsf(d->t[i].grad[j] * inv_scale);
            *x = g > *x ? g : *x;
        }
        *x += inf_norm ? 0.0 : sq[i];
    }
    free(sq);
    return st;
}

/* Whether a sub-step has a parameter in the main norm (STEP-CLIP-2: only such a sub-step
 * checks its skip threshold). By the logical parameters, so every rank answers alike. */
static int has_main_params(const oc_dist_sub *u)
{
    for (size_t p = 0; p < u->d->layout->nparams; p++)
        if (!in_mtp(u->sc->attr, p))
            return 1;
    return 0;
}

/* The checks of one sub-step: buffers, and its clipping configuration against its groups. */
static oc_status check_sub(const oc_dist_sub *u, const oc_fast_opts *so, const oc_clip_config *cc0)
{
    if (!u->d || !u->b || !u->sc || !u->step)
        return OC_ERR_NULL_POINTER;
    const oc_clip_config *cc = u->sc->clip;
    const oc_dist_control *sc = u->sc;
    int mp_size = sc->mp ? sc->mp->size : 1;
    oc_status st = check_buffers(u->b, so);
    if (st != OC_OK || !cc)
        return st != OC_OK ? st : cc0 ? OC_ERR_BAD_HPARAM : OC_OK;
    /* LAYOUT-CHAIN-1: one norm for the whole chain; max_norm and the skip threshold are each
     * sub-step's own (STEP-CLIP-2) */
    if (!cc0 || cc->profile != cc0->profile || cc->inf_norm != cc0->inf_norm)
        return OC_ERR_BAD_HPARAM;
    if ((st = oc_clip_check(cc, 0, NULL)) != OC_OK)
        return st;
    return cc->dp_size != u->d->layout->dp || cc->tp_size * cc->pp_size != mp_size ||
                   sc->tp_rank < 0 || sc->tp_rank >= cc->tp_size || sc->pp_stage < 0 ||
                   sc->pp_stage >= cc->pp_size ||
                   (sc->mp && sc->mp->rank != sc->pp_stage * cc->tp_size + sc->tp_rank)
               ? OC_ERR_BAD_HPARAM : OC_OK;
}

oc_status oc_dist_chained_step(size_t nsub, const oc_dist_sub *sub, const oc_fast_opts *o,
                               oc_dist_outcome *out)
{
    if (!sub || !out || nsub == 0)
        return OC_ERR_NULL_POINTER;
    if (nsub > OC_CLIP_MAX_OPTIMIZERS)
        return OC_ERR_BAD_HPARAM;
    oc_fast_opts so = o ? *o : oc_fast_opts_default();
    const oc_clip_config *cc = sub[0].sc ? sub[0].sc->clip : NULL;
    oc_status st = OC_OK;
    size_t nbuf = 1;
    for (size_t k = 0; k < nsub && st == OC_OK; k++) {
        if ((st = check_sub(&sub[k], &so, cc)) != OC_OK)
            break;
        const oc_comm *mp = sub[k].sc->mp;
        size_t need = (size_t)(mp && mp->size > sub[k].d->comm->size ? mp->size : sub[k].d->comm->size);
        nbuf = need > nbuf ? need : nbuf;
    }
    if (st != OC_OK)
        return st;
    double *buf = malloc(nbuf * sizeof *buf), (*part)[2] = calloc(nsub, sizeof *part);
    if (!buf || !part) {
        free(buf), free(part);
        return OC_ERR_INTERNAL;
    }
    for (size_t k = 0; k < nsub && st == OC_OK; k++)
        if ((st = reduce_grads(sub[k].d, sub[k].b)) == OC_OK)
            oc_dist_tensors(sub[k].d, sub[k].b);
    /* LAYOUT-SKIP-1: found_inf from every owned gradient of every sub-step, MAX over each
     * sub-step's data-parallel and model-parallel groups: every rank skips together, before any
     * write */
    int inf = 0;
    for (size_t k = 0; k < nsub && st == OC_OK; k++) {
        int local = 0;
        st = local_norm(sub[k].d, sub[k].sc, so.inv_scale, part[k], &local);
        inf |= local;
    }
    for (size_t k = 0; k < nsub && st == OC_OK; k++) {
        const oc_comm *dp = sub[k].d->comm, *mp = sub[k].sc->mp;
        if ((st = dp->allreduce_max_int(dp->ctx, &inf)) == OC_OK && mp)
            st = mp->allreduce_max_int(mp->ctx, &inf);
    }
    /* LAYOUT-CLIP-2: each sub-step's counted parts over its data-parallel group, then over its
     * model-parallel group; LAYOUT-CHAIN-1: the sub-steps' totals added (or maximised) in
     * chain order, the main norm's and the 'mtp' group's apart (STEP-GROUP-1) */
    int clip = cc != NULL; /* the norm whatever max_norm is: CLIP-DISABLE-1 */
    double total[2] = {0.0, 0.0};
    for (size_t k = 0; k < nsub && st == OC_OK && !inf && clip; k++)
        for (int m = 0; m < 2 && st == OC_OK; m++) {
            if ((st = combine(sub[k].d->comm, &part[k][m], cc->inf_norm, buf)) == OC_OK)
                st = combine(sub[k].sc->mp, &part[k][m], cc->inf_norm, buf);
            total[m] = cc->inf_norm ? (part[k][m] > total[m] ? part[k][m] : total[m])
                                    : total[m] + part[k][m];
        }
    free(buf), free(part);
    if (st != OC_OK)
        return st;
    double norm = clip && !cc->inf_norm ? sqrt(total[0]) : total[0];
    double group = clip && !cc->inf_norm ? sqrt(total[1]) : total[1];
    *out = (oc_dist_outcome){clip && !inf ? (float)norm : 0.0f, 1.0f, inf, inf,
                             clip && !inf ? (float)group : 0.0f};
    float coeff[OC_CLIP_MAX_OPTIMIZERS][2] = {{0}};
    for (size_t k = 0; k < nsub; k++) { /* STEP-CLIP-2: each sub-step's own rule */
        const oc_clip_config *ck = sub[k].sc->clip;
        out->skipped |= clip && !inf && ck->profile == OC_CLIP_MEGATRON && has_main_params(&sub[k]) &&
                        norm > ck->skip_threshold;
        coeff[k][0] = clip && !inf ? oc_fast_clip_coeff(ck, norm) : 1.0f;
        coeff[k][1] = clip && !inf ? oc_fast_clip_coeff(ck, group) : 1.0f;
    }
    if (out->skipped)
        return OC_OK;                           /* nothing written: LAYOUT-SKIP-1 */
    out->clip_coeff = coeff[0][0];
    for (size_t k = 0; k < nsub && st == OC_OK; k++) {
        so.clip_coeff = coeff[k][0];
        if (sub[k].clip_coeff)
            *sub[k].clip_coeff = coeff[k][0];
        if (sub[k].mtp_clip_coeff)
            *sub[k].mtp_clip_coeff = coeff[k][1];
        st = step_and_gather(sub[k].d, sub[k].b, &so, sub[k].step, sub[k].ctx, sub[k].sc->attr,
                             coeff[k][1]);
    }
    return st;
}

oc_status oc_dist_controlled_step(const oc_dist *d, const oc_dist_buffers *b,
                                  const oc_fast_opts *o, const oc_dist_control *sc,
                                  oc_dist_step_fn step, void *ctx, oc_dist_outcome *out)
{
    oc_dist_sub one = {.d = d, .b = b, .sc = sc, .step = step, .ctx = ctx};
    return oc_dist_chained_step(1, &one, o, out);
}
