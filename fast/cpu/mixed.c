/* Mixed-precision steps of the fast CPU backend (spec/fast.md FAST-MIXED-1, spec/mixed.md):
 * the fp32 master is the fused kernels' parameter and the 16-bit model parameter their model
 * copy, written in the same pass (FAST-MODEL-1). bf16 optimizer state, which the kernels do
 * not read, is widened (exact) into fp32 scratch, stepped there and narrowed back with the
 * kernels' round-to-nearest-even conversion. */
#include <stdlib.h>
#include "optcert/fast.h"
#include "../common/elementwise.h"

/* The family's multi-tensor step on one tensor (nt = 0: the hyper-parameter check alone). */
static oc_status run(oc_algorithm alg, const void *hp, int64_t step, const oc_fast_opts *o,
                     size_t nt, const oc_fast_tensor *t)
{
    switch (alg) {
    case OC_ALG_ADAM: return oc_fast_adam_step(hp, step, o, nt, t, NULL);
    case OC_ALG_SGD: return oc_fast_sgd_step(hp, step, o, nt, t, NULL);
    default: return oc_fast_lion_step(hp, step, o, nt, t, NULL);
    }
}

oc_status oc_fast_mixed_step(oc_algorithm alg, const void *hp, const oc_storage *s,
                             int64_t step, size_t n, void *param, float *master,
                             void *const *state, const float *g)
{
    int nstate;
    oc_status st = oc_mixed_check_storage(alg, hp, s, n, master, state, &nstate);
    if (st != OC_OK)
        return st;
    if (s->state == OC_FMT_F16) /* not a combination of MP-COMB-1 */
        return OC_ERR_UNSUPPORTED;
    oc_fast_opts o = oc_fast_opts_default();
    st = run(alg, hp, step, &o, 0, NULL);
    if (st == OC_OK)
        st = oc_mixed_check_buffers(s, nstate, n, param, master, state, g);
    if (st != OC_OK)
        return st;
    oc_fast_tensor t = {n, master ? master : param, g, {NULL, NULL, NULL},
                        master ? param : NULL};
    o.model = s->param == OC_FMT_BF16 ? OC_FAST_MODEL_BF16
              : s->param == OC_FMT_F16 ? OC_FAST_MODEL_FP16 : OC_FAST_MODEL_NONE;
    const int wide = s->state == OC_FMT_BF16;
    float *scratch = wide && nstate > 0 && n > 0 ? malloc((size_t)nstate * n * sizeof(float))
                                                 : NULL;
    if (wide && nstate > 0 && n > 0 && !scratch)
        return OC_ERR_INTERNAL; /* out of memory; nothing was written */
    for (int k = 0; k < nstate; k++) {
        t.state[k] = wide ? scratch + (size_t)k * n : state[k];
        const uint16_t *h = state[k];
        for (size_t i = 0; wide && i < n; i++) /* exact widening (MP-CONV-2) */
            t.state[k][i] = (union { uint32_t u; float f; }){(uint32_t)h[i] << 16}.f;
    }
    st = run(alg, hp, step, &o, 1, &t);
    for (int k = 0; st == OC_OK && wide && k < nstate; k++) {
        uint16_t *h = state[k];
#pragma omp parallel for if (n > OC_FAST_CHUNK)
        for (size_t i = 0; i < n; i++)
            h[i] = oc_fast_to_bf16(t.state[k][i]);
    }
    free(scratch);
    return st;
}
