/* Newton-Schulz (Muon's orthogonalization, 5 quintic steps, fp32) on CBLAS against the pure
 * sgemm time of the same products in the same run (results in fast/bench/RESULTS.md).
 *
 *   build/fast/ns_bench [reps]
 *
 * For an m x n matrix X (row-major) the Gram matrix is taken on the smaller side, k = min(m,n):
 * A = X X^T (m <= n) or X^T X (m > n), then B = c A^2 + b A + a I and X <- B X (or X B): per
 * step two k x k x max products and one k^3 product, no transposed copies (CBLAS transposes
 * in place), no copy of X (the new X goes to the second buffer and the buffers swap); the only
 * other passes are the Frobenius normalisation of the input and the k x k combination.
 * Coefficients (a, b, c) = (3.4445, -4.7750, 2.0315) (KellerJordan/Muon, reference-facts §5.1).
 * This is a timing program: the Muon family's spec and vectors (another branch) judge the
 * numerics. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct work {
    int m, n, k;  /* k = min(m, n) */
    float *x, *y; /* m x n, the current and the next iterate */
    float *a, *b; /* k x k */
} work;

/* The products of one step; with `combine` the k x k combination between them (NS), without
 * it the same three sgemm calls on whatever the buffers hold (the pure-sgemm baseline). */
static void step(work *w, int combine)
{
    const float ca = 3.4445f, cb = -4.7750f, cc = 2.0315f;
    int m = w->m, n = w->n, k = w->k, wide = m <= n;
    /* A = X X^T (k = m, inner n) or X^T X (k = n, inner m) */
    cblas_sgemm(CblasRowMajor, wide ? CblasNoTrans : CblasTrans, wide ? CblasTrans : CblasNoTrans,
                k, k, wide ? n : m, 1.0f, w->x, n, w->x, n, 0.0f, w->a, k);
    if (combine)
        memcpy(w->b, w->a, (size_t)k * (size_t)k * sizeof(float));
    /* B = c A A + b A */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, k, k, cc, w->a, k, w->a, k,
                combine ? cb : 0.0f, w->b, k);
    if (combine)
        for (int i = 0; i < k; i++)
            w->b[(size_t)i * (size_t)k + (size_t)i] += ca; /* + a I */
    /* Y = B X (wide) or X B (tall) */
    if (wide)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, m, 1.0f, w->b, k, w->x, n,
                    0.0f, w->y, n);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, n, 1.0f, w->x, n, w->b, k,
                    0.0f, w->y, n);
    float *t = w->x;
    w->x = w->y;
    w->y = t;
}

static void normalise(work *w)
{
    size_t mn = (size_t)w->m * (size_t)w->n;
    float nrm = cblas_snrm2((int)mn, w->x, 1);
    cblas_sscal((int)mn, 1.0f / (nrm + 1e-7f), w->x, 1);
}

static void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) * 0x1p-24f - 0.5f;
    }
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    static const int shapes[][2] = {{1024, 1024}, {4096, 1024}, {1024, 4096}};
    printf("OpenBLAS threads %d; best of %d; 5 Newton-Schulz steps, fp32\n",
           openblas_get_num_threads(), reps);
    printf("%-12s %10s %10s %8s %12s\n", "shape", "NS ms", "sgemm ms", "NS/gemm", "GFLOP/s (NS)");
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        work w = {shapes[s][0], shapes[s][1], 0, NULL, NULL, NULL, NULL};
        w.k = w.m < w.n ? w.m : w.n;
        size_t mn = (size_t)w.m * (size_t)w.n, kk = (size_t)w.k * (size_t)w.k;
        float *g = malloc(mn * sizeof *g), *x0 = malloc(mn * sizeof *x0);
        float *y0 = malloc(mn * sizeof *y0);
        w.a = malloc(kk * sizeof(float));
        w.b = malloc(kk * sizeof(float));
        if (!g || !x0 || !y0 || !w.a || !w.b)
            return 1;
        fill(g, mn, 12345u);
        double best_ns = INFINITY, best_mm = INFINITY;
        for (int r = 0; r < reps + 1; r++) { /* the first round warms up */
            memcpy(x0, g, mn * sizeof *g);
            w.x = x0, w.y = y0;
            double t0 = now();
            normalise(&w);
            for (int i = 0; i < 5; i++)
                step(&w, 1);
            double t_ns = now() - t0;
            w.x = x0, w.y = y0;
            t0 = now();
            for (int i = 0; i < 5; i++)
                step(&w, 0);
            double t_mm = now() - t0;
            if (r > 0) {
                best_ns = t_ns < best_ns ? t_ns : best_ns;
                best_mm = t_mm < best_mm ? t_mm : best_mm;
            }
        }
        double k = w.k, big = w.m > w.n ? w.m : w.n;
        double flops = 5.0 * (2 * k * k * big * 2 + 2 * k * k * k);
        char name[32];
        snprintf(name, sizeof name, "%dx%d", w.m, w.n);
        printf("%-12s %10.2f %10.2f %8.3f %12.1f\n", name, best_ns * 1e3, best_mm * 1e3,
               best_ns / best_mm, flops / best_ns / 1e9);
        free(g), free(x0), free(y0), free(w.a), free(w.b);
    }
    return 0;
}
