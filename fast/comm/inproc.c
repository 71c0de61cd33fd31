/* The communicator's in-process engine (spec/layouts.md §6): every collective publishes each
 * rank's buffer, waits for all ranks, computes this rank's part reading the others in rank
 * order, and waits again before anyone reuses a buffer. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/comm_inproc.h"

typedef struct rank_ctx {
    oc_inproc_world *w;
    int rank;
} rank_ctx;

struct oc_inproc_world {
    int size;
    pthread_barrier_t bar;
    const void **buf; /* [size] the buffer each rank published */
    rank_ctx *ctx;    /* [size] */
};

oc_status oc_inproc_world_new(int size, oc_inproc_world **out)
{
    if (!out)
        return OC_ERR_NULL_POINTER;
    *out = NULL;
    if (size < 1 || size > 4096)
        return OC_ERR_BAD_HPARAM;
    oc_inproc_world *w = calloc(1, sizeof *w);
    if (!w)
        return OC_ERR_INTERNAL;
    w->size = size;
    w->buf = calloc((size_t)size, sizeof *w->buf);
    w->ctx = calloc((size_t)size, sizeof *w->ctx);
    if (!w->buf || !w->ctx || pthread_barrier_init(&w->bar, NULL, (unsigned)size) != 0) {
        free(w->buf), free(w->ctx), free(w);
        return OC_ERR_INTERNAL;
    }
    *out = w;
    return OC_OK;
}

void oc_inproc_world_free(oc_inproc_world *w)
{
    if (!w)
        return;
    pthread_barrier_destroy(&w->bar);
    free(w->buf), free(w->ctx), free(w);
}

/* Publishes this rank's buffer and waits until every rank has. */
static oc_inproc_world *publish(void *ctx, const void *buf)
{
    rank_ctx *c = ctx;
    c->w->buf[c->rank] = buf;
    pthread_barrier_wait(&c->w->bar);
    return c->w;
}

static oc_status allreduce_sum(void *ctx, float *buf, size_t n)
{
    float *sum = malloc((n ? n : 1) * sizeof *sum);
    oc_inproc_world *w = publish(ctx, buf);
    for (size_t i = 0; sum && i < n; i++) {
        float s = 0.0f;
        for (int r = 0; r < w->size; r++)
            s += ((const float *)w->buf[r])[i];
        sum[i] = s;
    }
    pthread_barrier_wait(&w->bar); /* everyone has read every buffer */
    if (sum)
        memcpy(buf, sum, n * sizeof *sum);
    free(sum);
    pthread_barrier_wait(&w->bar);
    return sum ? OC_OK : OC_ERR_INTERNAL;
}

static oc_status reduce_scatter_sum(void *ctx, const float *in, float *out, size_t shard)
{
    oc_inproc_world *w = publish(ctx, in);
    size_t base = (size_t)((rank_ctx *)ctx)->rank * shard;
    for (size_t i = 0; i < shard; i++) {
        float s = 0.0f;
        for (int r = 0; r < w->size; r++)
            s += ((const float *)w->buf[r])[base + i];
        out[i] = s;
    }
    pthread_barrier_wait(&w->bar);
    return OC_OK;
}

static oc_status allgather(void *ctx, void *buf, size_t shard, size_t elem)
{
    oc_inproc_world *w = publish(ctx, buf);
    int me = ((rank_ctx *)ctx)->rank;
    size_t bytes = shard * elem;
    for (int r = 0; r < w->size; r++)
        if (r != me)
            memcpy((char *)buf + (size_t)r * bytes, (const char *)w->buf[r] + (size_t)r * bytes,
                   bytes);
    pthread_barrier_wait(&w->bar);
    return OC_OK;
}

static oc_status allreduce_max_int(void *ctx, int *x)
{
    int v = *x;
    oc_inproc_world *w = publish(ctx, &v);
    int m = v;
    for (int r = 0; r < w->size; r++)
        m = *(const int *)w->buf[r] > m ? *(const int *)w->buf[r] : m;
    pthread_barrier_wait(&w->bar);
    *x = m;
    return OC_OK;
}

oc_status oc_comm_inproc(oc_inproc_world *w, int rank, oc_comm *out)
{
    if (!w || !out)
        return OC_ERR_NULL_POINTER;
    if (rank < 0 || rank >= w->size)
        return OC_ERR_BAD_HPARAM;
    w->ctx[rank] = (rank_ctx){w, rank};
    *out = (oc_comm){&w->ctx[rank], rank, w->size, allreduce_sum, reduce_scatter_sum, allgather,
                     allreduce_max_int};
    return OC_OK;
}
