/* The communicator's in-process engine (spec/layouts.md §6): every collective publishes each
 * rank's buffer, waits for all ranks, computes this rank's part reading the others in rank
 * order, and waits again before anyone reuses a buffer.
 *
 * No hang (LAYOUT-DEADLINE-1): every wait has a deadline (OPTCERT_COMM_TIMEOUT seconds, or
 * oc_inproc_world_set_timeout). A rank that does not arrive in time breaks the world: the
 * waiting ranks print which collective and which ranks did not join it and return
 * OC_ERR_PEER, and every later collective of that world returns OC_ERR_PEER at once. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_condattr_setclock */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "optcert/comm_inproc.h"
#include "deadline.h"

typedef struct rank_ctx {
    oc_inproc_world *w;
    int rank;
    unsigned seq; /* collectives this rank entered */
} rank_ctx;

struct oc_inproc_world {
    int size;
    double timeout_s;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;          /* ranks inside the current wait */
    unsigned long gen;    /* waits completed */
    int broken;           /* a wait timed out: every collective now fails */
    unsigned char *here;  /* [size] whether each rank is inside the current wait */
    const void **buf;     /* [size] the buffer each rank published */
    rank_ctx *ctx;        /* [size] */
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
    pthread_condattr_t attr;
    w->size = size;
    w->timeout_s = oc_comm_deadline_s();
    w->here = calloc((size_t)size, sizeof *w->here);
    w->buf = calloc((size_t)size, sizeof *w->buf);
    w->ctx = calloc((size_t)size, sizeof *w->ctx);
    if (!w->here || !w->buf || !w->ctx || pthread_condattr_init(&attr) != 0) {
        free(w->here), free(w->buf), free(w->ctx), free(w);
        return OC_ERR_INTERNAL;
    }
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, &attr);
    pthread_condattr_destroy(&attr);
    *out = w;
    return OC_OK;
}

void oc_inproc_world_free(oc_inproc_world *w)
{
    if (!w)
        return;
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w->here), free(w->buf), free(w->ctx), free(w);
}

oc_status oc_inproc_world_set_timeout(oc_inproc_world *w, double seconds)
{
    if (!w)
        return OC_ERR_NULL_POINTER;
    if (!(seconds > 0) || seconds > 1e9)
        return OC_ERR_BAD_HPARAM;
    w->timeout_s = seconds;
    return OC_OK;
}

/* Prints the collective that timed out and the ranks that did not join it (w->mu held). */
static void report_timeout(const oc_inproc_world *w, const rank_ctx *c, const char *what)
{
    char missing[256] = "";
    size_t len = 0;
    int nmissing = 0;
    for (int r = 0; r < w->size; r++)
        if (!w->here[r]) {
            if (len < sizeof missing - 32)
                len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%d",
                                        nmissing ? ", " : "", r);
            nmissing++;
        }
    fprintf(stderr, "optcert comm (in-process): rank %d: %s (collective #%u of a group of %d) "
            "timed out after %g s: rank%s %s did not join it\n", c->rank, what, c->seq, w->size,
            w->timeout_s, nmissing == 1 ? "" : "s", missing);
    fflush(stderr);
}

/* Waits until every rank of the world has called wait_all for the same wait, or the deadline
 * passes (LAYOUT-DEADLINE-1). */
static oc_status wait_all(rank_ctx *c, const char *what)
{
    oc_inproc_world *w = c->w;
    pthread_mutex_lock(&w->mu);
    if (w->broken) {
        pthread_mutex_unlock(&w->mu);
        return OC_ERR_PEER;
    }
    const unsigned long gen = w->gen;
    w->here[c->rank] = 1;
    if (++w->arrived == w->size) {
        w->arrived = 0;
        memset(w->here, 0, (size_t)w->size);
        w->gen++;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        return OC_OK;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    double secs = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + w->timeout_s;
    until.tv_sec = (time_t)secs;
    until.tv_nsec = (long)((secs - (double)until.tv_sec) * 1e9);
    while (w->gen == gen && !w->broken)
        if (pthread_cond_timedwait(&w->cv, &w->mu, &until) == ETIMEDOUT && w->gen == gen &&
            !w->broken) {
            report_timeout(w, c, what);
            w->broken = 1;
            pthread_cond_broadcast(&w->cv);
        }
    oc_status st = w->gen != gen ? OC_OK : OC_ERR_PEER;
    pthread_mutex_unlock(&w->mu);
    return st;
}

/* Publishes this rank's buffer and waits until every rank has. */
static oc_status publish(rank_ctx *c, const void *buf, const char *what)
{
    c->seq++;
    c->w->buf[c->rank] = buf;
    return wait_all(c, what);
}

static oc_status allreduce_sum(void *ctx, float *buf, size_t n)
{
    rank_ctx *c = ctx;
    oc_inproc_world *w = c->w;
    float *sum = malloc((n ? n : 1) * sizeof *sum);
    oc_status st = publish(c, buf, "allreduce_sum");
    for (size_t i = 0; st == OC_OK && sum && i < n; i++) {
        float s = 0.0f;
        for (int r = 0; r < w->size; r++)
            s += ((const float *)w->buf[r])[i];
        sum[i] = s;
    }
    if (st == OC_OK) /* everyone has read every buffer */
        st = wait_all(c, "allreduce_sum");
    if (st == OC_OK && sum)
        memcpy(buf, sum, n * sizeof *sum);
    free(sum);
    if (st == OC_OK)
        st = wait_all(c, "allreduce_sum");
    return st != OC_OK ? st : sum ? OC_OK : OC_ERR_INTERNAL;
}

static oc_status reduce_scatter_sum(void *ctx, const float *in, float *out, size_t shard)
{
    rank_ctx *c = ctx;
    oc_status st = publish(c, in, "reduce_scatter_sum");
    size_t base = (size_t)c->rank * shard;
    for (size_t i = 0; st == OC_OK && i < shard; i++) {
        float s = 0.0f;
        for (int r = 0; r < c->w->size; r++)
            s += ((const float *)c->w->buf[r])[base + i];
        out[i] = s;
    }
    return st == OC_OK ? wait_all(c, "reduce_scatter_sum") : st;
}

static oc_status allgather(void *ctx, void *buf, size_t shard, size_t elem)
{
    rank_ctx *c = ctx;
    oc_status st = publish(c, buf, "allgather");
    size_t bytes = shard * elem;
    for (int r = 0; st == OC_OK && r < c->w->size; r++)
        if (r != c->rank)
            memcpy((char *)buf + (size_t)r * bytes, (const char *)c->w->buf[r] + (size_t)r * bytes,
                   bytes);
    return st == OC_OK ? wait_all(c, "allgather") : st;
}

static oc_status allreduce_max_int(void *ctx, int *x)
{
    rank_ctx *c = ctx;
    int v = *x, m = v;
    oc_status st = publish(c, &v, "allreduce_max_int");
    for (int r = 0; st == OC_OK && r < c->w->size; r++)
        m = *(const int *)c->w->buf[r] > m ? *(const int *)c->w->buf[r] : m;
    if (st == OC_OK)
        st = wait_all(c, "allreduce_max_int");
    if (st == OC_OK)
        *x = m;
    return st;
}

oc_status oc_comm_inproc(oc_inproc_world *w, int rank, oc_comm *out)
{
    if (!w || !out)
        return OC_ERR_NULL_POINTER;
    if (rank < 0 || rank >= w->size)
        return OC_ERR_BAD_HPARAM;
    w->ctx[rank] = (rank_ctx){w, rank, 0};
    *out = (oc_comm){&w->ctx[rank], rank, w->size, allreduce_sum, reduce_scatter_sum, allgather,
                     allreduce_max_int};
    return OC_OK;
}
