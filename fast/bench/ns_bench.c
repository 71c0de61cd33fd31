/* The fast Newton-Schulz (fast/cpu/newton_schulz.c: oc_fast_newton_schulz, 5 iterations of the
 * quintic profile) against the pure-sgemm time of the same products, measured in the same run
 * (results in fast/bench/RESULTS.md).
 *
 *   build/fast/ns_bench [reps [fp32|bf16 [wall|cpu]]]
 *
 * For X k x n (k = min(rows, cols)) one iteration multiplies X X^T (k x k x n), A A (k x k x k)
 * and B X (k x k x n). Baselines, timed in the same repetitions:
 *   - "sgemm": those three products as three cblas_sgemm calls (4 k^2 n + 2 k^3 flops per
 *     iteration), nothing else;
 *   - "blas": the BLAS calls the implementation makes (SSYRK, SSYRK, SSYMM: the symmetric
 *     products computed once), nothing else.
 * The implementation adds the normalisation, the completion of the Gram matrix, the domain check
 * of every iterate (NS-DOM-1), the copy to the output and, in bf16 mode, the roundings. The
 * workspace is allocated once (a training loop reuses it). Best of `reps` after a warm-up.
 * `cpu` times with the process's CPU clock instead of the wall clock: on a machine shared with
 * other work, and with one thread (OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1, so that no thread
 * spins), it counts this program's own work only. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "optcert/fast.h"

static clockid_t clock_used = CLOCK_MONOTONIC;

static double now(void)
{
    struct timespec t;
    clock_gettime(clock_used, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) * 0x1p-24f - 0.5f;
    }
}

/* The three products of `steps` iterations as plain sgemm calls (row-major, the wide
 * orientation: the tall case's products have the same sizes). */
static void sgemm_only(int k, int n, int steps, const float *x, float *y, float *a, float *b)
{
    for (int i = 0; i < steps; i++) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, k, k, n, 1.0f, x, n, x, n, 0.0f, a, k);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, k, k, 1.0f, a, k, a, k, 0.0f, b, k);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, n, k, 1.0f, b, k, x, n, 0.0f, y, n);
    }
}

/* The implementation's BLAS calls alone. */
static void blas_only(int k, int n, int steps, const float *x, float *y, float *a, float *b)
{
    for (int i = 0; i < steps; i++) {
        cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, k, n, 1.0f, x, n, 0.0f, a, k);
        cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, k, k, 1.0f, a, k, 0.0f, b, k);
        cblas_ssymm(CblasRowMajor, CblasLeft, CblasUpper, k, n, 1.0f, b, k, x, n, 0.0f, y, n);
    }
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    oc_fast_ns_precision prec = argc > 2 && strcmp(argv[2], "bf16") == 0 ? OC_FAST_NS_BF16
                                                                          : OC_FAST_NS_FP32;
    if (argc > 3 && strcmp(argv[3], "cpu") == 0)
        clock_used = CLOCK_PROCESS_CPUTIME_ID;
    static const size_t shapes[][2] = {{1024, 1024}, {4096, 1024}, {1024, 4096}};
    oc_ns_hparams hp;
    oc_ns_profile_defaults(OC_NS_QUINTIC, &hp);
    printf("OpenBLAS threads %d (%s); best of %d; %d Newton-Schulz iterations (quintic), %s, "
           "%s time\n", openblas_get_num_threads(), openblas_get_config(), reps, hp.steps,
           oc_fast_ns_precision_name(prec), clock_used == CLOCK_MONOTONIC ? "wall" : "CPU");
    printf("%-10s %9s %9s %9s %8s %8s %10s\n", "shape", "NS ms", "sgemm ms", "blas ms",
           "NS/sgemm", "NS/blas", "GFLOP/s*");
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        size_t rows = shapes[s][0], cols = shapes[s][1], len = rows * cols;
        int k = (int)(rows < cols ? rows : cols), n = (int)(rows < cols ? cols : rows);
        size_t wl = oc_fast_ns_work_len(rows, cols), kk = (size_t)k * (size_t)k;
        float *g = malloc(len * sizeof *g), *out = malloc(len * sizeof *out);
        float *work = malloc(wl * sizeof *work), *y = malloc(len * sizeof *y);
        float *a = malloc(kk * sizeof *a), *b = malloc(kk * sizeof *b);
        if (!g || !out || !work || !y || !a || !b)
            return 1;
        fill(g, len, 12345u);
        double best[3] = {INFINITY, INFINITY, INFINITY};
        for (int r = 0; r < reps + 1; r++) { /* the first round warms up */
            double t0 = now();
            if (oc_fast_newton_schulz(&hp, prec, rows, cols, g, out, work, wl) != OC_OK)
                return 1;
            double t1 = now();
            sgemm_only(k, n, hp.steps, g, y, a, b);
            double t2 = now();
            blas_only(k, n, hp.steps, g, y, a, b);
            double t3 = now();
            double t[3] = {t1 - t0, t2 - t1, t3 - t2};
            for (int i = 0; r > 0 && i < 3; i++)
                best[i] = fmin(best[i], t[i]);
        }
        /* GFLOP/s*: the sgemm flop count (4 k^2 n + 2 k^3 per iteration) over the NS time */
        double flops = hp.steps * (4.0 * k * k * n + 2.0 * k * k * k);
        char name[32];
        snprintf(name, sizeof name, "%zux%zu", rows, cols);
        printf("%-10s %9.1f %9.1f %9.1f %8.3f %8.3f %10.1f\n", name, best[0] * 1e3,
               best[1] * 1e3, best[2] * 1e3, best[0] / best[1], best[0] / best[2],
               flops / best[0] / 1e9);
        free(g), free(out), free(work), free(y), free(a), free(b);
    }
    return 0;
}
