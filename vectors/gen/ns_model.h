/* Newton–Schulz tolerance model (spec/muon.md NS-TOL-1) and the exact iteration. The singular
 * values it starts from are common/singular_values.c, the routine the harness judges the band
 * of NS-TOL-1 with. */
#ifndef OPTCERT_GEN_NS_MODEL_H
#define OPTCERT_GEN_NS_MODEL_H

#include <stddef.h>
#include "optcert/newton_schulz.h"
#include "../../common/singular_values.h"

/* Implementation classes of NS-TOL-1, in the order of the vectors' tolerance rows. */
enum { NS_CLASS_EXACT, NS_CLASS_FP32, NS_CLASS_TF32, NS_CLASS_BF16, NS_NCLASSES };

/* The safety factor K of NS-TOL-1 over the model's error estimate. */
#define NS_TOL_SAFETY 8.0

/* The exact iteration of hp (NS-*) on the rows x cols input g in MPFR at `prec` bits: Y rounded
 * to binary32 and to binary64 (row-major, input shape), and the singular values of X0 = G / d
 * (min(rows, cols) of them, binary64). vectors/gen/gen_newton_schulz.c. */
void ns_exact(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g, long prec,
              float *y32, double *y64, double *sv0);

/* NS-SCHED-1: the index of the tuple iteration i uses (cycle: i mod ncoef; repeat_last:
 * min(i, ncoef - 1)). vectors/gen/gen_newton_schulz.c. */
int ns_tuple_of(const oc_ns_hparams *hp, int i);

/* NS-PROF-*: the named profile's tuples (the published decimals rounded to binary32), schedule,
 * normalisation and steps into *hp; its name ("simple", ...) or NULL if pr is out of range.
 * vectors/gen/gen_newton_schulz.c. */
const char *ns_profile_defaults(oc_ns_profile pr, oc_ns_hparams *hp);

/* NS-TOL-1: for the normalised input X0 = G / d with singular values sv0[0 .. k-1] (k <= n),
 * fills tol[class][0] (bound on ||Y - Y*||_F) and tol[class][1] (bound on
 * max_i |sigma_i(Y) - sigma_i(Y*)|) for every class. Returns 0, or -1 if out of memory. */
int ns_tolerances(const oc_ns_hparams *hp, const double *sv0, size_t k, size_t n,
                  double tol[NS_NCLASSES][2]);

#endif
