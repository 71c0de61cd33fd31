/* FAST-CUDA-NS-1: Newton–Schulz orthogonalization on cuBLAS, batched over same-shaped matrices,
 * Gram matrix on the smaller side, every iteration enqueued without a host wait.
 *
 * A row-major rows x cols matrix X is, read column-major, the cols x rows matrix M = X^T
 * (ld = cols). With r = rows, c = cols:
 *   r <= c (Gram X X^T, r x r):  A = M^T M,  M' = a M + M B^T   (X' = a X + B X, transposed)
 *   r >  c (Gram X^T X, c x c):  A = M M^T,  M' = a M + B M     (the transposed problem)
 * with B = b A + c A A. cuBLAS's C operand is also its output, so each product that adds a
 * multiple of an existing matrix first copies that matrix into the output buffer. */
#include <math.h>
#include "optcert/fast_cuda.h"
#include "host.h"

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

/* One batched product C = alpha op(A) op(B) + beta C, matrices of the plan's type. */
static int gemm(oc_cuda_ctx *c, const ns_plan *p, int ta, int tb, int m, int n, int k,
                float alpha, const void *a, int lda, long long sa, const void *b, int ldb,
                long long sb, float beta, void *out, int ldc, long long sc, int batch)
{
    cublasStatus_t s = cublasGemmStridedBatchedEx(
        c->blas, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha,
        a, p->dtype, lda, sa, b, p->dtype, ldb, sb, &beta, out, p->dtype, ldc, sc, batch,
        p->compute, CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : (int)cudaErrorUnknown;
}

static oc_status check_ns(int rows, int cols, int batch, oc_cuda_ns_mode mode, const void *x,
                          float eps, int steps, const oc_cuda_ns_coef *coef)
{
    if (!x || (steps > 0 && !coef))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mode > OC_CUDA_NS_BF16)
        return OC_ERR_UNSUPPORTED;
    if (rows < 1 || cols < 1 || batch < 1 || steps < 0 || !(eps >= 0.0f && isfinite(eps)) ||
        (size_t)rows * (size_t)cols > ((size_t)1 << 40) / (size_t)batch)
        return OC_ERR_BAD_HPARAM;
    for (int i = 0; i < steps; i++)
        if (!isfinite(coef[i].a) || !isfinite(coef[i].b) || !isfinite(coef[i].c))
            return OC_ERR_BAD_HPARAM;
    return OC_OK;
}

oc_status oc_cuda_newton_schulz(oc_cuda_ctx *c, oc_cuda_ns_mode mode, int rows, int cols,
                                int batch, void *x, float eps, int steps,
                                const oc_cuda_ns_coef *coef, void *work)
{
    if (!c)
        return OC_ERR_NULL_POINTER;
    oc_status st = check_ns(rows, cols, batch, mode, x, eps, steps, coef);
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
    void *ga = w, *gb = w + p.off_b, *cur = x, *nxt = w + p.off_y;
    int err = oc_cuda_launch_ns_normalize(x, mode == OC_CUDA_NS_BF16, p.mat, batch, eps,
                                          (double *)(w + p.off_sum), c->stream);
    int wide = rows <= cols, s = wide ? rows : cols, l = wide ? cols : rows;
    long long sm = (long long)p.mat, sg = (long long)p.gram;
    for (int i = 0; i < steps && !err; i++) {
        /* A = X X^T on the smaller side */
        err = gemm(c, &p, wide, !wide, s, s, l, 1.0f, cur, cols, sm, cur, cols, sm, 0.0f, ga, s,
                   sg, batch);
        /* B = b A + c A A */
        if (!err)
            err = cudaMemcpyAsync(gb, ga, p.gram * p.esz * (size_t)batch,
                                  cudaMemcpyDeviceToDevice, c->stream);
        if (!err)
            err = gemm(c, &p, 0, 0, s, s, s, coef[i].c, ga, s, sg, ga, s, sg, coef[i].b, gb, s,
                       sg, batch);
        /* X' = a X + B X (column-major M' = a M + M B^T, or a M + B M) */
        if (!err)
            err = cudaMemcpyAsync(nxt, cur, p.mat * p.esz * (size_t)batch,
                                  cudaMemcpyDeviceToDevice, c->stream);
        if (!err && wide)
            err = gemm(c, &p, 0, 1, cols, rows, rows, 1.0f, cur, cols, sm, gb, s, sg, coef[i].a,
                       nxt, cols, sm, batch);
        else if (!err)
            err = gemm(c, &p, 0, 0, cols, rows, cols, 1.0f, gb, s, sg, cur, cols, sm, coef[i].a,
                       nxt, cols, sm, batch);
        void *t = cur;
        cur = nxt;
        nxt = t;
    }
    if (!err && cur != x)
        err = cudaMemcpyAsync(x, cur, p.mat * p.esz * (size_t)batch, cudaMemcpyDeviceToDevice,
                              c->stream);
    return oc_cuda_status(err);
}
