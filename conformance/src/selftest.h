/* The harness self-test (VEC-JUDGE-1): every output judged. */
#ifndef OPTCERT_SELFTEST_H
#define OPTCERT_SELFTEST_H

#include <stdio.h>
#include "diag.h"
#include "vectors.h"

/* Prints, per family of vector_dir (or only the family `only`) and per output quantity, how
 * many entries were moved and that each move alone failed its case. 0: every output judged;
 * 1: one is not (named); -1: bad vectors (in d). */
int oc_selftest(const char *vector_dir, const char *only, FILE *out, oc_diag *d);
/* The same for one loaded family: its rows, and 1 if an output entry is not judged. */
int oc_selftest_family(const oc_family *fam, FILE *out);

#endif
