/* The communicator the layouts run on (spec/layouts.md §6): a table of collectives over float
 * buffers of one group of ranks. Engines: MPI (fast/comm/mpi.c, CPU ranks); NCCL (CUDA
 * backend) and an in-process multi-rank engine fill the same table. */
#ifndef OPTCERT_COMM_H
#define OPTCERT_COMM_H

#include <stddef.h>
#include "optcert/status.h"

typedef struct oc_comm {
    void *ctx;
    int rank, size;
    /* buf[0..n) := sum over ranks, in place */
    oc_status (*allreduce_sum)(void *ctx, float *buf, size_t n);
    /* out[0..shard) := sum over ranks of in[rank*shard .. (rank+1)*shard) */
    oc_status (*reduce_scatter_sum)(void *ctx, const float *in, float *out, size_t shard);
    /* elements of `elem` bytes: buf[r*shard .. (r+1)*shard) := rank r's, for every r; in place
     * (fp32 parameters, or the bf16/fp16 model copy) */
    oc_status (*allgather)(void *ctx, void *buf, size_t shard, size_t elem);
    /* *x := max over ranks (found_inf: every rank skips together) */
    oc_status (*allreduce_max_int)(void *ctx, int *x);
} oc_comm;

/* LAYOUT-AGREE-1: before a collective that a local failure would leave half-entered, the ranks
 * agree: OC_OK iff every rank's st is OC_OK; a failing rank keeps its own status, the others
 * get OC_ERR_PEER. Every rank of c must call it. */
static inline oc_status oc_comm_agree(const oc_comm *c, oc_status st)
{
    int bad = st != OC_OK;
    if (c->size > 1 && c->allreduce_max_int(c->ctx, &bad) != OC_OK)
        return OC_ERR_IO;
    return st != OC_OK ? st : bad ? OC_ERR_PEER : OC_OK;
}

#endif
