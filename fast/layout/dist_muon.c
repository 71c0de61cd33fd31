/* Distributed Muon (spec/layouts.md §9): the Muon step over the owned whole matrices of a layout
 * (LAYOUT-MUON-1), all or nothing across the ranks (LAYOUT-MUON-3); under `replicated` it is
 * gather-all, under a layerwise layout owner-compute (LAYOUT-MUON-2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/dist_muon.h"
#include "../common/elementwise.h"

/* LAYOUT-MUON-1: the owned segments are whole 2-D parameters. */
static oc_status whole_matrices(const oc_dist_muon *c, size_t nt)
{
    const oc_dist *d = c->dist;
    if (nt != d->nseg)
        return OC_ERR_BAD_SHAPE;
    for (size_t i = 0; i < nt; i++) {
        const oc_layout_segment *s = &d->seg[i];
        const oc_layout_param *p = &c->params[s->param];
        if (p->ndim != 2 || s->off != 0 || s->len != p->dim0 * p->dim1)
            return OC_ERR_UNSUPPORTED;
    }
    return OC_OK;
}

/* FAST-NS-1's flop count of one orthogonalisation. */
static double ns_flops(const oc_muon_hparams *hp, const oc_layout_param *p)
{
    double k = (double)(p->dim0 < p->dim1 ? p->dim0 : p->dim1);
    double n = (double)(p->dim0 < p->dim1 ? p->dim1 : p->dim0);
    return hp->ns.steps * (3 * k * k * n + k * k * k);
}

static void write_model(const oc_fast_opts *o, const oc_fast_tensor *t)
{
    for (size_t j = 0; t->model && o->model != OC_FAST_MODEL_NONE && j < t->n; j++)
        t->model[j] = o->model == OC_FAST_MODEL_BF16 ? oc_fast_to_bf16(t->param[j])
                                                     : oc_fast_to_fp16(t->param[j]);
}

oc_status oc_dist_muon_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    oc_dist_muon *c = ctx;
    if (!c || !c->dist || !c->params || !c->hp || !o || (nt && !t))
        return OC_ERR_NULL_POINTER;
    const oc_comm *group = c->dist->comm;
    oc_status st = whole_matrices(c, nt);
    size_t total = 0;
    for (size_t i = 0; st == OC_OK && i < nt; i++)
        total += t[i].n;
    /* the old parameters and momenta (to undo a partial step), one scaled gradient */
    float *keep = st == OC_OK ? malloc((3 * total + 1) * sizeof(float)) : NULL;
    if (st == OC_OK && !keep)
        st = OC_ERR_INTERNAL;
    size_t pos = 0, done = 0;
    c->orthogonalised = 0, c->ns_flops = 0.0;
    for (; st == OC_OK && done < nt; done++) {
        const oc_fast_tensor *x = &t[done];
        const oc_layout_param *p = &c->params[c->dist->seg[done].param];
        float *grad = keep + 2 * total;
        if (!x->param || !x->grad || !x->state[0]) {
            st = OC_ERR_NULL_POINTER;
            break;
        }
        memcpy(keep + pos, x->param, x->n * sizeof(float));
        memcpy(keep + total + pos, x->state[0], x->n * sizeof(float));
        for (size_t j = 0; j < x->n; j++) /* FAST-GRAD-1 */
            grad[j] = oc_fast_grad(x->grad[j], o->inv_scale, o->clip_coeff);
        st = oc_fast_muon_step(c->hp, c->prec, p->dim0, p->dim1, x->param, x->state[0], grad,
                               NULL, 0);
        pos += x->n;
        c->orthogonalised++, c->ns_flops += ns_flops(c->hp, p);
    }
    if ((st = oc_comm_agree(group, st)) != OC_OK) {
        for (size_t i = 0, q = 0; keep && i < done; q += t[i].n, i++) { /* undo */
            memcpy(t[i].param, keep + q, t[i].n * sizeof(float));
            memcpy(t[i].state[0], keep + total + q, t[i].n * sizeof(float));
        }
        c->orthogonalised = 0, c->ns_flops = 0.0;
    }
    for (size_t i = 0; st == OC_OK && i < nt; i++)
        write_model(o, &t[i]);
    free(keep);
    return st;
}

oc_status oc_dist_muon_clip(const oc_comm *group, const oc_muon_clip_config *c,
                            const float *max_dot, float *w)
{
    if (!group)
        return OC_ERR_NULL_POINTER;
    oc_status st = !c || !max_dot ? OC_ERR_NULL_POINTER : oc_muon_clip_check(c);
    size_t h = st == OC_OK ? c->heads : 0;
    float *all = st == OC_OK ? malloc(h * (size_t)group->size * sizeof(float)) : NULL;
    float *s_max = st == OC_OK ? malloc(h * sizeof(float)) : NULL;
    if (st == OC_OK && (!all || !s_max))
        st = OC_ERR_INTERNAL;
    if ((st = oc_comm_agree(group, st)) == OC_OK) {
        memcpy(all + (size_t)group->rank * h, max_dot, h * sizeof(float));
        st = group->allgather(group->ctx, all, h, sizeof(float)) == OC_OK ? OC_OK : OC_ERR_IO;
    }
    for (size_t k = 0; st == OC_OK && k < h; k++) {
        float m = all[k];
        for (int r = 1; r < group->size; r++) {
            float x = all[(size_t)r * h + k];
            m = x != x || m != m ? NAN : x > m ? x : m;
        }
        s_max[k] = m;
    }
    if (st == OC_OK)
        st = oc_fast_muon_clip(c, s_max, w);
    free(all), free(s_max);
    return st;
}
