/* The chained-optimizer suite (chain_suite.c): dense and expert parameters under a chained step. */
#ifndef OPTCERT_FAST_CHAIN_SUITE_H
#define OPTCERT_FAST_CHAIN_SUITE_H

#include "optcert/dist.h"

/* world: every rank, the dense parameters' data-parallel group; edp: this rank's
 * expert-data-parallel group (the ranks holding the same experts); ep: its expert-parallel group
 * (one rank of each edp group, rank = ep rank). Every rank calls it; returns the failed checks
 * on this rank; rank 0 prints a line per run when verbose, and every failure. */
int chain_suite(const oc_comm *world, const oc_comm *edp, const oc_comm *ep, int verbose);

#endif
