/* The step-control suite (control_suite.c), run by the MPI driver. */
#ifndef OPTCERT_FAST_CONTROL_SUITE_H
#define OPTCERT_FAST_CONTROL_SUITE_H

#include "optcert/dist.h"

/* Every layout with clipping and skips on a TP x PP x DP grid: dpc the data-parallel group of
 * this rank, mpc its model-parallel group (rank = pp_stage * tp + tp_rank, size tp * pp), world
 * all ranks, emb its embedding group (the first and the last stage of its TP and DP ranks, rank =
 * 0 on the first; unused when pp = 1); every rank calls it. Returns the failed checks on this rank; rank 0 prints a line
 * per run when verbose, and every failure. */
int control_suite(const oc_comm *dpc, const oc_comm *mpc, const oc_comm *world,
                  const oc_comm *emb, int tp, int pp, int verbose);

#endif
