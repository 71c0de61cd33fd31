/* NS-TOL-1's error model (spec/muon.md), shared by the generator (vectors/gen: the tolerances
 * it writes) and the harness (conformance/src: the cap VEC-TOL-2 puts on them). Plain
 * binary64, no MPFR, no reference code: both sides link it without linking each other. */
#ifndef OPTCERT_COMMON_NS_TOLERANCE_H
#define OPTCERT_COMMON_NS_TOLERANCE_H

#include <stddef.h>
#include "optcert/newton_schulz.h" /* the hyper-parameter type only */

/* Implementation classes of NS-TOL-1, in the order of the vectors' tolerance rows. */
enum { NS_CLASS_EXACT, NS_CLASS_FP32, NS_CLASS_TF32, NS_CLASS_BF16, NS_NCLASSES };

/* The safety factor K of NS-TOL-1 over the model's error estimate. */
#define NS_TOL_SAFETY 8.0

/* NS-SCHED-1: the index of the tuple iteration i uses (cycle: i mod ncoef; repeat_last:
 * min(i, ncoef - 1)). */
int ns_tuple_of(const oc_ns_hparams *hp, int i);

/* NS-TOL-1: for the normalised input X0 = G / d with singular values sv0[0 .. k-1] (k <= n),
 * fills tol[class][0] (bound on ||Y - Y*||_F) and tol[class][1] (bound on
 * max_i |sigma_i(Y) - sigma_i(Y*)|) for every class, and *exact_norm (if not NULL) with
 * ||Y*||_F, from the singular values of the exact result. Returns 0, or -1 if out of memory. */
int ns_tolerances(const oc_ns_hparams *hp, const double *sv0, size_t k, size_t n,
                  double tol[NS_NCLASSES][2], double *exact_norm);

#endif
