/* The exact Newton–Schulz iteration and the profiles (spec/muon.md NS-*). The tolerance model
 * (common/ns_tolerance.c) and the singular values it starts from (common/singular_values.c)
 * are shared with the harness, which judges the band of NS-TOL-1 and caps the tolerances
 * (VEC-TOL-2) with them. */
#ifndef OPTCERT_GEN_NS_MODEL_H
#define OPTCERT_GEN_NS_MODEL_H

#include <stddef.h>
#include "optcert/newton_schulz.h"
#include "../../common/singular_values.h"
#include "../../common/ns_tolerance.h"

/* The exact iteration of hp (NS-*) on the rows x cols input g in MPFR at `prec` bits: Y rounded
 * to binary32 and to binary64 (row-major, input shape), and the singular values of X0 = G / d
 * (min(rows, cols) of them, binary64). vectors/gen/gen_newton_schulz.c. */
void ns_exact(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g, long prec,
              float *y32, double *y64, double *sv0);

/* NS-PROF-*: the named profile's tuples (the published decimals rounded to binary32), schedule,
 * normalisation and steps into *hp; its name ("simple", ...) or NULL if pr is out of range.
 * vectors/gen/gen_newton_schulz.c. */
const char *ns_profile_defaults(oc_ns_profile pr, oc_ns_hparams *hp);

#endif
