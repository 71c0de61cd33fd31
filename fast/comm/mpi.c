/* The communicator's MPI engine (spec/layouts.md §6). MPI counts are int: larger buffers go
 * in pieces of at most INT_MAX elements, each piece a complete collective. */
#include <limits.h>
#include <stdlib.h>
#include "optcert/comm_mpi.h"

#define PIECE ((size_t)INT_MAX)

static MPI_Comm comm_of(void *ctx) { return *(MPI_Comm *)ctx; }

static oc_status allreduce_sum(void *ctx, float *buf, size_t n)
{
    for (size_t o = 0; o < n; o += PIECE) {
        int k = (int)(n - o < PIECE ? n - o : PIECE);
        if (MPI_Allreduce(MPI_IN_PLACE, buf + o, k, MPI_FLOAT, MPI_SUM, comm_of(ctx)) != MPI_SUCCESS)
            return OC_ERR_IO;
    }
    return OC_OK;
}

static oc_status reduce_scatter_sum(void *ctx, const float *in, float *out, size_t shard)
{
    if (shard > PIECE)
        return OC_ERR_UNSUPPORTED; /* one bucket's shard beyond 2^31 elements */
    return MPI_Reduce_scatter_block(in, out, (int)shard, MPI_FLOAT, MPI_SUM, comm_of(ctx)) ==
                   MPI_SUCCESS ? OC_OK : OC_ERR_IO;
}

static oc_status allgather(void *ctx, void *buf, size_t shard, size_t elem)
{
    if (elem == 0 || shard > PIECE / elem)
        return OC_ERR_UNSUPPORTED;
    return MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, (int)(shard * elem), MPI_BYTE,
                         comm_of(ctx)) == MPI_SUCCESS ? OC_OK : OC_ERR_IO;
}

static oc_status allreduce_max_int(void *ctx, int *x)
{
    return MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_MAX, comm_of(ctx)) == MPI_SUCCESS
               ? OC_OK : OC_ERR_IO;
}

oc_status oc_comm_mpi(MPI_Comm comm, oc_comm *out)
{
    /* up to 8 engines per process (a data-parallel and a model-parallel group, the world) */
    static MPI_Comm saved[8];
    static int nsaved;
    int rank, size;
    if (!out)
        return OC_ERR_NULL_POINTER;
    if (nsaved == 8)
        return OC_ERR_UNSUPPORTED;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return OC_ERR_IO;
    saved[nsaved] = comm;
    *out = (oc_comm){&saved[nsaved++], rank, size, allreduce_sum, reduce_scatter_sum, allgather,
                     allreduce_max_int};
    return OC_OK;
}
