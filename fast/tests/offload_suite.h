/* The CPU-offload suite (offload_suite.c, spec/layouts.md §10), run by the MPI driver and the
 * in-process test. */
#ifndef OPTCERT_FAST_OFFLOAD_SUITE_H
#define OPTCERT_FAST_OFFLOAD_SUITE_H

#include <stdio.h>
#include "optcert/comm.h"

/* Every layout x family x mode x fraction x overlap on the ranks of c (called by every rank);
 * returns the number of failed runs. Rank 0 prints a summary when verbose or failing. */
int offload_suite(const oc_comm *c, int verbose);

#endif
