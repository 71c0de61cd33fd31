/* The Newton-Schulz products as benchmark baselines (ns_products.h). */
#include <cblas.h>
#include "ns_products.h"

void ns_sgemm_products(int k, int n, int steps, const float *x, float *y, float *a, float *b)
{
    for (int i = 0; i < steps; i++) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, k, k, n, 1.0f, x, n, x, n, 0.0f, a, k);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, k, k, 1.0f, a, k, a, k, 0.0f, b, k);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, n, k, 1.0f, b, k, x, n, 0.0f, y, n);
    }
}

void ns_blas_products(int k, int n, int steps, const float *x, float *y, float *a, float *b)
{
    for (int i = 0; i < steps; i++) {
        cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, k, n, 1.0f, x, n, 0.0f, a, k);
        cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, k, k, 1.0f, a, k, 0.0f, b, k);
        cblas_ssymm(CblasRowMajor, CblasLeft, CblasUpper, k, n, 1.0f, b, k, x, n, 0.0f, y, n);
    }
}
