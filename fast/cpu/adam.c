/* Adam's multi-tensor step in the fast CPU backend (spec/fast.md, FAST-STEP-1), its plugin entry
 * point (VEC-ABI-1) and its fused step for mixed precision and the guarded step (FAST-STEP-2):
 * validation and the per-step scalars by fast/common/step_prep.c, the chunks and threads by
 * fast/cpu/step.c. */
#include "optcert/fast.h"
#include "internal.h"
#include "../common/step_prep.h"
#include "../common/fast_families.h"

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

/* The fused step (hparams an oc_adam_hparams); grad_back: FAST-STEP-2's pass. */
static oc_status adam_step(const void *hparams, int64_t step, const oc_fast_opts *o, size_t nt,
                       const oc_fast_tensor *t, int *found_nonfinite, int grad_back)
{
    const oc_adam_hparams *hp = hparams;
    if (!hp)
        return OC_ERR_NULL_POINTER;
    o = oc_fast_opts_or_default(o);
    oc_status st = oc_fast_prep_check(oc_adam_check(hp, step), o, nt, t, hp->amsgrad ? 3 : 2);
    if (st != OC_OK)
        return st;
    adam_ctx a = {oc_fast_prep_adam(hp, step), hp->amsgrad != 0, oc_fast_kernels_active()};
    return oc_fast_for_each_chunk(nt, t, o, grad_back, adam_range, &a, found_nonfinite);
}

oc_status oc_fast_adam_step(const oc_adam_hparams *hp, int64_t step, const oc_fast_opts *o,
                            size_t nt, const oc_fast_tensor *t, int *found_nonfinite)
{
    return adam_step(hp, step, o, nt, t, found_nonfinite, 0);
}

/* Plugin ABI v3 (VEC-ABI-1): the multi-tensor step with a list of one tensor, with every option
 * of the algorithm's families (VEC-ABI-2). */
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

/* FAST-STEP-2: the step as mixed precision and the guarded step call it. */
const oc_fast_elementwise oc_fast_elementwise_adam = {.alg = OC_ALG_ADAM, .step = adam_step};
