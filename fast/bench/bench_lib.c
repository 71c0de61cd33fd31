/* Helpers of the benchmarks (fast/bench/adamw_bench.py loads them with ctypes): a STREAM-style
 * triad measured in the same run as the optimizer, with the same threads. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <omp.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* a[i] = b[i] + s*c[i] over n floats, best of reps; returns bytes/s counting 12 bytes per
 * element (two reads, one write; write-allocate traffic not counted, as STREAM counts).
 * Returns 0 if the arrays cannot be allocated. */
double oc_bench_triad(size_t n, int reps)
{
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double best = 0.0;
    if (a && b && c) {
        long long nn = (long long)n;
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < nn; i++)
            a[i] = 0.0f, b[i] = 1.0f, c[i] = 2.0f;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            float s = 3.0f + (float)r;
#pragma omp parallel for schedule(static)
            for (long long i = 0; i < nn; i++)
                a[i] = b[i] + s * c[i];
            double bw = 12.0 * (double)n / (now() - t0);
            best = bw > best ? bw : best;
        }
    }
    free(a), free(b), free(c);
    return best;
}

int oc_bench_threads(void) { return omp_get_max_threads(); }
