/* Numerics shared by the generator (vectors/gen: the singular values NS-TOL-1's model starts
 * from) and the harness (conformance/src: the singular-value band of NS-TOL-1). Plain binary64,
 * no MPFR, no reference code: both sides link it without linking each other. */
#ifndef OPTCERT_COMMON_SINGULAR_VALUES_H
#define OPTCERT_COMMON_SINGULAR_VALUES_H

#include <stddef.h>

/* Singular values of the row-major rows x cols binary64 matrix m, in decreasing order, into
 * sv[0 .. min(rows, cols) - 1] (one-sided Jacobi, binary64; only +, -, *, /, sqrt, so the
 * result is the same on every IEEE machine). Returns 0, or -1 if out of memory. */
int ns_singular_values(const double *m, size_t rows, size_t cols, double *sv);

#endif
