/* SGD's multi-tensor step in the fast CPU backend (spec/fast.md, FAST-STEP-1), its plugin entry
 * point (VEC-ABI-1) and its fused step for mixed precision and the guarded step (FAST-STEP-2):
 * validation and the per-step scalars by fast/common/step_prep.c, the chunks and threads by
 * fast/cpu/step.c. */
#include "optcert/fast.h"
#include "internal.h"
#include "../common/step_prep.h"
#include "../common/fast_families.h"

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

/* The fused step (hparams an oc_sgd_hparams); grad_back: FAST-STEP-2's pass. */
static oc_status sgd_step(const void *hparams, int64_t step, const oc_fast_opts *o, size_t nt,
                      const oc_fast_tensor *t, int *found_nonfinite, int grad_back)
{
    const oc_sgd_hparams *hp = hparams;
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = oc_fast_opts_or_default(o);
    int momentum = hp->momentum != 0.0;
    oc_status st = oc_fast_prep_check(oc_sgd_check(hp, step), o, nt, t, momentum);
    if (st != OC_OK)
        return st;
    sgd_ctx s = {oc_fast_prep_sgd(hp), {hp->profile == OC_SGD_EMA, momentum, step == 1,
                                        hp->nesterov != 0},
                 oc_fast_kernels_active()};
    return oc_fast_for_each_chunk(nt, t, o, grad_back, sgd_range, &s, found_nonfinite);
}

oc_status oc_fast_sgd_step(const oc_sgd_hparams *hp, int64_t step, const oc_fast_opts *o,
                           size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    return sgd_step(hp, step, o, nt, t, found_nonfinite, 0);
}

/* Plugin ABI v3 (VEC-ABI-1): the multi-tensor step with a list of one tensor, with every option
 * of the algorithm's families (VEC-ABI-2). */
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

/* FAST-STEP-2: the step as mixed precision and the guarded step call it. */
const oc_fast_elementwise oc_fast_elementwise_sgd = {.alg = OC_ALG_SGD, .step = sgd_step};
