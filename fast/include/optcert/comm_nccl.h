/* The NCCL engine of the communicator (optcert/comm.h), for GPU ranks (FAST-CUDA-COMM-1).
 * Float buffers are DEVICE pointers; allreduce_max_int's int is a host int (the step control's
 * skip decision is made on the host). Every collective is enqueued on the engine's stream and
 * waited for before it returns, the blocking contract of the MPI engine that the layouts rely
 * on. */
#ifndef OPTCERT_COMM_NCCL_H
#define OPTCERT_COMM_NCCL_H

#include "optcert/comm.h"

/* Fills *out for one rank of an initialized ncclComm_t (e.g. from ncclCommInitRank), with the
 * collectives on `stream` (a cudaStream_t); the caller keeps ownership of both, and frees *out
 * with oc_comm_nccl_free. */
oc_status oc_comm_nccl(void *nccl_comm, void *stream, oc_comm *out);

/* One process driving `ndev` devices (ncclCommInitAll): out[r] is rank r on devices[r] with its
 * own stream; ndev = 1 gives a world of one rank. OC_ERR_NO_DEVICE without a device. With more
 * than one rank, the collectives of the ranks must be issued from different threads (each
 * blocks until all ranks joined). */
oc_status oc_comm_nccl_init_all(int ndev, const int *devices, oc_comm *out);

/* buf[0..n) of every rank := root's (device pointers; blocking like the table's collectives).
 * Not in the communicator table (the layouts do not need it). */
oc_status oc_comm_nccl_broadcast(const oc_comm *c, float *buf, size_t n, int root);

/* Gather: root's recv[r*n .. (r+1)*n) := rank r's send[0..n) (recv is read only on root).
 * Scatter: every rank's recv[0..n) := root's send[r*n .. (r+1)*n) (send is read only on root).
 * Grouped NCCL sends and receives (ncclGroupStart/End); device pointers; blocking. */
oc_status oc_comm_nccl_gather(const oc_comm *c, const float *send, float *recv, size_t n,
                              int root);
oc_status oc_comm_nccl_scatter(const oc_comm *c, const float *send, float *recv, size_t n,
                               int root);

/* Releases what oc_comm_nccl / oc_comm_nccl_init_all made (the NCCL communicator and stream
 * too when init_all made them); *c is zeroed. */
void oc_comm_nccl_free(oc_comm *c);

#endif
