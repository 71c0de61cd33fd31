/* MUON-TOL-1's combination (spec/muon.md), shared by the generator (the tolerances it writes)
 * and the harness (the cap VEC-TOL-2 puts on them). Plain binary64, no MPFR, no reference. */
#ifndef OPTCERT_COMMON_MUON_TOLERANCE_H
#define OPTCERT_COMMON_MUON_TOLERANCE_H

#include <stddef.h>
#include "ns_tolerance.h"
#include "optcert/muon.h" /* the hyper-parameter type only */

/* MUON-SCALE-1 in binary64 for the tolerances (a bound, not a golden value): extraScale
 * f(rows, cols), f = sqrt(max(1, rows/cols)) (shape_scaling), sqrt(max(rows, cols))
 * (spectral) or sqrt(rows/cols) (unit_rms_norm). */
double muon_scale_bound_factor(const oc_muon_hparams *hp, size_t rows, size_t cols);

/* MUON-TOL-1: the momentum's bound element-wise (three roundings, or one for the exact class)
 * and the parameter's: lr * scale times the orthogonalisation's bound of the class, plus four
 * roundings of the element-wise update. orth_tol, orth_norm: sums over the blocks of
 * step_b T_C(block) and step_b ||O_b*||_F (MUON-BLK-TOL-1; one block without a partition);
 * pnorm, mnorm: ||p'*||_F, ||m'*||_F; wnorm: ||mu |m| + take |g| ||_F; keptnorm:
 * ||(1 - lr wd) p||_F. Fills tol_p and tol_m [class][frobenius, band]. */
void muon_tolerances(const double orth_tol[NS_NCLASSES][2], double orth_norm, double pnorm,
                     double mnorm, double wnorm, double keptnorm, double tol_p[NS_NCLASSES][2],
                     double tol_m[NS_NCLASSES][2]);

#endif
