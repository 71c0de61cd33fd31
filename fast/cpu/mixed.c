/* Mixed-precision steps of the fast CPU backend (spec/fast.md FAST-MIXED-1, spec/mixed.md):
 * the fp32 master is the fused kernels' parameter and the 16-bit model parameter their model
 * copy, written in the same pass (FAST-MODEL-1). bf16 optimizer state, which the kernels do
 * not read, is widened (exact) into fp32 scratch, stepped there and narrowed back with the
 * kernels' round-to-nearest-even conversion. */
#include <stdlib.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "internal.h"
#include "../common/elementwise.h"

/* MP-ERR-1 before the buffers, in the reference's order of statuses; fp16 state is not a
 * combination of MP-COMB-1. */
static oc_status storage_status(oc_algorithm alg, const void *hp, const oc_storage *s, size_t n,
                                const void *param, const float *master, void *const *state)
{
    if (s == NULL || hp == NULL || (n > 0 && (state == NULL || param == NULL)))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)s->param >= OC_FMT_COUNT || (unsigned)s->state >= OC_FMT_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (s->param == OC_FMT_F32 && master)  /* MP-MASTER-1 */
        return OC_ERR_UNSUPPORTED;
    if (s->param != OC_FMT_F32 && !master)
        return OC_ERR_NULL_POINTER;
    if (oc_algorithm_state_count(alg, hp) < 0)
        return OC_ERR_BAD_PROFILE;
    return s->state == OC_FMT_F16 ? OC_ERR_UNSUPPORTED : OC_OK;
}

/* MP-ERR-1 for bf16 state tensors, which the fused step does not see: present, 2-byte
 * aligned, disjoint from each other and from the parameter, master and gradient. The fused
 * step checks the other buffers (FAST-ERR-1) before it writes. */
static oc_status wide_state_status(size_t n, const void *param, size_t param_bytes,
                                   const float *master, void *const *state, int nstate,
                                   const float *g)
{
    const size_t sb = n * sizeof(uint16_t), fb = n * sizeof(float);
    for (int k = 0; k < nstate; k++) {
        oc_status st = oc_buffer_check(state[k], n, sizeof(uint16_t));
        if (st == OC_OK)
            st = oc_buffer_disjoint(state[k], sb, param, param_bytes);
        if (st == OC_OK && master)
            st = oc_buffer_disjoint(state[k], sb, master, fb);
        if (st == OC_OK)
            st = oc_buffer_disjoint(state[k], sb, g, fb);
        for (int j = 0; j < k && st == OC_OK; j++)
            st = oc_buffer_disjoint(state[j], sb, state[k], sb);
        if (st != OC_OK)
            return st;
    }
    return OC_OK;
}

/* The family's multi-tensor step on one tensor (nt = 0: the hyper-parameter check alone). */
static oc_status run(oc_algorithm alg, const void *hp, int64_t step, const oc_fast_opts *o,
                     size_t nt, const oc_fast_tensor *t)
{
    const oc_fast_elementwise *e = oc_fast_elementwise_of(alg);
    return e ? e->step(hp, step, o, nt, t, NULL, 0) : OC_ERR_BAD_PROFILE;
}

oc_status oc_fast_mixed_step(oc_algorithm alg, const void *hp, const oc_storage *s,
                             int64_t step, size_t n, void *param, float *master,
                             void *const *state, const float *g)
{
    oc_status st = storage_status(alg, hp, s, n, param, master, state);
    if (st != OC_OK)
        return st;
    const int nstate = oc_algorithm_state_count(alg, hp), wide = s->state == OC_FMT_BF16;
    oc_fast_opts o = oc_fast_opts_default();
    st = run(alg, hp, step, &o, 0, NULL); /* the hyper-parameters first, as the reference */
    if (st == OC_OK && wide)
        st = wide_state_status(n, param, n * (master ? sizeof(uint16_t) : sizeof(float)),
                               master, state, nstate, g);
    if (st != OC_OK)
        return st;
    oc_fast_tensor t = {n, master ? master : param, g, {NULL, NULL, NULL},
                        master ? param : NULL};
    o.model = s->param == OC_FMT_BF16 ? OC_FAST_MODEL_BF16
              : s->param == OC_FMT_F16 ? OC_FAST_MODEL_FP16 : OC_FAST_MODEL_NONE;
    float *scratch = wide && nstate > 0 && n > 0 ? malloc((size_t)nstate * n * sizeof(float))
                                                 : NULL;
    if (wide && nstate > 0 && n > 0 && !scratch)
        return OC_ERR_INTERNAL; /* out of memory; nothing was written */
    for (int k = 0; state && k < nstate; k++) {
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
