/* Lion's multi-tensor step in the fast CPU backend (spec/fast.md, FAST-STEP-1), its plugin entry
 * point (VEC-ABI-1) and its fused step for mixed precision and the guarded step (FAST-STEP-2):
 * validation and the per-step scalars by fast/common/step_prep.c, the chunks and threads by
 * fast/cpu/step.c. */
#include "optcert/fast.h"
#include "internal.h"
#include "../common/step_prep.h"
#include "../common/fast_families.h"

typedef struct lion_ctx {
    oc_fast_lion_coef c;
    const oc_fast_kernels *k;
} lion_ctx;

static unsigned lion_range(const void *ctx, const oc_fast_range *r)
{
    const lion_ctx *l = ctx;
    return l->k->lion(&l->c, r);
}

/* The fused step (hparams an oc_lion_hparams); grad_back: FAST-STEP-2's pass. */
static oc_status lion_step(const void *hparams, int64_t step, const oc_fast_opts *o, size_t nt,
                       const oc_fast_tensor *t, int *found_nonfinite, int grad_back)
{
    const oc_lion_hparams *hp = hparams;
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = oc_fast_opts_or_default(o);
    oc_status st = oc_fast_prep_check(oc_lion_check(hp, step), o, nt, t, 1);
    if (st != OC_OK)
        return st;
    lion_ctx l = {oc_fast_prep_lion(hp), oc_fast_kernels_active()};
    return oc_fast_for_each_chunk(nt, t, o, grad_back, lion_range, &l, found_nonfinite);
}

oc_status oc_fast_lion_step(const oc_lion_hparams *hp, int64_t step, const oc_fast_opts *o,
                            size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    return lion_step(hp, step, o, nt, t, found_nonfinite, 0);
}

/* Plugin ABI v3 (VEC-ABI-1): the multi-tensor step with a list of one tensor, with every option
 * of the algorithm's families (VEC-ABI-2). */
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

/* FAST-STEP-2: the step as mixed precision and the guarded step call it. */
const oc_fast_elementwise oc_fast_elementwise_lion = {.alg = OC_ALG_LION, .step = lion_step};
