/* FAST-CUDA-NS-1: Newton–Schulz orthogonalization on cuBLAS, batched over same-shaped matrices,
 * Gram matrix on the smaller side (the operand mapping is in ns_iter.c), every iteration
 * enqueued on the context's stream without a host wait. */
#include <math.h>
#include "optcert/fast_cuda.h"
#include "host.h"
#include "ns_iter.h"

#define NS_ALIGN 256

static size_t round_up(size_t x) { return (x + NS_ALIGN - 1) / NS_ALIGN * NS_ALIGN; }

typedef struct ns_plan {
    size_t esz;             /* bytes of one element */
    size_t mat, gram;       /* elements of X and of A per matrix */
    size_t off_b, off_y, off_sum, bytes;
    cudaDataType_t dtype;
    cublasComputeType_t compute;
} ns_plan;

static ns_plan plan_of(int rows, int cols, int batch, oc_cuda_ns_mode mode)
{
    ns_plan p;
    size_t s = (size_t)(rows < cols ? rows : cols);
    p.esz = mode == OC_CUDA_NS_BF16 ? 2 : 4;
    p.mat = (size_t)rows * (size_t)cols;
    p.gram = s * s;
    size_t a_bytes = round_up(p.gram * p.esz * (size_t)batch);
    p.off_b = a_bytes;
    p.off_y = p.off_b + a_bytes;
    p.off_sum = p.off_y + round_up(p.mat * p.esz * (size_t)batch);
    p.bytes = p.off_sum + round_up((size_t)batch * sizeof(double));
    p.dtype = mode == OC_CUDA_NS_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    p.compute = mode == OC_CUDA_NS_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    return p;
}

size_t oc_cuda_ns_workspace_bytes(int rows, int cols, int batch, oc_cuda_ns_mode mode)
{
    if (rows < 1 || cols < 1 || batch < 1 || (unsigned)mode > OC_CUDA_NS_BF16)
        return 0;
    return plan_of(rows, cols, batch, mode).bytes;
}

typedef struct blas_ctx {
    oc_cuda_ctx *c;
    const ns_plan *p;
} blas_ctx;

/* One batched product C = alpha op(A) op(B) + beta C, matrices of the plan's type. */
static int gemm(void *ctx, int ta, int tb, int m, int n, int k, float alpha, const void *a,
                int lda, long long sa, const void *b, int ldb, long long sb, float beta,
                void *out, int ldc, long long sc, int batch)
{
    const blas_ctx *x = ctx;
    cublasStatus_t s = cublasGemmStridedBatchedEx(
        x->c->blas, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k,
        &alpha, a, x->p->dtype, lda, sa, b, x->p->dtype, ldb, sb, &beta, out, x->p->dtype, ldc,
        sc, batch, x->p->compute, CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : (int)cudaErrorUnknown;
}

static int copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    const blas_ctx *x = ctx;
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, x->c->stream);
}

static oc_status check_ns(int rows, int cols, int batch, oc_cuda_ns_mode mode, const void *x,
                          const oc_cuda_ns_norm *norm, int steps, const oc_cuda_ns_coef *coef)
{
    if (!x || !norm || (steps > 0 && !coef))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mode > OC_CUDA_NS_BF16)
        return OC_ERR_UNSUPPORTED;
    if (rows < 1 || cols < 1 || batch < 1 || batch > 65535 || steps < 0 ||
        !(norm->eps >= 0.0f && isfinite(norm->eps)) ||
        !(norm->scale > 0.0f && isfinite(norm->scale)) ||
        (size_t)rows * (size_t)cols > ((size_t)1 << 40) / (size_t)batch)
        return OC_ERR_BAD_HPARAM;
    for (int i = 0; i < steps; i++)
        if (!isfinite(coef[i].a) || !isfinite(coef[i].b) || !isfinite(coef[i].c))
            return OC_ERR_BAD_HPARAM;
    return OC_OK;
}

oc_status oc_cuda_newton_schulz(oc_cuda_ctx *c, oc_cuda_ns_mode mode, int rows, int cols,
                                int batch, void *x, const oc_cuda_ns_norm *norm, int steps,
                                const oc_cuda_ns_coef *coef, void *work)
{
    if (!c)
        return OC_ERR_NULL_POINTER;
    oc_status st = check_ns(rows, cols, batch, mode, x, norm, steps, coef);
    if (st != OC_OK)
        return st;
    ns_plan p = plan_of(rows, cols, batch, mode);
    if (!work) {
        st = oc_cuda_reserve(c, &c->ns_work, &c->ns_cap, p.bytes);
        if (st != OC_OK)
            return st;
        work = c->ns_work;
    }
    char *w = work;
    int err = oc_cuda_launch_ns_normalize(x, mode == OC_CUDA_NS_BF16, p.mat, batch, norm->eps,
                                          norm->scale, norm->max, (double *)(w + p.off_sum),
                                          c->stream);
    blas_ctx bc = {c, &p};
    oc_ns_ops ops = {&bc, p.esz, gemm, copy};
    if (!err)
        err = oc_ns_iterate(&ops, rows, cols, batch, x, w, w + p.off_b, w + p.off_y, steps,
                            coef);
    return oc_cuda_status(err);
}
