/* Distributed Muon: gather-all against owner-compute (spec/layouts.md LAYOUT-MUON-2), NS work
 * and communication per rank, measured and compared with the analytical counts (results in
 * fast/bench/RESULTS.md §3).
 *
 *   mpiexec -n R build/fast/dist_muon_bench [layers [width [steps]]]
 *
 * The model: `layers` transformer blocks of width w, each with the 2-D weights QKV 3w x w,
 * projection w x w, MLP up 4w x w and down w x 4w (Megatron's Muon takes exactly these; the
 * 1-D parameters go to AdamW). Megatron's Muon (quintic NS, 5 steps). Per strategy, `steps`
 * steps after one warm-up; per rank:
 *   - NS GFLOP: counted by the step function (5 (3 k^2 n + k^3) per matrix it orthogonalised,
 *     FAST-NS-1's SYRK, SYRK, SYMM) against the analytical value: the whole model's F for
 *     gather-all, the owner's share (the layout's ownership) for owner-compute, whose maximum
 *     over ranks is at least F / R;
 *   - bytes: counted by a communicator wrapper from every collective this rank entered, with the
 *     ring algorithm's bytes sent per rank (all-reduce of n floats 2 (R-1)/R 4n, reduce-scatter
 *     of shards of s floats 4s, all-gather of shards of s elements of e bytes s e),
 *     against the analytical value from the model and the layout (gather-all: all-reduce of the
 *     N gradient floats; owner-compute: reduce-scatter and all-gather of the padded buckets);
 *   - CPU seconds inside the step function (CLOCK_PROCESS_CPUTIME_ID; run with
 *     OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 so that it counts this rank's own work even
 *     when ranks share cores), max over ranks: what the NS work costs.
 * Every rank's parameters are compared between the two strategies at the end (bit-identical,
 * LAYOUT-MUON-2), so the figures belong to runs that computed the same thing. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "optcert/comm_mpi.h"
#include "optcert/dist_muon.h"

/* A communicator that counts the bytes each collective sends from this rank. */
typedef struct counting {
    const oc_comm *inner;
    double bytes;
} counting;

static oc_status c_allreduce(void *ctx, float *buf, size_t n)
{
    counting *c = ctx;
    int r = c->inner->size;
    c->bytes += 2.0 * (r - 1) / r * 4.0 * (double)n;
    return c->inner->allreduce_sum(c->inner->ctx, buf, n);
}
static oc_status c_reduce_scatter(void *ctx, const float *in, float *out, size_t shard)
{
    counting *c = ctx;
    c->bytes += (c->inner->size - 1) * 4.0 * (double)shard;
    return c->inner->reduce_scatter_sum(c->inner->ctx, in, out, shard);
}
static oc_status c_allgather(void *ctx, void *buf, size_t shard, size_t elem)
{
    counting *c = ctx;
    c->bytes += (c->inner->size - 1) * (double)shard * (double)elem;
    return c->inner->allgather(c->inner->ctx, buf, shard, elem);
}
static oc_status c_max(void *ctx, int *x)
{
    counting *c = ctx;
    c->bytes += 2.0 * (c->inner->size - 1) / c->inner->size * 4.0;
    return c->inner->allreduce_max_int(c->inner->ctx, x);
}

/* The step function, timed. */
typedef struct timed {
    oc_dist_muon muon;
    double cpu, flops;
} timed;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static oc_status timed_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    timed *x = ctx;
    double t0 = cpu_now();
    oc_status st = oc_dist_muon_step(&x->muon, o, nt, t);
    x->cpu += cpu_now() - t0;
    x->flops += x->muon.ns_flops;
    return st;
}

static double ns_flops(const oc_layout_param *p)
{
    double k = (double)(p->dim0 < p->dim1 ? p->dim0 : p->dim1);
    double n = (double)(p->dim0 < p->dim1 ? p->dim1 : p->dim0);
    return 5 * (3 * k * k * n + k * k * k);
}

typedef struct result {
    double flops, flops_model, bytes, bytes_model, cpu; /* this rank's, per step */
} result;

static int run(const oc_comm *world, oc_layout_kind kind, const oc_layout_param *model, size_t np,
               int steps, float **params_out, result *res)
{
    oc_muon_hparams hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp);
    counting cnt = {world, 0.0};
    oc_comm c = {&cnt, world->rank, world->size, c_allreduce, c_reduce_scatter, c_allgather, c_max};
    oc_layout l;
    oc_dist d;
    if (oc_layout_build(kind, c.size, model, np, NULL, &l) != OC_OK || oc_dist_init(&d, &l, &c) != OC_OK)
        return 1;
    float *params = calloc(l.size, 4), *grads = calloc(l.size, 4), *mom = calloc(d.owned + 1, 4);
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < model[i].dim0 * model[i].dim1; j++)
            params[l.offset[i] + j] = (float)((int)((i * 7919 + j * 104729) % 2001) - 1000) * 0x1p-10f;
    timed ctx = {{&d, model, &hp, OC_FAST_NS_FP32, 0, 0.0}, 0.0, 0.0};
    oc_dist_buffers b = {params, NULL, NULL, grads, {mom, NULL, NULL}};
    int bad = 0;
    for (int s = 0; s <= steps && !bad; s++) {
        for (size_t i = 0; i < np; i++)
            for (size_t j = 0; j < model[i].dim0 * model[i].dim1; j++)
                grads[l.offset[i] + j] =
                    (float)((int)((i * 31 + j * 17 + (size_t)s * 13 + (size_t)c.rank * 7) % 4001) - 2000) * 0x1p-16f;
        if (s == 1) /* the first step is the warm-up */
            cnt.bytes = 0.0, ctx.cpu = 0.0, ctx.flops = 0.0;
        bad = oc_dist_step(&d, &b, NULL, timed_step, &ctx) != OC_OK;
    }
    /* the analytical counts */
    double f = 0.0, r = c.size;
    for (size_t i = 0; i < np; i++)
        f += kind == OC_LAYOUT_REPLICATED || l.owner[i] == c.rank ? ns_flops(&model[i]) : 0.0;
    double bytes = 0.0;
    if (kind == OC_LAYOUT_REPLICATED)
        bytes = 2.0 * (r - 1) / r * 4.0 * (double)l.size;
    else
        for (size_t k = 0; k < l.nbuckets; k++)
            bytes += 2.0 * (r - 1) * 4.0 * (double)l.shard[k];   /* reduce-scatter + all-gather */
    *res = (result){ctx.flops / steps, f, cnt.bytes / steps, bytes, ctx.cpu / steps};
    *params_out = malloc(l.size * 4);
    /* the logical parameters in model order, for the comparison of the strategies */
    size_t pos = 0;
    for (size_t i = 0; i < np; i++) {
        memcpy(*params_out + pos, params + l.offset[i], model[i].dim0 * model[i].dim1 * 4);
        pos += model[i].dim0 * model[i].dim1;
    }
    free(params), free(grads), free(mom);
    oc_dist_free(&d);
    oc_layout_free(&l);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int layers = argc > 1 ? atoi(argv[1]) : 4, width = argc > 2 ? atoi(argv[2]) : 256;
    int steps = argc > 3 ? atoi(argv[3]) : 2;
    oc_comm world;
    if (layers < 1 || width < 1 || steps < 1 || oc_comm_mpi(MPI_COMM_WORLD, &world) != OC_OK) {
        fprintf(stderr, "usage: mpiexec -n R dist_muon_bench [layers >= 1 [width >= 1 [steps >= 1]]]\n");
        MPI_Finalize();
        return 2;
    }
    size_t np = 4 * (size_t)layers, w = (size_t)width, n = 0;
    oc_layout_param *model = malloc(np * sizeof *model);
    for (size_t i = 0; i < np; i += 4) {
        model[i] = (oc_layout_param){3 * w, w, 2, 0};
        model[i + 1] = (oc_layout_param){w, w, 2, 0};
        model[i + 2] = (oc_layout_param){4 * w, w, 2, 0};
        model[i + 3] = (oc_layout_param){w, 4 * w, 2, 0};
    }
    for (size_t i = 0; i < np; i++)
        n += model[i].dim0 * model[i].dim1;
    static const oc_layout_kind kinds[2] = {OC_LAYOUT_REPLICATED, OC_LAYOUT_LAYERWISE};
    static const char *const names[2] = {"gather-all", "owner-compute"};
    float *out[2] = {NULL, NULL};
    result res[2], mx[2];
    int bad = 0;
    for (int k = 0; k < 2 && !bad; k++) {
        bad = run(&world, kinds[k], model, np, steps, &out[k], &res[k]);
        MPI_Allreduce(&res[k], &mx[k], 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    int differ = bad || memcmp(out[0], out[1], n * 4) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (world.rank == 0) {
        double total = 0.0;
        for (size_t i = 0; i < np; i++)
            total += ns_flops(&model[i]);
        printf("# %d ranks, %d layers of width %d: %zu matrices, %zu floats, NS %.2f GFLOP per step "
               "(lower bound per rank %.2f)\n", world.size, layers, width, np, n, total / 1e9,
               total / 1e9 / world.size);
        printf("%-14s %12s %12s %12s %12s %10s %8s\n", "strategy", "GFLOP/rank", "(analytic)",
               "MB/rank", "(analytic)", "CPU s", "GFLOP/s");
        for (int k = 0; k < 2; k++)
            printf("%-14s %12.3f %12.3f %12.3f %12.3f %10.3f %8.1f\n", names[k], mx[k].flops / 1e9,
                   mx[k].flops_model / 1e9, mx[k].bytes / 1e6, mx[k].bytes_model / 1e6, mx[k].cpu,
                   mx[k].flops / 1e9 / mx[k].cpu);
        char bytes[32] = "none moved"; /* one rank: no collective, 0 bytes in both */
        if (mx[0].bytes > 0)
            snprintf(bytes, sizeof bytes, "%.3f", mx[1].bytes / mx[0].bytes);
        printf("owner-compute / gather-all: NS CPU time %.3f, bytes %s; parameters %s\n",
               mx[1].cpu / mx[0].cpu, bytes, differ ? "DIFFER (error)" : "bit-identical");
    }
    free(out[0]), free(out[1]), free(model);
    MPI_Finalize();
    return differ;
}
