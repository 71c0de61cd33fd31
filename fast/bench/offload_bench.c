/* The CPU-offloaded step (spec/layouts.md §10, LAYOUT-OFFLOAD-5): how much of its copies and
 * compute overlap. A benchmark program, not a test (fast/bench/RESULTS.md §5).
 *
 *   build/fast/offload_bench [rounds [tensors [elements per tensor]]]
 *
 * AdamW over `tensors` tensors, with fp32 parameters and with bf16 model copies
 * (param_update_in_fp32), at offload fractions 0.5 and 1. Three instances of the same optimizer
 * on their own buffers step the same gradients: the offloaded step with overlap (the subject),
 * the offloaded step without overlap (Megatron's overlap_cpu_optimizer_d2h_h2d off: every copy
 * and step in turn) and the step without offload. Each round runs the three once, in an order
 * rotated from round to round, after one warm-up round; the ratios peer time / subject time are
 * taken within a round, their median and min over the rounds reported. From the subject's own
 * timers (oc_offload_last_times): the time of each activity (device-to-host copies, device
 * step, host steps, host-to-device copies, summed over their pieces) and
 *     overlap = (sum of the activities - step time) / (sum - largest activity),
 * 1 when the step takes only as long as its longest activity, 0 when nothing overlapped.
 * Here the "device" is host memory and its step runs on the same cores as the host step: the
 * figures measure the engine's pipelining on this CPU, not a GPU's copy engines. The three
 * instances' parameters and states are compared at the end (bit-identical, LAYOUT-OFFLOAD-4). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include "optcert/offload.h"

static const oc_adam_hparams adamw = {OC_ADAM_TORCH, 1e-3, 0.9, 0.95, 1e-8, 0.1, 0, 1, 1, 0, 0};

typedef struct instance {
    size_t nt, n;
    float *param, *grad, *m, *v;
    uint16_t *model;
    oc_fast_tensor *t;
    oc_offload *off; /* NULL: the step without offload */
    int64_t step;
} instance;

static oc_status adamw_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    return oc_fast_adam_step(&adamw, *(const int64_t *)ctx, o, nt, t, NULL);
}

static int instance_init(instance *x, size_t nt, size_t n, const float *p0, const float *g,
                         int bf16, double fraction, int overlap)
{
    memset(x, 0, sizeof *x);
    x->nt = nt, x->n = n;
    size_t all = nt * n;
    x->param = malloc(all * 4), x->grad = malloc(all * 4);
    x->m = calloc(all, 4), x->v = calloc(all, 4);
    x->model = bf16 ? calloc(all, 2) : NULL;
    x->t = calloc(nt, sizeof *x->t);
    size_t *numel = calloc(nt, sizeof *numel);
    unsigned char *host = calloc(nt, 1);
    if (!x->param || !x->grad || !x->m || !x->v || (bf16 && !x->model) || !x->t || !numel || !host)
        return 1;
    memcpy(x->param, p0, all * 4);
    memcpy(x->grad, g, all * 4);
    for (size_t i = 0; i < nt; i++) {
        x->t[i] = (oc_fast_tensor){n, x->param + i * n, x->grad + i * n,
                                   {x->m + i * n, x->v + i * n, NULL},
                                   bf16 ? x->model + i * n : NULL};
        numel[i] = n;
    }
    int bad = 0;
    if (fraction > 0) {
        /* Megatron's defaults pin both (LAYOUT-OFFLOAD-7); the memcpy device pins nothing */
        oc_offload_config cfg = {host, overlap, adamw_step, &x->step, adamw_step, &x->step,
                                 oc_offload_copier_memcpy(), 1, 1};
        bad = oc_offload_split(nt, numel, fraction, host) != OC_OK ||
              oc_offload_create(&cfg, nt, x->t, &x->off) != OC_OK;
    }
    free(numel), free(host);
    return bad;
}

static void instance_free(instance *x)
{
    oc_offload_free(x->off);
    free(x->param), free(x->grad), free(x->m), free(x->v), free(x->model), free(x->t);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double step(instance *x, oc_fast_opts *o)
{
    x->step++;
    double t0 = now();
    oc_status st = x->off ? oc_offload_step(x->off, o, x->nt, x->t)
                          : adamw_step(&x->step, o, x->nt, x->t);
    double t = now() - t0;
    if (st != OC_OK) {
        fprintf(stderr, "offload_bench: step failed (%d)\n", (int)st);
        exit(1);
    }
    return t;
}

/* The state of tensor i where it lives (the host copy for the host group). */
static int same_state(const instance *a, const instance *b)
{
    size_t bytes = a->n * 4;
    for (size_t i = 0; i < a->nt; i++) {
        oc_fast_tensor ha = oc_offload_host_tensor(a->off, i);
        oc_fast_tensor hb = oc_offload_host_tensor(b->off, i);
        const oc_fast_tensor *ta = ha.n ? &ha : &a->t[i], *tb = hb.n ? &hb : &b->t[i];
        if (memcmp(ta->param, tb->param, bytes) || memcmp(ta->state[0], tb->state[0], bytes) ||
            memcmp(ta->state[1], tb->state[1], bytes) ||
            (a->model ? memcmp(a->t[i].model, b->t[i].model, a->n * 2)
                      : memcmp(a->t[i].param, b->t[i].param, bytes)))
            return 0;
    }
    return 1;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double minimum(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    long nt_arg = argc > 2 ? atol(argv[2]) : 32, n_arg = argc > 3 ? atol(argv[3]) : 262144;
    if (argc > 4 || rounds < 7 || rounds > 1000 || nt_arg < 1 || nt_arg > 4096 || n_arg < 1 ||
        n_arg > (1L << 26)) {
        fprintf(stderr, "usage: offload_bench [rounds >= 7 [tensors 1..4096 "
                        "[elements 1..2^26]]]\n");
        return 2;
    }
    size_t nt = (size_t)nt_arg, n = (size_t)n_arg, all = nt * n;
    float *p0 = malloc(all * 4), *g = malloc(all * 4);
    if (!p0 || !g)
        return 1;
    for (size_t j = 0; j < all; j++) {
        p0[j] = (float)((int)(j * 2654435761u % 2001) - 1000) * 0x1p-10f;
        g[j] = (float)((int)(j * 40503u % 4001) - 2000) * 0x1p-14f;
    }
    printf("# AdamW, %zu tensors of %zu elements (%.1f M parameters), %d OpenMP threads, %d rounds"
           " after one warm-up\n", nt, n, (double)all / 1e6, omp_get_max_threads(), rounds);
    printf("| copy | fraction | step ms (overlap) | no overlap / overlap (median, min) | "
           "no offload / overlap (median, min) | to host ms | device step ms | host steps ms | "
           "to device ms | overlap | bit-identical |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n");
    static const double fractions[] = {0.5, 1.0};
    for (int bf16 = 0; bf16 < 2; bf16++)
        for (int f = 0; f < 2; f++) {
            instance x[3]; /* subject, no overlap, no offload */
            int bad = instance_init(&x[0], nt, n, p0, g, bf16, fractions[f], 1) +
                      instance_init(&x[1], nt, n, p0, g, bf16, fractions[f], 0) +
                      instance_init(&x[2], nt, n, p0, g, bf16, 0.0, 0);
            if (bad) {
                fprintf(stderr, "offload_bench: out of memory\n");
                return 1;
            }
            oc_fast_opts o = {1.0f, 1.0f, bf16 ? OC_FAST_MODEL_BF16 : OC_FAST_MODEL_NONE};
            double *r_serial = calloc((size_t)rounds, sizeof(double)),
                   *r_plain = calloc((size_t)rounds, sizeof(double)),
                   *t_subject = calloc((size_t)rounds, sizeof(double));
            oc_offload_times sum = {0};
            for (int k = 0; k < 3; k++)
                step(&x[k], &o); /* warm-up */
            for (int r = 0; r < rounds; r++) {
                double t[3];
                for (int k = 0; k < 3; k++) {
                    int which = (k + r) % 3;
                    t[which] = step(&x[which], &o);
                    if (which == 0) {
                        oc_offload_times a = oc_offload_last_times(x[0].off);
                        sum.to_host += a.to_host, sum.device_step += a.device_step;
                        sum.host_step += a.host_step, sum.to_device += a.to_device;
                        sum.total += a.total;
                    }
                }
                r_serial[r] = t[1] / t[0], r_plain[r] = t[2] / t[0], t_subject[r] = t[0];
            }
            double acts[4] = {sum.to_host, sum.device_step, sum.host_step, sum.to_device};
            double total = 0, largest = 0;
            for (int k = 0; k < 4; k++)
                total += acts[k], largest = acts[k] > largest ? acts[k] : largest;
            double overlap = total > largest ? (total - sum.total) / (total - largest) : 0.0;
            int same = same_state(&x[0], &x[1]) && same_state(&x[0], &x[2]);
            printf("| %s | %.1f | %.1f | %.3f, %.3f | %.3f, %.3f | %.1f | %.1f | %.1f | %.1f "
                   "| %.2f | %s |\n",
                   bf16 ? "bf16" : "fp32", fractions[f], median(t_subject, rounds) * 1e3,
                   median(r_serial, rounds), minimum(r_serial, rounds), median(r_plain, rounds),
                   minimum(r_plain, rounds), sum.to_host / rounds * 1e3,
                   sum.device_step / rounds * 1e3, sum.host_step / rounds * 1e3,
                   sum.to_device / rounds * 1e3, overlap, same ? "yes" : "NO");
            free(r_serial), free(r_plain), free(t_subject);
            for (int k = 0; k < 3; k++)
                instance_free(&x[k]);
            if (!same)
                return 1;
        }
    free(p0), free(g);
    return 0;
}
