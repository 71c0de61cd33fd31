/* Singular values by one-sided Jacobi in binary64 (see singular_values.h). */
#include <math.h>
#include <stdlib.h>
#include "singular_values.h"

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

int ns_singular_values(const double *m, size_t rows, size_t cols, double *sv)
{
    int tall = rows > cols;
    size_t k = tall ? cols : rows, n = tall ? rows : cols;
    double *w = malloc(k * n * sizeof *w);
    if (!w)
        return -1;
    for (size_t i = 0; i < k; i++) /* the k rows of the wide orientation */
        for (size_t j = 0; j < n; j++)
            w[i * n + j] = tall ? m[j * cols + i] : m[i * cols + j];
    /* Hestenes: rotate pairs of rows until every pair is orthogonal to working precision. */
    for (int sweep = 0; sweep < 80; sweep++) {
        int rotated = 0;
        for (size_t p = 0; p + 1 < k; p++)
            for (size_t q = p + 1; q < k; q++) {
                double alpha = 0, beta = 0, gamma = 0;
                double *rp = w + p * n, *rq = w + q * n;
                for (size_t j = 0; j < n; j++) {
                    alpha += rp[j] * rp[j];
                    beta += rq[j] * rq[j];
                    gamma += rp[j] * rq[j];
                }
                if (gamma == 0 || fabs(gamma) <= 0x1p-53 * sqrt(alpha) * sqrt(beta))
                    continue;
                rotated = 1;
                double zeta = (beta - alpha) / (2 * gamma);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), s = c * t;
                for (size_t j = 0; j < n; j++) {
                    double x = rp[j], y = rq[j];
                    rp[j] = c * x - s * y;
                    rq[j] = s * x + c * y;
                }
            }
        if (!rotated)
            break;
    }
    for (size_t i = 0; i < k; i++) {
        double s = 0;
        for (size_t j = 0; j < n; j++)
            s += w[i * n + j] * w[i * n + j];
        sv[i] = sqrt(s);
    }
    free(w);
    qsort(sv, k, sizeof *sv, cmp_desc);
    return 0;
}
