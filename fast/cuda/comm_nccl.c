/* FAST-CUDA-COMM-1: the communicator of optcert/comm.h on NCCL. */
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/comm_nccl.h"

typedef struct nccl_engine {
    ncclComm_t comm;
    cudaStream_t stream;
    int device;
    int owned;    /* comm and stream created here (destroyed here) */
    int *flag;    /* device scratch of allreduce_max_int */
} nccl_engine;

/* Waits for the NCCL call that returned r (blocking contract of optcert/comm.h). */
static oc_status finish(nccl_engine *e, ncclResult_t r)
{
    if (r != ncclSuccess)
        return r == ncclInvalidArgument || r == ncclInvalidUsage ? OC_ERR_BAD_HPARAM
                                                                 : OC_ERR_INTERNAL;
    return cudaStreamSynchronize(e->stream) == cudaSuccess ? OC_OK : OC_ERR_INTERNAL;
}

/* *e := the engine with its device current, once buffers a and b are present (n > 0). */
static oc_status enter(void *ctx, const void *a, const void *b, size_t n, nccl_engine **e)
{
    *e = ctx;
    if (!*e || (n > 0 && (!a || !b)))
        return OC_ERR_NULL_POINTER;
    return cudaSetDevice((*e)->device) == cudaSuccess ? OC_OK : OC_ERR_INTERNAL;
}

static oc_status allreduce_sum(void *ctx, float *buf, size_t n)
{
    nccl_engine *e;
    oc_status st = enter(ctx, buf, buf, n, &e);
    return st != OC_OK ? st : finish(e, ncclAllReduce(buf, buf, n, ncclFloat32, ncclSum, e->comm,
                                                      e->stream));
}

static oc_status reduce_scatter_sum(void *ctx, const float *in, float *out, size_t shard)
{
    nccl_engine *e;
    oc_status st = enter(ctx, in, out, shard, &e);
    return st != OC_OK ? st : finish(e, ncclReduceScatter(in, out, shard, ncclFloat32, ncclSum,
                                                          e->comm, e->stream));
}

/* In place: rank r's shard is already at buf + r*shard (NCCL's in-place all-gather), moved as
 * bytes (fp32 parameters or a 16-bit model copy: no arithmetic). */
static oc_status allgather(void *ctx, void *buf, size_t shard, size_t elem)
{
    nccl_engine *e;
    int rank = 0;
    oc_status st = enter(ctx, buf, buf, shard, &e);
    if (st != OC_OK)
        return st;
    if (elem == 0 || shard > SIZE_MAX / elem)
        return OC_ERR_BAD_HPARAM;
    if (ncclCommUserRank(e->comm, &rank) != ncclSuccess)
        return OC_ERR_INTERNAL;
    size_t bytes = shard * elem;
    return finish(e, ncclAllGather((char *)buf + (size_t)rank * bytes, buf, bytes, ncclUint8,
                                   e->comm, e->stream));
}

static oc_status allreduce_max_int(void *ctx, int *x)
{
    nccl_engine *e;
    oc_status st = enter(ctx, x, x, 1, &e);
    if (st != OC_OK)
        return st;
    if (cudaMemcpyAsync(e->flag, x, sizeof *x, cudaMemcpyHostToDevice, e->stream) != cudaSuccess)
        return OC_ERR_INTERNAL;
    st = finish(e, ncclAllReduce(e->flag, e->flag, 1, ncclInt32, ncclMax, e->comm,
                                           e->stream));
    if (st == OC_OK && cudaMemcpy(x, e->flag, sizeof *x, cudaMemcpyDeviceToHost) != cudaSuccess)
        st = OC_ERR_INTERNAL;
    return st;
}

oc_status oc_comm_nccl_broadcast(const oc_comm *c, float *buf, size_t n, int root)
{
    nccl_engine *e;
    oc_status st = c ? enter(c->ctx, buf, buf, n, &e) : OC_ERR_NULL_POINTER;
    if (st != OC_OK)
        return st;
    if (root < 0 || root >= c->size)
        return OC_ERR_BAD_HPARAM;
    return finish(e, ncclBroadcast(buf, buf, n, ncclFloat32, root, e->comm, e->stream));
}

/* Gather (to_root) or scatter (!to_root) as one group of point-to-point calls: the root posts
 * one receive (send) per rank, itself included; every rank posts one send (receive). */
static oc_status rooted(const oc_comm *c, const float *send, float *recv, size_t n, int root,
                        int to_root)
{
    nccl_engine *e;
    const void *mine = to_root ? (const void *)send : recv;
    const void *roots = to_root ? (const void *)recv : send;
    oc_status st = c ? enter(c->ctx, mine, mine, n, &e) : OC_ERR_NULL_POINTER;
    if (st != OC_OK)
        return st;
    if (root < 0 || root >= c->size)
        return OC_ERR_BAD_HPARAM;
    if (c->rank == root && n > 0 && !roots)
        return OC_ERR_NULL_POINTER;
    ncclResult_t r = ncclGroupStart();
    for (int k = 0; k < c->size && c->rank == root && r == ncclSuccess; k++)
        r = to_root ? ncclRecv(recv + (size_t)k * n, n, ncclFloat32, k, e->comm, e->stream)
                    : ncclSend(send + (size_t)k * n, n, ncclFloat32, k, e->comm, e->stream);
    if (r == ncclSuccess)
        r = to_root ? ncclSend(send, n, ncclFloat32, root, e->comm, e->stream)
                    : ncclRecv(recv, n, ncclFloat32, root, e->comm, e->stream);
    ncclResult_t end = ncclGroupEnd();
    return finish(e, r != ncclSuccess ? r : end);
}

oc_status oc_comm_nccl_gather(const oc_comm *c, const float *send, float *recv, size_t n,
                              int root)
{
    return rooted(c, send, recv, n, root, 1);
}

oc_status oc_comm_nccl_scatter(const oc_comm *c, const float *send, float *recv, size_t n,
                               int root)
{
    return rooted(c, send, recv, n, root, 0);
}

void oc_comm_nccl_free(oc_comm *c)
{
    if (!c)
        return;
    nccl_engine *e = c->ctx;
    if (e) {
        cudaSetDevice(e->device);
        if (e->stream)
            cudaStreamSynchronize(e->stream);
        cudaFree(e->flag);
        if (e->owned) {
            ncclCommDestroy(e->comm);
            cudaStreamDestroy(e->stream);
        }
        free(e);
    }
    memset(c, 0, sizeof *c);
}

/* Fills *out around engine e (copied); on failure nothing is kept. */
static oc_status make(const nccl_engine *e, oc_comm *out)
{
    int rank = 0, size = 0;
    nccl_engine *copy = malloc(sizeof *copy);
    if (!copy || ncclCommUserRank(e->comm, &rank) != ncclSuccess ||
        ncclCommCount(e->comm, &size) != ncclSuccess || cudaSetDevice(e->device) != cudaSuccess) {
        free(copy);
        return OC_ERR_INTERNAL;
    }
    *copy = *e;
    if (cudaMalloc((void **)&copy->flag, sizeof(int)) != cudaSuccess) {
        free(copy);
        return OC_ERR_INTERNAL;
    }
    *out = (oc_comm){copy, rank, size, allreduce_sum, reduce_scatter_sum, allgather,
                     allreduce_max_int};
    return OC_OK;
}

oc_status oc_comm_nccl(void *nccl_comm, void *stream, oc_comm *out)
{
    if (!nccl_comm || !out)
        return OC_ERR_NULL_POINTER;
    nccl_engine e = {nccl_comm, stream, 0, 0, NULL};
    if (ncclCommCuDevice(e.comm, &e.device) != ncclSuccess)
        return OC_ERR_BAD_HPARAM;
    return make(&e, out);
}

oc_status oc_comm_nccl_init_all(int ndev, const int *devices, oc_comm *out)
{
    if (!devices || !out)
        return OC_ERR_NULL_POINTER;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        return OC_ERR_NO_DEVICE;
    if (ndev < 1 || ndev > count)
        return OC_ERR_BAD_HPARAM;
    ncclComm_t *comms = calloc((size_t)ndev, sizeof *comms);
    if (!comms)
        return OC_ERR_INTERNAL;
    oc_status st = ncclCommInitAll(comms, ndev, devices) == ncclSuccess ? OC_OK : OC_ERR_INTERNAL;
    int made = 0;
    for (; made < ndev && st == OC_OK; made++) {
        nccl_engine e = {comms[made], NULL, devices[made], 1, NULL};
        if (cudaSetDevice(e.device) != cudaSuccess ||
            cudaStreamCreateWithFlags(&e.stream, cudaStreamNonBlocking) != cudaSuccess)
            st = OC_ERR_INTERNAL;
        else if ((st = make(&e, &out[made])) != OC_OK)
            cudaStreamDestroy(e.stream);
        if (st != OC_OK)
            break;
    }
    if (st != OC_OK) { /* undo: the ranks made, then the bare communicators */
        for (int r = 0; r < made; r++)
            oc_comm_nccl_free(&out[r]);
        for (int r = made; r < ndev && comms[r]; r++)
            ncclCommDestroy(comms[r]);
    }
    free(comms);
    return st;
}
