/* FAST-CUDA-COMM-1: the communicator of optcert/comm.h on NCCL. */
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdlib.h>
#include "optcert/comm_nccl.h"

typedef struct nccl_engine {
    ncclComm_t comm;
    cudaStream_t stream;
    int device;
    int owned; /* comm and stream created here (destroyed here) */
} nccl_engine;

static int nccl_type(oc_comm_dtype t, ncclDataType_t *out)
{
    switch (t) {
    case OC_COMM_F32: *out = ncclFloat32; return 1;
    case OC_COMM_F64: *out = ncclFloat64; return 1;
    case OC_COMM_BF16: *out = ncclBfloat16; return 1;
    case OC_COMM_U8: *out = ncclUint8; return 1;
    }
    return 0;
}

static oc_status nccl_status(ncclResult_t r)
{
    return r == ncclSuccess ? OC_OK : r == ncclInvalidArgument || r == ncclInvalidUsage
                                          ? OC_ERR_BAD_HPARAM : OC_ERR_INTERNAL;
}

/* The engine of c with its device current and the NCCL type of t, once the buffers a and b of
 * count elements are present; OC_OK or the reason not. */
static oc_status enter(oc_comm *c, oc_comm_dtype t, size_t count, const void *a, const void *b,
                       ncclDataType_t *nt, nccl_engine **e)
{
    if (!c || !c->engine || (count > 0 && (!a || !b)))
        return OC_ERR_NULL_POINTER;
    if (!nccl_type(t, nt))
        return OC_ERR_UNSUPPORTED;
    *e = c->engine;
    return cudaSetDevice((*e)->device) == cudaSuccess ? OC_OK : OC_ERR_INTERNAL;
}

static oc_status all_reduce_sum(oc_comm *c, const void *send, void *recv, size_t count,
                                oc_comm_dtype t)
{
    ncclDataType_t nt;
    nccl_engine *e;
    oc_status st = enter(c, t, count, send, recv, &nt, &e);
    return st != OC_OK ? st : nccl_status(ncclAllReduce(send, recv, count, nt, ncclSum, e->comm,
                                                        e->stream));
}

static oc_status reduce_scatter_sum(oc_comm *c, const void *send, void *recv, size_t count,
                                    oc_comm_dtype t)
{
    ncclDataType_t nt;
    nccl_engine *e;
    oc_status st = enter(c, t, count, send, recv, &nt, &e);
    return st != OC_OK ? st : nccl_status(ncclReduceScatter(send, recv, count, nt, ncclSum,
                                                            e->comm, e->stream));
}

static oc_status all_gather(oc_comm *c, const void *send, void *recv, size_t count,
                            oc_comm_dtype t)
{
    ncclDataType_t nt;
    nccl_engine *e;
    oc_status st = enter(c, t, count, send, recv, &nt, &e);
    return st != OC_OK ? st : nccl_status(ncclAllGather(send, recv, count, nt, e->comm,
                                                        e->stream));
}

static oc_status broadcast(oc_comm *c, void *buf, size_t count, oc_comm_dtype t, int root)
{
    ncclDataType_t nt;
    nccl_engine *e;
    oc_status st = enter(c, t, count, buf, buf, &nt, &e);
    if (st == OC_OK && (root < 0 || root >= c->size))
        st = OC_ERR_BAD_HPARAM;
    return st != OC_OK ? st : nccl_status(ncclBroadcast(buf, buf, count, nt, root, e->comm,
                                                        e->stream));
}

static oc_status sync_comm(oc_comm *c)
{
    if (!c || !c->engine)
        return OC_ERR_NULL_POINTER;
    nccl_engine *e = c->engine;
    if (cudaSetDevice(e->device) != cudaSuccess || cudaStreamSynchronize(e->stream) != cudaSuccess)
        return OC_ERR_INTERNAL;
    return OC_OK;
}

static void destroy(oc_comm *c)
{
    if (!c)
        return;
    nccl_engine *e = c->engine;
    if (e && e->owned) {
        cudaSetDevice(e->device);
        cudaStreamSynchronize(e->stream);
        ncclCommDestroy(e->comm);
        cudaStreamDestroy(e->stream);
    }
    free(e);
    free(c);
}

static const oc_comm_ops nccl_ops = {all_reduce_sum, reduce_scatter_sum, all_gather, broadcast,
                                     sync_comm, destroy};

/* A communicator around an engine (NULL on allocation failure: the engine is not freed). */
static oc_comm *make(nccl_engine *e)
{
    int rank = 0, size = 0;
    oc_comm *c = malloc(sizeof *c);
    nccl_engine *copy = malloc(sizeof *copy);
    if (!c || !copy || ncclCommUserRank(e->comm, &rank) != ncclSuccess ||
        ncclCommCount(e->comm, &size) != ncclSuccess) {
        free(c);
        free(copy);
        return NULL;
    }
    *copy = *e;
    *c = (oc_comm){&nccl_ops, rank, size, copy};
    return c;
}

oc_status oc_comm_nccl_wrap(void *nccl_comm, void *stream, oc_comm **out)
{
    if (!nccl_comm || !out)
        return OC_ERR_NULL_POINTER;
    nccl_engine e = {nccl_comm, stream, 0, 0};
    if (ncclCommCuDevice(e.comm, &e.device) != ncclSuccess)
        return OC_ERR_BAD_HPARAM;
    *out = make(&e);
    return *out ? OC_OK : OC_ERR_INTERNAL;
}

oc_status oc_comm_nccl_init_all(int ndev, const int *devices, oc_comm **out)
{
    if (!devices || !out)
        return OC_ERR_NULL_POINTER;
    int count = 0;
    cudaError_t ce = cudaGetDeviceCount(&count);
    if (ce != cudaSuccess || count == 0)
        return OC_ERR_NO_DEVICE;
    if (ndev < 1 || ndev > count)
        return OC_ERR_BAD_HPARAM;
    ncclComm_t *comms = calloc((size_t)ndev, sizeof *comms);
    if (!comms)
        return OC_ERR_INTERNAL;
    oc_status st = nccl_status(ncclCommInitAll(comms, ndev, devices));
    int made = 0;
    for (; made < ndev && st == OC_OK; made++) {
        nccl_engine e = {comms[made], NULL, devices[made], 1};
        if (cudaSetDevice(e.device) != cudaSuccess ||
            cudaStreamCreateWithFlags(&e.stream, cudaStreamNonBlocking) != cudaSuccess) {
            st = OC_ERR_INTERNAL;
            break;
        }
        out[made] = make(&e);
        if (!out[made]) {
            cudaStreamDestroy(e.stream);
            st = OC_ERR_INTERNAL;
            break;
        }
    }
    if (st != OC_OK) { /* undo: the wrapped ranks, then the bare communicators */
        for (int r = 0; r < made; r++)
            destroy(out[r]);
        for (int r = made; r < ndev && comms[r]; r++)
            ncclCommDestroy(comms[r]);
    }
    free(comms);
    return st;
}
