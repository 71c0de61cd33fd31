/* The communicator the layouts run on (spec/fast.md §5, FAST-CUDA-COMM-1): the four collectives a
 * sharded optimizer step needs, behind one table of function pointers, so that the same layout
 * code runs on MPI (CPU ranks) or NCCL (GPU ranks). Buffers live where the engine wants them
 * (host memory for MPI, device memory for NCCL). Collectives are enqueued in call order; the
 * NCCL engine does not wait for the GPU (oc_comm_sync does). Sums are the engine's: NCCL's
 * reduction order is its own, so layouts that must be bit-identical reduce only exact values
 * (disjoint contributions, zeros elsewhere) or gather and reduce in a fixed order themselves. */
#ifndef OPTCERT_COMM_H
#define OPTCERT_COMM_H

#include <stddef.h>
#include "optcert/status.h"

typedef enum oc_comm_dtype {
    OC_COMM_F32 = 0,
    OC_COMM_F64,
    OC_COMM_BF16, /* raw bits; sums in bf16 are the engine's */
    OC_COMM_U8,   /* bytes (flags, packed records); sum wraps */
} oc_comm_dtype;

typedef struct oc_comm oc_comm;

typedef struct oc_comm_ops {
    /* recv[i] = sum over ranks of send[i], i < count (send == recv allowed) */
    oc_status (*all_reduce_sum)(oc_comm *c, const void *send, void *recv, size_t count,
                                oc_comm_dtype t);
    /* recv[i] = sum over ranks of send[rank*count + i], i < count */
    oc_status (*reduce_scatter_sum)(oc_comm *c, const void *send, void *recv, size_t count,
                                    oc_comm_dtype t);
    /* recv[r*count + i] = send of rank r [i] */
    oc_status (*all_gather)(oc_comm *c, const void *send, void *recv, size_t count,
                            oc_comm_dtype t);
    /* buf of every rank = buf of root */
    oc_status (*broadcast)(oc_comm *c, void *buf, size_t count, oc_comm_dtype t, int root);
    /* waits until every collective enqueued so far has completed on this rank */
    oc_status (*sync)(oc_comm *c);
    void (*destroy)(oc_comm *c);
} oc_comm_ops;

struct oc_comm {
    const oc_comm_ops *ops;
    int rank, size;
    void *engine; /* the engine's own state */
};

/* Size in bytes of one element of type t (0 for an unknown type). */
static inline size_t oc_comm_dtype_size(oc_comm_dtype t)
{
    return t == OC_COMM_F32 ? 4 : t == OC_COMM_F64 ? 8 : t == OC_COMM_BF16 ? 2
           : t == OC_COMM_U8 ? 1 : 0;
}

#endif
