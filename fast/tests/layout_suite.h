/* The layout suite shared by the MPI driver and the in-process test (layout_suite.c). */
#ifndef OPTCERT_FAST_LAYOUT_SUITE_H
#define OPTCERT_FAST_LAYOUT_SUITE_H

#include <stdio.h>
#include "optcert/dist.h"

/* Runs every family under every layout on the ranks of c (called by every rank); returns the
 * number of failed checks on this rank. Rank 0 prints a line per run when verbose, and every
 * failure in any case. */
int layout_suite(const oc_comm *c, int verbose);

/* The element-wise families of the suites, their fast steps with the suites' hyper-parameters
 * (an oc_dist_step_fn, ctx a step_ctx) and their numbers of state tensors. */
typedef enum { ADAMW, ADAM_AMS, SGD_NEST, SGD_EMA, LION, NFAM } fam_kind;
extern const char *const fam_names[NFAM];
typedef struct step_ctx {
    fam_kind f;
    int64_t step;
} step_ctx;
oc_status family_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t);
int nstates(fam_kind f);

#endif
