/* The CUDA kernels (spec/fast.md §5). Compiled with --fmad=false and IEEE division and square
 * root (nvcc's defaults without --use_fast_math), so the shared per-element math
 * (fast/common/elementwise.h) stores the same bits as on the CPU (FAST-CUDA-DET-1). */
#include <cuda_runtime.h>
#include "kernels.h"
#include "norm.h"
#include "table.h"
#include "optcert/fast.h"

#define MT_THREADS 256

/* The tensors and chunk starts of a launch's table (table.h). */
struct table_view {
    const oc_cuda_tdesc *t;
    const uint64_t *start;
};

__device__ __forceinline__ table_view view_of(const void *table, uint32_t nt)
{
    const oc_cuda_tdesc *t = (const oc_cuda_tdesc *)table;
    return table_view{t, (const uint64_t *)(t + nt)};
}

/* FAST-MODEL-1 */
__device__ __forceinline__ void store_model(int kind, uint16_t *out, uint64_t i, float x)
{
    if (kind == OC_FAST_MODEL_BF16)
        out[i] = oc_fast_to_bf16(x);
    else if (kind == OC_FAST_MODEL_FP16)
        out[i] = oc_fast_to_fp16(x);
}

/* FAST-CUDA-MT-1: block b updates global chunk b; every thread walks the chunk with the block's
 * stride (coalesced), calling op(tensor, index, gradient) per element. One OR per block into
 * the flag when some update gradient was not finite (FAST-GRAD-1). */
template <class Op>
__global__ void __launch_bounds__(MT_THREADS) multi_tensor(oc_cuda_launch l, Op op)
{
    table_view v = view_of(l.table, l.ntensors);
    uint64_t b = blockIdx.x, off, len;
    uint32_t ti = oc_cuda_chunk_tensor(v.start, l.ntensors, b);
    oc_cuda_chunk_range(v.start, v.t, ti, b, OC_FAST_CHUNK, &off, &len);
    oc_cuda_tdesc d = v.t[ti];
    float clip = l.clip_dev ? *l.clip_dev : l.clip;
    int kind = d.model ? l.model_kind : OC_FAST_MODEL_NONE;
    int bad = 0;
    for (uint64_t j = threadIdx.x; j < len; j += MT_THREADS) {
        uint64_t i = off + j;
        float g = oc_fast_grad(d.g[i], l.inv_scale, clip);
        bad |= (g - g) != 0.0f;
        op(d, i, g);
        store_model(kind, d.model, i, d.p[i]);
    }
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        atomicOr(l.flag, 1u);
}

struct adam_op {
    oc_fast_adam_coef c;
    int ams;
    __device__ void operator()(const oc_cuda_tdesc &d, uint64_t i, float g) const
    {
        oc_fast_adam_element(&c, ams, &d.p[i], &d.s0[i], &d.s1[i], ams ? &d.s2[i] : &d.s1[i], g);
    }
};

struct sgd_op {
    oc_fast_sgd_coef c;
    int ema, momentum, first, nesterov;
    __device__ void operator()(const oc_cuda_tdesc &d, uint64_t i, float g) const
    {
        float *buf = momentum ? &d.s0[i] : &d.p[i]; /* not accessed without momentum */
        if (ema)
            oc_fast_sgd_ema_element(&c, momentum, nesterov, &d.p[i], buf, g);
        else
            oc_fast_sgd_torch_element(&c, momentum, first, nesterov, &d.p[i], buf, g);
    }
};

struct lion_op {
    oc_fast_lion_coef c;
    __device__ void operator()(const oc_cuda_tdesc &d, uint64_t i, float g) const
    {
        oc_fast_lion_element(&c, &d.p[i], &d.s0[i], g);
    }
};

template <class Op> static int launch(const oc_cuda_launch *l, Op op)
{
    multi_tensor<Op><<<(unsigned)l->nchunks, MT_THREADS, 0, (cudaStream_t)l->stream>>>(*l, op);
    return (int)cudaGetLastError();
}

extern "C" int oc_cuda_launch_adam(const oc_cuda_launch *l, const oc_fast_adam_coef *c,
                                   int amsgrad)
{
    return launch(l, adam_op{*c, amsgrad != 0});
}

extern "C" int oc_cuda_launch_sgd(const oc_cuda_launch *l, const oc_fast_sgd_coef *c, int ema,
                                  int momentum, int first, int nesterov)
{
    return launch(l, sgd_op{*c, ema, momentum, first, nesterov});
}

extern "C" int oc_cuda_launch_lion(const oc_cuda_launch *l, const oc_fast_lion_coef *c)
{
    return launch(l, lion_op{*c});
}

/* ---- FAST-CUDA-NORM-1: FAST-NORM-1's order on the GPU ---- */

#define NORM_CHUNKS_PER_BLOCK (MT_THREADS / OC_CUDA_NORM_LANES)

/* Level 1: 16 threads per chunk; thread k is lane k (norm.h); the lanes are combined by the
 * tree of FAST-NORM-1 (lane k += lane k + w for w = 8, 4, 2, 1: the shuffle reads lane k + w's
 * value of the previous level, exactly the CPU's acc[k] += acc[k + w]). */
__global__ void __launch_bounds__(MT_THREADS) sumsq_chunks(oc_cuda_launch l, double *part)
{
    table_view v = view_of(l.table, l.ntensors);
    unsigned lane = threadIdx.x % OC_CUDA_NORM_LANES;
    uint64_t b = (uint64_t)blockIdx.x * NORM_CHUNKS_PER_BLOCK + threadIdx.x / OC_CUDA_NORM_LANES;
    double acc = 0.0;
    if (b < l.nchunks) {
        uint64_t off, len;
        uint32_t ti = oc_cuda_chunk_tensor(v.start, l.ntensors, b);
        oc_cuda_chunk_range(v.start, v.t, ti, b, OC_FAST_CHUNK, &off, &len);
        acc = oc_cuda_lane_sumsq(v.t[ti].g + off, len, lane, l.inv_scale);
    }
    for (unsigned w = OC_CUDA_NORM_LANES / 2; w > 0; w /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, w, OC_CUDA_NORM_LANES);
    if (b < l.nchunks && lane == 0)
        part[b] = acc;
}

/* Level 2: each tensor's chunk sums in chunk order (one thread per tensor), then the tensor
 * sums in list order (thread 0): the CPU's loops, so the total is bit-identical. */
__global__ void __launch_bounds__(MT_THREADS) sumsq_tensors(oc_cuda_launch l, const double *part,
                                                            double *per_tensor, double *total)
{
    table_view v = view_of(l.table, l.ntensors);
    for (uint32_t i = threadIdx.x; i < l.ntensors; i += MT_THREADS) {
        double s = 0.0;
        for (uint64_t c = v.start[i]; c < v.start[i + 1]; c++)
            s += part[c];
        per_tensor[i] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = 0.0;
        for (uint32_t i = 0; i < l.ntensors; i++)
            s += per_tensor[i];
        *total = s;
    }
}

extern "C" int oc_cuda_launch_sumsq(const oc_cuda_launch *l, double *part, double *per_tensor,
                                    double *total)
{
    cudaStream_t s = (cudaStream_t)l->stream;
    unsigned blocks = (unsigned)((l->nchunks + NORM_CHUNKS_PER_BLOCK - 1) / NORM_CHUNKS_PER_BLOCK);
    sumsq_chunks<<<blocks, MT_THREADS, 0, s>>>(*l, part);
    sumsq_tensors<<<1, MT_THREADS, 0, s>>>(*l, part, per_tensor, total);
    return (int)cudaGetLastError();
}

/* FAST-CUDA-CLIP-1 */
__global__ void clip_from_norm(const double *total, double max_norm, float *clip)
{
    double c = max_norm / (sqrt(*total) + 1e-6);
    *clip = c < 1.0 ? (float)c : 1.0f;
}

extern "C" int oc_cuda_launch_clip(const double *total, double max_norm, float *clip_dev,
                                   void *stream)
{
    clip_from_norm<<<1, 1, 0, (cudaStream_t)stream>>>(total, max_norm, clip_dev);
    return (int)cudaGetLastError();
}

/* ---- FAST-CUDA-NS-1 normalization ---- */

__device__ __forceinline__ float load_elem(const void *x, int bf16, uint64_t i)
{
    if (bf16)
        return __uint_as_float((uint32_t)((const uint16_t *)x)[i] << 16);
    return ((const float *)x)[i];
}

/* One block per matrix: strided per-thread sums, then a fixed shared-memory tree (the same
 * order on every run for the same shape). */
__global__ void __launch_bounds__(MT_THREADS) ns_sumsq(const void *x, int bf16, uint64_t n,
                                                       double *sumsq)
{
    __shared__ double s[MT_THREADS];
    uint64_t base = (uint64_t)blockIdx.x * n;
    double acc = 0.0;
    for (uint64_t j = threadIdx.x; j < n; j += MT_THREADS) {
        double e = load_elem(x, bf16, base + j);
        acc += e * e;
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned w = MT_THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sumsq[blockIdx.x] = s[0];
}

/* X / (scale ||X||_F + eps), or X / max(scale ||X||_F, eps) if max (NS-NORM-1), with the norm
 * rounded to binary32 first, as torch does in fp32 storage (scale 1 multiplies exactly); bf16
 * results rounded to nearest even. */
__global__ void ns_scale(void *x, int bf16, uint64_t n, float eps, float scale, int max,
                         const double *sumsq)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int m = blockIdx.y;
    if (i >= n)
        return;
    float s = scale * (float)sqrt(sumsq[m]);
    float d = max ? fmaxf(s, eps) : s + eps;
    uint64_t k = (uint64_t)m * n + i;
    float y = load_elem(x, bf16, k) / d;
    if (bf16)
        ((uint16_t *)x)[k] = oc_fast_to_bf16(y);
    else
        ((float *)x)[k] = y;
}

extern "C" int oc_cuda_launch_ns_normalize(void *x, int bf16, uint64_t n, int batch, float eps,
                                           float scale, int max, double *sumsq, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    ns_sumsq<<<(unsigned)batch, MT_THREADS, 0, s>>>(x, bf16, n, sumsq);
    dim3 grid((unsigned)((n + MT_THREADS - 1) / MT_THREADS), (unsigned)batch);
    ns_scale<<<grid, MT_THREADS, 0, s>>>(x, bf16, n, eps, scale, max, sumsq);
    return (int)cudaGetLastError();
}
