/* The MPI engine of the communicator (fast/comm/mpi.c). */
#ifndef OPTCERT_COMM_MPI_H
#define OPTCERT_COMM_MPI_H

#include <mpi.h>
#include "optcert/comm.h"

/* Fills *out for the ranks of `comm` (which must outlive *out); at most 8 per process
 * (OC_ERR_UNSUPPORTED after). */
oc_status oc_comm_mpi(MPI_Comm comm, oc_comm *out);

#endif
