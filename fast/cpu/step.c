/* The multi-tensor steps of the fast CPU backend (spec/fast.md): validation as the reference
 * validates (nothing written on error) and the per-step scalars in binary64 rounded once to
 * binary32, both by the preparation the CUDA backend shares (fast/common/step_prep.c), and
 * the threads: every tensor is cut into chunks of OC_FAST_CHUNK elements, the
 * chunks of all tensors are shared among the OpenMP threads (FAST-MT-1). Element-wise
 * results do not depend on the cut, the thread count or the instruction set (FAST-DET-1), and
 * stay within the fp32 class of the families' tolerances (checked by the vectors and, along
 * multi-step trajectories, by LAYOUT-INV-2). */
#include <math.h>
#include <stdlib.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "internal.h"
#include "../common/step_prep.h"
#include "../common/fast_families.h"

static const oc_fast_opts default_opts = {1.0f, 1.0f, OC_FAST_MODEL_NONE};

oc_fast_opts oc_fast_opts_default(void) { return default_opts; }

typedef unsigned (*range_fn)(const void *ctx, const oc_fast_range *r);

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

/* FAST-MT-1: all chunks of all tensors, shared among the threads. */
static oc_status for_each_chunk(size_t nt, const oc_fast_tensor *t, const oc_fast_opts *o,
                                int grad_back, range_fn f, const void *ctx, int *found_nonfinite)
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

/* ---- Adam ---- */

typedef struct adam_ctx {
    oc_fast_adam_coef c;
    int amsgrad;
    const oc_fast_kernels *k;
} adam_ctx;

static unsigned adam_range(const void *ctx, const oc_fast_range *r)
{
    const adam_ctx *a = ctx;
    return a->k->adam(&a->c, a->amsgrad, r);
}

static oc_status adam_step(const oc_adam_hparams *hp, int64_t step, const oc_fast_opts *o,
                           size_t nt, const oc_fast_tensor *t, int *found_nonfinite, int grad_back)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = o ? o : &default_opts;
    oc_status st = oc_fast_prep_check(oc_adam_check(hp, step), o, nt, t, hp->amsgrad ? 3 : 2);
    if (st != OC_OK)
        return st;
    adam_ctx a = {oc_fast_prep_adam(hp, step), hp->amsgrad != 0, oc_fast_kernels_active()};
    return for_each_chunk(nt, t, o, grad_back, adam_range, &a, found_nonfinite);
}

oc_status oc_fast_adam_step(const oc_adam_hparams *hp, int64_t step, const oc_fast_opts *o,
                            size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    return adam_step(hp, step, o, nt, t, found_nonfinite, 0);
}

/* ---- SGD ---- */

typedef struct sgd_ctx {
    oc_fast_sgd_coef c;
    oc_fast_sgd_kind kind;
    const oc_fast_kernels *k;
} sgd_ctx;

static unsigned sgd_range(const void *ctx, const oc_fast_range *r)
{
    const sgd_ctx *s = ctx;
    return s->k->sgd(&s->c, s->kind, r);
}

static oc_status sgd_step(const oc_sgd_hparams *hp, int64_t step, const oc_fast_opts *o,
                          size_t nt, const oc_fast_tensor *t, int *found_nonfinite, int grad_back)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = o ? o : &default_opts;
    int momentum = hp->momentum != 0.0;
    oc_status st = oc_fast_prep_check(oc_sgd_check(hp, step), o, nt, t, momentum);
    if (st != OC_OK)
        return st;
    sgd_ctx s = {oc_fast_prep_sgd(hp), {hp->profile == OC_SGD_EMA, momentum, step == 1,
                                        hp->nesterov != 0},
                 oc_fast_kernels_active()};
    return for_each_chunk(nt, t, o, grad_back, sgd_range, &s, found_nonfinite);
}

oc_status oc_fast_sgd_step(const oc_sgd_hparams *hp, int64_t step, const oc_fast_opts *o,
                           size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    return sgd_step(hp, step, o, nt, t, found_nonfinite, 0);
}

/* ---- Lion ---- */

typedef struct lion_ctx {
    oc_fast_lion_coef c;
    const oc_fast_kernels *k;
} lion_ctx;

static unsigned lion_range(const void *ctx, const oc_fast_range *r)
{
    const lion_ctx *l = ctx;
    return l->k->lion(&l->c, r);
}

static oc_status lion_step(const oc_lion_hparams *hp, int64_t step, const oc_fast_opts *o,
                           size_t nt, const oc_fast_tensor *t, int *found_nonfinite, int grad_back)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = o ? o : &default_opts;
    oc_status st = oc_fast_prep_check(oc_lion_check(hp, step), o, nt, t, 1);
    if (st != OC_OK)
        return st;
    lion_ctx l = {oc_fast_prep_lion(hp), oc_fast_kernels_active()};
    return for_each_chunk(nt, t, o, grad_back, lion_range, &l, found_nonfinite);
}

oc_status oc_fast_lion_step(const oc_lion_hparams *hp, int64_t step, const oc_fast_opts *o,
                            size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    return lion_step(hp, step, o, nt, t, found_nonfinite, 0);
}

/* ---- FAST-STEP-2: a sub-optimizer's fused pass ---- */

oc_status oc_fast_sub_step(const oc_sub_optimizer *s, int64_t step, const oc_fast_opts *o,
                           size_t nt, const oc_fast_tensor *t, int grad_back)
{
    return s->kind == OC_ALG_ADAM  ? adam_step(&s->hp.adam, step, o, nt, t, NULL, grad_back)
           : s->kind == OC_ALG_SGD ? sgd_step(&s->hp.sgd, step, o, nt, t, NULL, grad_back)
                                   : lion_step(&s->hp.lion, step, o, nt, t, NULL, grad_back);
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

/* Plugin ABI v3 (VEC-ABI-1): the entry points of the element-wise families, each the
 * multi-tensor step with a list of one tensor, with every option of their families
 * (VEC-ABI-2). */
static oc_status adam_entry(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n, float *p,
                            float *m, float *v, float *vmax, const float *g)
{
    (void)ctx;
    oc_fast_tensor t = {n, p, g, {m, v, hp && hp->amsgrad ? vmax : NULL}, NULL};
    return oc_fast_adam_step(hp, step, NULL, 1, &t, NULL);
}

const oc_fast_algorithm oc_fast_cpu_adam = {
    .algorithm = "adam",
    .options = "amsgrad maximize",
    .entry = (oc_entry_point)adam_entry,
};

static oc_status sgd_entry(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                           float *buf, const float *g)
{
    (void)ctx;
    oc_fast_tensor t = {n, p, g, {hp && hp->momentum != 0.0 ? buf : NULL, NULL, NULL}, NULL};
    return oc_fast_sgd_step(hp, step, NULL, 1, &t, NULL);
}

const oc_fast_algorithm oc_fast_cpu_sgd = {
    .algorithm = "sgd",
    .options = "nesterov maximize",
    .entry = (oc_entry_point)sgd_entry,
};

static oc_status lion_entry(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                            float *m, const float *g)
{
    (void)ctx;
    oc_fast_tensor t = {n, p, g, {m, NULL, NULL}, NULL};
    return oc_fast_lion_step(hp, step, NULL, 1, &t, NULL);
}

const oc_fast_algorithm oc_fast_cpu_lion = {
    .algorithm = "lion",
    .entry = (oc_entry_point)lion_entry,
};
