/* The CUDA backend behind the implementation ABI v3 (include/optcert/impl.h), so that
 * `optcert certify --impl fast-cuda` judges it against every vector family of the algorithms it
 * implements (FAST-CUDA-ABI-1): adam, sgd, lion, schedule and Newton-Schulz (no Muon step: the
 * backend has only its orthogonalisation). Each algorithm's entry point is a descriptor
 * (`const oc_fast_algorithm`, listed by cmake/registry.cmake in fast_cuda_registry.h), and the
 * families are claimed from the vector set's registry as the CPU backend's are
 * (fast/common/fast_families.c); the backend has no mixed-precision and no resume entry, so it
 * claims no "-mixed" and no "resume-" family. Each step's entry point copies the host buffers to
 * the device, runs the multi-tensor step with a list of one tensor, and copies the results back
 * through a host staging buffer: the caller's buffers are written only after the whole step
 * succeeded (nothing written on error). The schedule is host arithmetic: the reference's, as
 * in the CPU backend (fast/common/schedule.c, spec/fast.md §4). */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/fast_cuda.h"
#include "fast_cuda_registry.h"
#include "../common/step_prep.h"

#define NBUF 5 /* param, grad, three states */

typedef struct plugin_state {
    oc_cuda_ctx *ctx;
    float *dev;    /* NBUF * cap floats */
    float *stage;  /* NBUF * cap floats, host */
    size_t cap;
} plugin_state;

static plugin_state state;

static oc_status reserve(size_t n)
{
    if (!state.ctx) {
        oc_status st = oc_cuda_create(&state.ctx);
        if (st != OC_OK)
            return st;
    }
    if (n <= state.cap)
        return OC_OK;
    cudaFree(state.dev);
    free(state.stage);
    state.cap = 0;
    state.stage = malloc(NBUF * n * sizeof(float));
    if (!state.stage || cudaMalloc((void **)&state.dev, NBUF * n * sizeof(float)) != cudaSuccess) {
        free(state.stage);
        state.stage = NULL;
        state.dev = NULL;
        return OC_ERR_INTERNAL;
    }
    state.cap = n;
    return OC_OK;
}

typedef oc_status (*device_step)(const void *hp, int64_t step, oc_fast_tensor *dev);

/* The host tensor t (already checked) on the device: copy in, step, copy out, then write. */
static oc_status on_device(const oc_fast_tensor *t, const void *hp, int64_t step, device_step f)
{
    oc_status st = reserve(t->n ? t->n : 1);
    if (st != OC_OK)
        return st;
    size_t n = t->n, bytes = n * sizeof(float);
    float *host[NBUF] = {t->param, (float *)t->grad, t->state[0], t->state[1], t->state[2]};
    oc_fast_tensor d = {n, NULL, NULL, {NULL, NULL, NULL}, NULL};
    float **dp[NBUF] = {&d.param, (float **)&d.grad, &d.state[0], &d.state[1], &d.state[2]};
    cudaStream_t s = oc_cuda_stream(state.ctx);
    int err = 0;
    for (int k = 0; k < NBUF && !err; k++)
        if (host[k]) {
            *dp[k] = state.dev + (size_t)k * state.cap;
            err = cudaMemcpyAsync(*dp[k], host[k], bytes, cudaMemcpyHostToDevice, s);
        }
    if (err)
        return OC_ERR_INTERNAL;
    st = f(hp, step, &d);
    for (int k = 0; k < NBUF && st == OC_OK && !err; k++)
        if (host[k] && k != 1)
            err = cudaMemcpyAsync(state.stage + (size_t)k * state.cap, *dp[k], bytes,
                                  cudaMemcpyDeviceToHost, s);
    if (st == OC_OK && !err)
        st = oc_cuda_sync(state.ctx);
    if (st == OC_OK && err)
        st = OC_ERR_INTERNAL;
    for (int k = 0; k < NBUF && st == OC_OK; k++)
        if (host[k] && k != 1)
            memcpy(host[k], state.stage + (size_t)k * state.cap, bytes);
    return st;
}

static oc_status adam_dev(const void *hp, int64_t step, oc_fast_tensor *d)
{
    return oc_cuda_adam_step(state.ctx, hp, step, NULL, 1, d);
}
static oc_status sgd_dev(const void *hp, int64_t step, oc_fast_tensor *d)
{
    return oc_cuda_sgd_step(state.ctx, hp, step, NULL, 1, d);
}
static oc_status lion_dev(const void *hp, int64_t step, oc_fast_tensor *d)
{
    return oc_cuda_lion_step(state.ctx, hp, step, NULL, 1, d);
}

static const oc_fast_opts plain = {1.0f, 1.0f, OC_FAST_MODEL_NONE};

static oc_status cuda_adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n, float *p,
                           float *m, float *v, float *vmax, const float *g)
{
    (void)ctx;
    if (!hp)
        return OC_ERR_NULL_POINTER;
    oc_fast_tensor t = {n, p, g, {m, v, hp->amsgrad ? vmax : NULL}, NULL};
    oc_status st = oc_fast_prep_check(oc_adam_check(hp, step), &plain, 1, &t, hp->amsgrad ? 3 : 2);
    return st != OC_OK ? st : on_device(&t, hp, step, adam_dev);
}

const oc_fast_algorithm oc_fast_cuda_adam = {
    .algorithm = "adam",
    .options = "amsgrad maximize",
    .entry = (oc_entry_point)cuda_adam,
};

static oc_status cuda_sgd(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                          float *buf, const float *g)
{
    (void)ctx;
    if (!hp)
        return OC_ERR_NULL_POINTER;
    int momentum = hp->momentum != 0.0;
    oc_fast_tensor t = {n, p, g, {momentum ? buf : NULL, NULL, NULL}, NULL};
    oc_status st = oc_fast_prep_check(oc_sgd_check(hp, step), &plain, 1, &t, momentum);
    return st != OC_OK ? st : on_device(&t, hp, step, sgd_dev);
}

const oc_fast_algorithm oc_fast_cuda_sgd = {
    .algorithm = "sgd",
    .options = "nesterov maximize",
    .entry = (oc_entry_point)cuda_sgd,
};

static oc_status cuda_lion(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                           float *m, const float *g)
{
    (void)ctx;
    if (!hp)
        return OC_ERR_NULL_POINTER;
    oc_fast_tensor t = {n, p, g, {m, NULL, NULL}, NULL};
    oc_status st = oc_fast_prep_check(oc_lion_check(hp, step), &plain, 1, &t, 1);
    return st != OC_OK ? st : on_device(&t, hp, step, lion_dev);
}

const oc_fast_algorithm oc_fast_cuda_lion = {
    .algorithm = "lion",
    .entry = (oc_entry_point)cuda_lion,
};

/* FAST-CUDA-ABI-1: the newton-schulz-* families' entry point, on the device in the FP32 mode
 * (FAST-CUDA-NS-1): the reference's checks (NS-HP-1, NS-IN-1: a non-finite entry of g is
 * OC_ERR_NONFINITE), each iteration's tuple by NS-SCHED-1 and the divisor of NS-NORM-1 (its
 * mode and scale) handed to oc_cuda_newton_schulz; the result is staged on the host and written
 * to out only when every entry is within [-2^64, 2^64] (NS-DOM-1, checked on the result: the
 * iterates stay on the device). */
static oc_status cuda_newton_schulz(void *ctx, const oc_ns_hparams *hp, size_t rows, size_t cols,
                                    const float *g, float *out)
{
    (void)ctx;
    if (!hp || !g || !out)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_ns_check(hp, rows, cols); /* rows * cols <= OC_NS_MAX_ELEMS: ints */
    size_t n = rows * cols;
    for (size_t i = 0; i < n && st == OC_OK; i++)
        if (!isfinite(g[i]))
            st = OC_ERR_NONFINITE;
    if (st == OC_OK)
        st = reserve(n);
    if (st != OC_OK)
        return st;
    oc_cuda_ns_coef k[OC_NS_MAX_STEPS];
    for (int i = 0; i < hp->steps; i++) {
        double abc[3];
        oc_ns_tuple(hp, i, abc);
        k[i] = (oc_cuda_ns_coef){(float)abc[0], (float)abc[1], (float)abc[2]};
    }
    oc_cuda_ns_norm norm = {(float)hp->eps, (float)hp->norm_scale, hp->eps_mode == OC_NS_EPS_MAX};
    cudaStream_t s = oc_cuda_stream(state.ctx);
    int err = cudaMemcpyAsync(state.dev, g, n * sizeof(float), cudaMemcpyHostToDevice, s);
    if (!err)
        st = oc_cuda_newton_schulz(state.ctx, OC_CUDA_NS_FP32, (int)rows, (int)cols, 1, state.dev,
                                   &norm, hp->steps, k, NULL);
    if (st == OC_OK && !err)
        err = cudaMemcpyAsync(state.stage, state.dev, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (st == OC_OK && !err)
        st = oc_cuda_sync(state.ctx);
    if (st == OC_OK && err)
        st = OC_ERR_INTERNAL;
    for (size_t i = 0; i < n && st == OC_OK; i++)
        if (!(fabsf(state.stage[i]) <= 0x1p64f))
            st = OC_ERR_NONFINITE;
    if (st == OC_OK)
        memcpy(out, state.stage, n * sizeof(float));
    return st;
}

const oc_fast_algorithm oc_fast_cuda_newton_schulz = {
    .algorithm = "newton-schulz",
    .entry = (oc_entry_point)cuda_newton_schulz,
};

static oc_impl_v3 fast_cuda = {
    .abi_version = OC_IMPL_ABI_V3,
    .name = "optcert-fast-cuda",
};

/* FAST-CUDA-DEV-1: NULL when a device can run the backend, else the reason (the harness prints
 * "no CUDA device: <reason>" and exits 2). */
const char *optcert_fast_cuda_unavailable(void)
{
    static char why[256];
    return oc_cuda_device_check(why, sizeof why) == OC_OK ? NULL : why;
}

/* The certificate names the device. */
const oc_impl_v3 *optcert_impl_v3(void)
{
    static const oc_fast_backend cuda = {
        .algorithms = oc_fast_cuda_algorithms,
        .nalgorithms = OC_FAST_CUDA_NALGORITHMS,
    };
    static char version[320];
    struct cudaDeviceProp prop;
    int dev = 0;
    if (optcert_fast_cuda_unavailable() || cudaGetDevice(&dev) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
        return NULL;
    snprintf(version, sizeof version, "1 (multi-tensor CUDA kernels, %s, sm_%d%d)", prop.name,
             prop.major, prop.minor);
    fast_cuda.version = version;
    oc_fast_list_families(&cuda, &fast_cuda);
    return &fast_cuda;
}
