/* The communicator (optcert/comm.h) on NCCL, for GPU ranks (FAST-CUDA-COMM-1). Buffers are device
 * pointers; collectives are enqueued on the engine's stream. */
#ifndef OPTCERT_COMM_NCCL_H
#define OPTCERT_COMM_NCCL_H

#include "optcert/comm.h"

/* Wraps an initialized ncclComm_t (one rank of a communicator the caller built, e.g. with
 * ncclCommInitRank) and a cudaStream_t; the caller keeps ownership of both. */
oc_status oc_comm_nccl_wrap(void *nccl_comm, void *stream, oc_comm **out);

/* One process driving `ndev` devices (ncclCommInitAll): out[r] is rank r on devices[r] with its
 * own stream; destroy each with out[r]->ops->destroy. ndev = 1 gives a world of one rank.
 * OC_ERR_NO_DEVICE without a device. */
oc_status oc_comm_nccl_init_all(int ndev, const int *devices, oc_comm **out);

#endif
