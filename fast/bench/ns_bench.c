/* The fast Newton-Schulz (fast/cpu/newton_schulz.c: oc_fast_newton_schulz, 5 iterations of the
 * quintic profile) against the pure-sgemm time of the same products, measured in the same run
 * (results in fast/bench/RESULTS.md).
 *
 *   build/fast/ns_bench [reps [fp32|bf16 [wall|cpu [ns-only]]]]
 *
 * For X k x n (k = min(rows, cols)) one iteration multiplies X X^T (k x k x n), A A (k x k x k)
 * and B X (k x k x n). Baselines, timed in the same repetitions:
 *   - "sgemm": those three products as three cblas_sgemm calls (4 k^2 n + 2 k^3 flops per
 *     iteration), nothing else;
 *   - "blas": the BLAS calls the implementation makes (SSYRK, SSYRK, SSYMM: the symmetric
 *     products computed once), nothing else.
 * The implementation adds the normalisation, the completion of the Gram matrix, the domain check
 * of every iterate (NS-DOM-1), the copy to the output and, in bf16 mode, the roundings. The
 * workspace is allocated once (a training loop reuses it). One warm-up round, then `reps`
 * rounds of NS, sgemm, blas in turn (spec/fast.md §6, protocol): the median times, and the median and the
 * min and max of each round's ratio NS/sgemm and NS/blas. "outside" = 1 - blas/NS (median):
 * the share of the NS time spent outside the BLAS calls.
 * `cpu` times with the process's CPU clock instead of the wall clock: on a machine shared with
 * other work, and with one thread (OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1, so that no thread
 * spins), it counts this program's own work only. `ns-only` runs the NS rounds alone and prints
 * their median time: a workload for a profiler (bench.py's perf attribution, §3b). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "optcert/fast.h"
#include "ns_products.h"
#include "../common/elementwise.h"
#include "../cpu/internal.h"

static clockid_t clock_used = CLOCK_MONOTONIC;

static double now(void)
{
    struct timespec t;
    clock_gettime(clock_used, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    if (reps < 1 || reps > 1000) {
        fprintf(stderr, "ns_bench: reps must be 1..1000\n");
        return 2;
    }
    oc_fast_ns_precision prec = argc > 2 && strcmp(argv[2], "bf16") == 0 ? OC_FAST_NS_BF16
                                                                          : OC_FAST_NS_FP32;
    if (argc > 3 && strcmp(argv[3], "cpu") == 0)
        clock_used = CLOCK_PROCESS_CPUTIME_ID;
    const int ns_only = argc > 4 && strcmp(argv[4], "ns-only") == 0;
    static const size_t shapes[][2] = {{1024, 1024}, {4096, 1024}, {1024, 4096}};
    oc_ns_hparams hp;
    oc_ns_profile_defaults(OC_NS_QUINTIC, &hp);
    /* FAST-NS-6: in bf16 mode on a CPU with native bf16 products, "blas" is NS's own oneDNN
     * products (ns_bf16_products) */
    const char *native = prec == OC_FAST_NS_BF16 ? oc_fast_bf16_matmul_native() : NULL;
    printf("OpenBLAS threads %d (%s); %d rounds; %d Newton-Schulz iterations (quintic), %s, "
           "%s time; products %s%s\n", openblas_get_num_threads(), openblas_get_config(), reps,
           hp.steps, oc_fast_ns_precision_name(prec),
           clock_used == CLOCK_MONOTONIC ? "wall" : "CPU", native ? "oneDNN " : "OpenBLAS",
           native ? native : "");
    if (ns_only)
        printf("| shape | NS ms | |\n| --- | --- | --- |\n");
    else {
        printf("| shape | NS ms | sgemm ms | blas ms | NS/sgemm (median) | (min) | (max) | NS/blas "
               "(median) | (min) | (max) | outside BLAS | GFLOP/s* |\n|");
        for (int c = 0; c < 12; c++)
            printf(" --- |");
        printf("\n");
    }
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        size_t rows = shapes[s][0], cols = shapes[s][1], len = rows * cols;
        int k = (int)(rows < cols ? rows : cols), n = (int)(rows < cols ? cols : rows);
        size_t wl = oc_fast_ns_work_len(rows, cols), kk = (size_t)k * (size_t)k;
        size_t ld = oc_fast_ns_gram_ld((size_t)k); /* our calls' A and B: k rows of ld floats */
        float *g = malloc(len * sizeof *g), *out = malloc(len * sizeof *out);
        float *work = malloc(wl * sizeof *work), *y = malloc(len * sizeof *y);
        float *a = malloc(k * ld * sizeof *a), *b = malloc(k * ld * sizeof *b);
        if (!g || !out || !work || !y || !a || !b)
            return 1;
        fill(g, len, 12345u);
        uint16_t *x16 = malloc(len * sizeof *x16), *a16 = calloc(2 * kk, sizeof *a16);
        if (!x16 || !a16)
            return 1;
        for (size_t i = 0; i < len; i++)
            x16[i] = oc_fast_to_bf16(g[i]);
        double *t = malloc(5 * (size_t)reps * sizeof *t); /* NS, sgemm, blas, the 2 ratios */
        if (!t)
            return 1;
        for (int r = 0; r < reps + 1; r++) { /* the first round warms up */
            double t0 = now();
            if (oc_fast_newton_schulz(&hp, prec, rows, cols, g, out, work, wl) != OC_OK)
                return 1;
            double t1 = now();
            if (ns_only) {
                t[r] = t1 - t0;
                continue;
            }
            ns_sgemm_products(k, n, hp.steps, g, y, a, b);
            double t2 = now();
            if (!native)
                ns_blas_products(k, n, (int)ld, hp.steps, g, y, a, b);
            else if (ns_bf16_products(k, n, hp.steps, x16, y, a, a16, a16 + kk) != 0)
                return 1;
            double t3 = now();
            if (r > 0) {
                double *row = t + 5 * (r - 1);
                row[0] = t1 - t0, row[1] = t2 - t1, row[2] = t3 - t2;
                row[3] = row[0] / row[1], row[4] = row[0] / row[2];
            }
        }
        if (ns_only) {
            printf("| %zux%zu | %.1f | NS alone |\n", rows, cols, median(t + 1, reps) * 1e3);
            free(t), free(g), free(out), free(work), free(y), free(a), free(b), free(x16), free(a16);
            continue;
        }
        double med[5], lo[5], hi[5], col[1000];
        for (int c = 0; c < 5; c++) {
            for (int r = 0; r < reps; r++)
                col[r] = t[5 * r + c];
            med[c] = median(col, reps), lo[c] = col[0], hi[c] = col[reps - 1];
        }
        free(t);
        /* GFLOP/s*: the sgemm flop count (4 k^2 n + 2 k^3 per iteration) over the NS time */
        double flops = hp.steps * (4.0 * k * k * n + 2.0 * k * k * k);
        char name[32];
        snprintf(name, sizeof name, "%zux%zu", rows, cols);
        printf("| %s | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f%% | "
               "%.1f |\n", name, med[0] * 1e3, med[1] * 1e3, med[2] * 1e3, med[3], lo[3], hi[3],
               med[4], lo[4], hi[4], 100.0 * (1.0 - 1.0 / med[4]), flops / med[0] / 1e9);
        free(g), free(out), free(work), free(y), free(a), free(b), free(x16), free(a16);
    }
    return 0;
}
