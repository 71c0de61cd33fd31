/* The layout suite shared by the MPI driver and the in-process test (layout_suite.c). */
#ifndef OPTCERT_FAST_LAYOUT_SUITE_H
#define OPTCERT_FAST_LAYOUT_SUITE_H

#include <stdio.h>
#include "optcert/dist.h"

/* Runs every family under every layout on the ranks of c (called by every rank); returns the
 * number of failed checks on this rank. Rank 0 prints a line per run when verbose, and every
 * failure in any case. */
int layout_suite(const oc_comm *c, int verbose);

#endif
