/* FAST-CUDA-NS-1: the Newton–Schulz iterations as a sequence of batched column-major products
 * and copies, independent of who performs them: cuBLAS on the GPU (fast/cuda/ns.c), a plain
 * binary64 column-major product in the CPU test (fast/cuda/tests/test_cuda_host.c), which
 * checks the operand mapping against the row-major formula without a GPU.
 *
 * A row-major rows x cols matrix X is, read column-major, the cols x rows matrix M = X^T
 * (ld = cols). With r = rows, c = cols:
 *   r <= c (Gram X X^T, r x r):  A = M^T M,  M' = a M + M B^T   (X' = a X + B X, transposed)
 *   r >  c (Gram X^T X, c x c):  A = M M^T,  M' = a M + B M     (the transposed problem)
 * with B = b A + c A A. The product's C operand is also its output (as in cuBLAS), so B and
 * the new X start as copies of A and X. */
#ifndef OPTCERT_FAST_CUDA_NS_ITER_H
#define OPTCERT_FAST_CUDA_NS_ITER_H

#include <stddef.h>
#include "optcert/fast_cuda.h"

typedef struct oc_ns_ops {
    void *ctx;
    size_t esz; /* bytes of one element */
    /* C = alpha op(A) op(B) + beta C for `batch` column-major matrices (strides in elements);
     * ta, tb: 1 = transposed. Returns 0 or an error code. */
    int (*gemm)(void *ctx, int ta, int tb, int m, int n, int k, float alpha, const void *a,
                int lda, long long sa, const void *b, int ldb, long long sb, float beta, void *c,
                int ldc, long long sc, int batch);
    /* dst[0..bytes) := src[0..bytes) (ordered after the previous operations) */
    int (*copy)(void *ctx, void *dst, const void *src, size_t bytes);
} oc_ns_ops;

/* `steps` iterations on the batch at x (already normalized), with scratch ga, gb (s*s*batch
 * elements each, s = min(rows, cols)) and y (rows*cols*batch); the result ends in x. Returns 0
 * or the first error code of ops. */
int oc_ns_iterate(const oc_ns_ops *ops, int rows, int cols, int batch, void *x, void *ga,
                  void *gb, void *y, int steps, const oc_cuda_ns_coef *coef);

#endif
