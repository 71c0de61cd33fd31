/* What the multi-tensor steps of the fast CPU backend share (spec/fast.md); each element-wise
 * algorithm's step is in its own file (adam.c, sgd.c, lion.c), with validation as the reference
 * validates (nothing written on error) and the per-step scalars in binary64 rounded once to
 * binary32, both by the preparation the CUDA backend shares (fast/common/step_prep.c). Here:
 * the threads (every tensor is cut into chunks of OC_FAST_CHUNK elements, the chunks of all
 * tensors are shared among the OpenMP threads, FAST-MT-1), a sub-optimizer's fused pass
 * (FAST-STEP-2) through its algorithm's descriptor, and the gradients' squared norm
 * (FAST-NORM-1). Element-wise results do not depend on the cut, the thread count or the
 * instruction set (FAST-DET-1), and stay within the fp32 class of the families' tolerances
 * (checked by the vectors and, along multi-step trajectories, by LAYOUT-INV-2). */
#include <math.h>
#include <stdlib.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "internal.h"
#include "fast_elementwise_registry.h"

static const oc_fast_opts default_opts = {1.0f, 1.0f, OC_FAST_MODEL_NONE};

oc_fast_opts oc_fast_opts_default(void) { return default_opts; }

const oc_fast_opts *oc_fast_opts_or_default(const oc_fast_opts *o) { return o ? o : &default_opts; }

typedef struct chunk {
    size_t tensor, off, len;
} chunk;

/* The chunks of all tensors in order; *count of them. NULL with *count 0 when there are none,
 * NULL with *count != 0 when allocation failed. */
static chunk *chunks_of(size_t nt, const oc_fast_tensor *t, size_t *count)
{
    size_t c = 0;
    for (size_t i = 0; i < nt; i++)
        c += (t[i].n + OC_FAST_CHUNK - 1) / OC_FAST_CHUNK;
    *count = c;
    if (c == 0)
        return NULL;
    chunk *ch = malloc(c * sizeof *ch);
    if (!ch)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < nt; i++)
        for (size_t off = 0; off < t[i].n; off += OC_FAST_CHUNK)
            ch[k++] = (chunk){i, off, t[i].n - off < OC_FAST_CHUNK ? t[i].n - off : OC_FAST_CHUNK};
    return ch;
}

/* grad_back: FAST-STEP-2's fused pass (no model copy, the gradient written back); flag: the
 * caller wants to know whether a gradient was non-finite. */
static oc_fast_range range_of(const oc_fast_tensor *t, const chunk *c, const oc_fast_opts *o,
                              int grad_back, int flag)
{
    size_t k = c->off;
    return (oc_fast_range){c->len, t->param + k, t->grad + k,
                           t->state[0] ? t->state[0] + k : NULL,
                           t->state[1] ? t->state[1] + k : NULL,
                           t->state[2] ? t->state[2] + k : NULL,
                           !grad_back && t->model && o->model != OC_FAST_MODEL_NONE ? t->model + k
                                                                                     : NULL,
                           grad_back ? OC_FAST_KIND_GRAD_BACK : (int)o->model, o->inv_scale,
                           o->clip_coeff, flag};
}

oc_status oc_fast_for_each_chunk(size_t nt, const oc_fast_tensor *t, const oc_fast_opts *o,
                                 int grad_back, oc_fast_range_fn f, const void *ctx,
                                 int *found_nonfinite)
{
    size_t count;
    chunk *ch = chunks_of(nt, t, &count);
    if (!ch && count)
        return OC_ERR_INTERNAL; /* out of memory; nothing was written */
    unsigned bad = 0;
    long long nc = (long long)count;
    int flag = found_nonfinite != NULL;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad) if (nc > 2)
    for (long long k = 0; k < nc; k++) {
        oc_fast_range r = range_of(&t[ch[k].tensor], &ch[k], o, grad_back, flag);
        bad |= f(ctx, &r);
    }
    free(ch);
    if (found_nonfinite)
        *found_nonfinite = bad != 0;
    return OC_OK;
}

/* ---- FAST-STEP-2: a sub-optimizer's fused pass ---- */

oc_status oc_fast_sub_step(const oc_sub_optimizer *s, int64_t step, const oc_fast_opts *o,
                           size_t nt, const oc_fast_tensor *t, int grad_back)
{
    const oc_fast_elementwise *e = oc_fast_elementwise_of(s->kind);
    return e ? e->step(&s->hp, step, o, nt, t, NULL, grad_back) : OC_ERR_BAD_PROFILE;
}

/* The fused multi-tensor step of algorithm alg, from the descriptors of the algorithms' files
 * (fast_elementwise_registry.h); NULL if none. */
const oc_fast_elementwise *oc_fast_elementwise_of(oc_algorithm alg)
{
    for (size_t k = 0; k < OC_FAST_NELEMENTWISE; k++)
        if (oc_fast_elementwises[k]->alg == alg)
            return oc_fast_elementwises[k];
    return NULL;
}

/* ---- FAST-NORM-1 ---- */

oc_status oc_fast_grad_sumsq(size_t nt, const oc_fast_tensor *t, float inv_scale,
                             double *per_tensor, double *total, int *found_nonfinite)
{
    if (!total || !found_nonfinite || (nt > 0 && !t))
        return OC_ERR_NULL_POINTER;
    if (!(inv_scale > 0.0f && inv_scale <= 0x1.fffffep+127f))
        return OC_ERR_BAD_HPARAM;
    for (size_t i = 0; i < nt; i++) {
        oc_status st = oc_buffer_check(t[i].grad, t[i].n, sizeof(float));
        if (st != OC_OK)
            return st;
    }
    size_t count;
    chunk *ch = chunks_of(nt, t, &count);
    double *part = count ? malloc(count * sizeof *part) : NULL;
    if (count && (!ch || !part)) {
        free(ch);
        free(part);
        return OC_ERR_INTERNAL; /* out of memory */
    }
    const oc_fast_kernels *k = oc_fast_kernels_active();
    long long nc = (long long)count;
#pragma omp parallel for schedule(dynamic, 1) if (nc > 2)
    for (long long c = 0; c < nc; c++)
        part[c] = k->sumsq(ch[c].len, t[ch[c].tensor].grad + ch[c].off, inv_scale);
    double sum = 0.0;
    size_t c = 0;
    for (size_t i = 0; i < nt; i++) {
        double s = 0.0;
        for (; c < count && ch[c].tensor == i; c++)
            s += part[c];
        if (per_tensor)
            per_tensor[i] = s;
        sum += s;
    }
    free(ch);
    free(part);
    *total = sum;
    *found_nonfinite = !isfinite(sum);
    return OC_OK;
}
