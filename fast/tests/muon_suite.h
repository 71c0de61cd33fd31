/* The distributed Muon suite shared by the MPI driver and the in-process test (muon_suite.c). */
#ifndef OPTCERT_FAST_MUON_SUITE_H
#define OPTCERT_FAST_MUON_SUITE_H

#include "optcert/comm.h"

/* Runs the data-parallel strategies and the tensor-parallel modes on the ranks of c (every
 * rank calls it); returns the number of failed checks on this rank. Rank 0 prints a line per
 * run when verbose, and every failure in any case. */
int muon_suite(const oc_comm *c, int verbose);

#endif
