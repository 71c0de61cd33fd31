/* The in-process engine of the communicator (fast/comm/inproc.c): ranks are threads of one
 * process sharing memory. Sums are taken in rank order 0..size-1, so results do not depend on
 * timing. For tests without MPI and for single-node multi-rank runs. */
#ifndef OPTCERT_COMM_INPROC_H
#define OPTCERT_COMM_INPROC_H

#include "optcert/comm.h"

typedef struct oc_inproc_world oc_inproc_world;

oc_status oc_inproc_world_new(int size, oc_inproc_world **out);
void oc_inproc_world_free(oc_inproc_world *w);
/* How long a collective waits for the other ranks before failing with OC_ERR_PEER
 * (LAYOUT-DEADLINE-1); the default is OPTCERT_COMM_TIMEOUT seconds, else 300. */
oc_status oc_inproc_world_set_timeout(oc_inproc_world *w, double seconds);
/* The communicator of rank `rank`, to be used by one thread; valid while w lives. */
oc_status oc_comm_inproc(oc_inproc_world *w, int rank, oc_comm *out);

#endif
