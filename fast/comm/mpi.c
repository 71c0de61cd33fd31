/* The communicator's MPI engine (spec/layouts.md §6). MPI counts are int: larger buffers go
 * in pieces of at most INT_MAX elements, each piece a complete collective.
 *
 * No hang: every collective is non-blocking (MPI_Iallreduce, ...) polled with MPI_Test until a
 * deadline, OPTCERT_COMM_TIMEOUT seconds (default 300). Before each collective a rank sends
 * every peer of the group an arrival token (the collective's sequence number, tag
 * ARRIVE_TAG); when the deadline passes, the peers whose token has not come are the ranks
 * that stopped answering. The rank then prints which collective timed out and which ranks did
 * not join it, and ends the job with MPI_Abort (status 3): returning would leave the other
 * ranks in half-entered collectives and MPI_Finalize. An MPI error (a peer that died, seen by
 * the transport) is reported and aborts the same way. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "optcert/comm_mpi.h"
#include "deadline.h"

#define PIECE ((size_t)INT_MAX)
#define ARRIVE_TAG 0x4f43 /* "OC": reserved in the engine's communicators */
#define MAX_ENGINES 8

typedef struct engine {
    MPI_Comm comm;
    int rank, size;
    unsigned seq;         /* collectives entered */
    unsigned out;         /* the token sent to every peer for collective seq */
    unsigned *in;         /* [size] token received from each peer */
    MPI_Request *rreq;    /* [size] receive of the next token of each peer */
    MPI_Request *sreq;    /* [size] send of this rank's token */
} engine;

/* Read once: every rank of the job sees the same environment. */
static double deadline_s(void)
{
    static double s = -1;
    if (s < 0)
        s = oc_comm_deadline_s();
    return s;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int world_rank_of(const engine *e, int r)
{
    MPI_Group g, wg;
    int w = r;
    if (MPI_Comm_group(e->comm, &g) == MPI_SUCCESS &&
        MPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
        if (MPI_Group_translate_ranks(g, 1, &r, wg, &w) != MPI_SUCCESS || w == MPI_UNDEFINED)
            w = r;
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    return w;
}

/* Reports and ends the job: `what` timed out (err == MPI_SUCCESS) or failed with err; the
 * peers whose token of this collective has not come did not join it. */
static void fail(engine *e, const char *what, int err)
{
    char missing[512] = "", msg[MPI_MAX_ERROR_STRING] = "";
    size_t len = 0;
    int nmissing = 0;
    for (int r = 0; r < e->size; r++) {
        if (r == e->rank)
            continue;
        int done = e->rreq[r] == MPI_REQUEST_NULL;
        if (!done)
            MPI_Test(&e->rreq[r], &done, MPI_STATUS_IGNORE);
        if (done && e->in[r] == e->seq)
            continue; /* it joined (its next token is not posted: it will be consumed later) */
        if (len < sizeof missing - 32)
            len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%d", nmissing ? ", " : "",
                                    world_rank_of(e, r));
        nmissing++;
    }
    if (err != MPI_SUCCESS) {
        int n = 0;
        MPI_Error_string(err, msg, &n);
    }
    if (err == MPI_SUCCESS)
        fprintf(stderr, "optcert comm: rank %d: %s (collective #%u of a group of %d) timed out "
                "after %g s (OPTCERT_COMM_TIMEOUT): rank%s %s did not join it; aborting\n",
                world_rank_of(e, e->rank), what, e->seq, e->size, deadline_s(),
                nmissing == 1 ? "" : "s", nmissing ? missing : "(none known)");
    else
        fprintf(stderr, "optcert comm: rank %d: %s (collective #%u of a group of %d) failed: %s; "
                "rank%s %s did not join it; aborting\n", world_rank_of(e, e->rank), what, e->seq,
                e->size, msg, nmissing == 1 ? "" : "s", nmissing ? missing : "(none known)");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    abort(); /* MPI_Abort does not return */
}

/* Polls n requests until all are complete or the deadline passes (then fail()). */
static void wait_all(engine *e, const char *what, int n, MPI_Request *req, double t0)
{
    double limit = t0 + deadline_s();
    struct timespec nap = {0, 0};
    for (long spin = 0;; spin++) {
        int done = 0, rc = MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            fail(e, what, rc);
        if (done)
            return;
        if (now() > limit)
            fail(e, what, MPI_SUCCESS);
        if (spin > 1000) { /* after a short spin, yield the core between polls */
            nap.tv_nsec = spin > 100000 ? 1000000 : 10000;
            nanosleep(&nap, NULL);
        }
    }
}

/* Entering a collective: the previous tokens sent, this one's token to every peer. */
static double enter(engine *e, const char *what)
{
    double t0 = now();
    wait_all(e, what, e->size, e->sreq, t0);
    e->out = ++e->seq;
    for (int r = 0; r < e->size; r++)
        if (r != e->rank &&
            MPI_Isend(&e->out, 1, MPI_UNSIGNED, r, ARRIVE_TAG, e->comm, &e->sreq[r]) != MPI_SUCCESS)
            fail(e, what, MPI_ERR_OTHER);
    return t0;
}

/* After the collective completed: every peer's token of it (they all joined), the next
 * receives posted. */
static void leave(engine *e, const char *what, double t0)
{
    wait_all(e, what, e->size, e->rreq, t0);
    for (int r = 0; r < e->size; r++)
        if (r != e->rank &&
            MPI_Irecv(&e->in[r], 1, MPI_UNSIGNED, r, ARRIVE_TAG, e->comm, &e->rreq[r]) != MPI_SUCCESS)
            fail(e, what, MPI_ERR_OTHER);
}

/* Runs one started collective to completion under the deadline. */
static oc_status finish(engine *e, const char *what, int rc, MPI_Request *req, double t0)
{
    if (rc != MPI_SUCCESS)
        fail(e, what, rc);
    wait_all(e, what, 1, req, t0);
    leave(e, what, t0);
    return OC_OK;
}

static oc_status allreduce_sum(void *ctx, float *buf, size_t n)
{
    engine *e = ctx;
    for (size_t o = 0; o < n; o += PIECE) {
        int k = (int)(n - o < PIECE ? n - o : PIECE);
        MPI_Request req;
        double t0 = enter(e, "allreduce_sum (MPI_Iallreduce)");
        finish(e, "allreduce_sum (MPI_Iallreduce)",
               MPI_Iallreduce(MPI_IN_PLACE, buf + o, k, MPI_FLOAT, MPI_SUM, e->comm, &req), &req, t0);
    }
    return OC_OK;
}

static oc_status reduce_scatter_sum(void *ctx, const float *in, float *out, size_t shard)
{
    engine *e = ctx;
    if (shard > PIECE)
        return OC_ERR_UNSUPPORTED; /* one bucket's shard beyond 2^31 elements */
    MPI_Request req;
    const char *what = "reduce_scatter_sum (MPI_Ireduce_scatter_block)";
    double t0 = enter(e, what);
    return finish(e, what, MPI_Ireduce_scatter_block(in, out, (int)shard, MPI_FLOAT, MPI_SUM,
                                                     e->comm, &req), &req, t0);
}

static oc_status allgather(void *ctx, void *buf, size_t shard, size_t elem)
{
    engine *e = ctx;
    if (elem == 0 || shard > PIECE / elem)
        return OC_ERR_UNSUPPORTED;
    MPI_Request req;
    const char *what = "allgather (MPI_Iallgather)";
    double t0 = enter(e, what);
    return finish(e, what, MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf,
                                          (int)(shard * elem), MPI_BYTE, e->comm, &req), &req, t0);
}

static oc_status allreduce_max_int(void *ctx, int *x)
{
    engine *e = ctx;
    MPI_Request req;
    const char *what = "allreduce_max_int (MPI_Iallreduce)";
    double t0 = enter(e, what);
    return finish(e, what, MPI_Iallreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_MAX, e->comm, &req),
                  &req, t0);
}

oc_status oc_comm_mpi(MPI_Comm comm, oc_comm *out)
{
    /* up to 8 engines per process (a data-parallel and a model-parallel group, the world) */
    static engine saved[MAX_ENGINES];
    static int nsaved;
    int rank, size;
    if (!out)
        return OC_ERR_NULL_POINTER;
    if (nsaved == MAX_ENGINES)
        return OC_ERR_UNSUPPORTED;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return OC_ERR_IO;
    engine *e = &saved[nsaved];
    *e = (engine){comm, rank, size, 0, 0, calloc((size_t)size, sizeof *e->in),
                  malloc((size_t)size * sizeof *e->rreq), malloc((size_t)size * sizeof *e->sreq)};
    if (!e->in || !e->rreq || !e->sreq) {
        free(e->in), free(e->rreq), free(e->sreq);
        return OC_ERR_INTERNAL;
    }
    /* errors come back to the engine, which reports them (a dead peer seen by the transport) */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    for (int r = 0; r < size; r++) {
        e->rreq[r] = e->sreq[r] = MPI_REQUEST_NULL;
        if (r != rank &&
            MPI_Irecv(&e->in[r], 1, MPI_UNSIGNED, r, ARRIVE_TAG, comm, &e->rreq[r]) != MPI_SUCCESS)
            return OC_ERR_IO;
    }
    nsaved++;
    *out = (oc_comm){e, rank, size, allreduce_sum, reduce_scatter_sum, allgather,
                     allreduce_max_int};
    return OC_OK;
}
