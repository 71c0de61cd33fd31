/* The Newton-Schulz products as benchmark baselines (ns_products.h). */
#include <cblas.h>
#include "ns_products.h"
#include "../cpu/internal.h"

void ns_sgemm_products(int k, int n, int steps, const float *x, float *y, float *a, float *b)
{
    for (int i = 0; i < steps; i++) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, k, k, n, 1.0f, x, n, x, n, 0.0f, a, k);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, k, k, 1.0f, a, k, a, k, 0.0f, b, k);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, n, k, 1.0f, b, k, x, n, 0.0f, y, n);
    }
}

void ns_blas_products(int k, int n, int ld, int steps, const float *x, float *y, float *a, float *b)
{
    for (int i = 0; i < steps; i++) {
        cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, k, n, 1.0f, x, n, 0.0f, a, ld);
        cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, k, k, 1.0f, a, ld, 0.0f, b, ld);
        cblas_ssymm(CblasRowMajor, CblasLeft, CblasUpper, k, n, 1.0f, b, ld, x, n, 0.0f, y, n);
    }
}

int ns_bf16_products(int k, int n, int steps, const uint16_t *x16, float *y, float *a,
                     const uint16_t *a16, const uint16_t *b16)
{
    size_t sx[2] = {(size_t)n, 1}, sxt[2] = {1, (size_t)n}, sk[2] = {(size_t)k, 1};
    for (int i = 0; i < steps; i++)
        if (oc_fast_bf16_matmul((size_t)k, (size_t)k, (size_t)n, x16, sx, x16, sxt, a, sk) ||
            oc_fast_bf16_matmul((size_t)k, (size_t)k, (size_t)k, a16, sk, a16, sk, a, sk) ||
            oc_fast_bf16_matmul((size_t)k, (size_t)n, (size_t)k, b16, sk, x16, sx, y, sx))
            return -1;
    return 0;
}
