/* Matrix loading and judging shared by the Newton-Schulz and Muon families of the harness
 * (conformance/src/newton_schulz.c, which defines them; conformance/src/muon.c): spec/muon.md
 * NS-TOL-1, MUON-TOL-1, VEC-FMT-12. oc_judge_matrix is in judge.h. */
#ifndef OPTCERT_MATRIX_JUDGE_H
#define OPTCERT_MATRIX_JUDGE_H

#include "optcert/newton_schulz.h"
#include "tolcap.h"
#include "vectors.h"
#include "../../common/ns_tolerance.h"

/* The Newton-Schulz fields of a group's hparams (VEC-FMT-12); hp->profile is the caller's. */
oc_status oc_ns_fields(const char *path, json_t *h, oc_ns_hparams *hp, oc_diag *d);

/* VEC-FMT-12: rows, cols, the input matrices `inputs` [rows, cols] into c->in[], and for every
 * output (state_names) expected.<name>.{f32, f64} [rows, cols] and expected.<name>.tol [4, 2]. */
oc_status oc_matrix_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                         oc_diag *d, const char *const *inputs, int ninputs);

/* VEC-DIAG-1: a mutant explains observed outputs when they lie within the fp32 class of each
 * other (as the elementwise diagnosis does). */
int oc_matrix_explains(const oc_case *c, const oc_outputs *got, const oc_outputs *mutant);

/* NS-NORM-1 in binary64 (each square of a binary32 input exact, their sum rounded) and the
 * singular values of X / d (common/singular_values.c, k = min(rows, cols) of them) of the
 * row-major rows x cols matrix x: the inputs of NS-TOL-1's model. 0, or -1 if out of memory. */
int oc_ns_normalised_singular_values(const oc_ns_hparams *hp, const double *x, size_t rows,
                                     size_t cols, double *sv);

/* VEC-TOL-2: every entry of output `slot`'s table at most the model's, widened by the slack of
 * VEC-TOL-2 (2^-20; a zero, the exact output of a zero input, stays zero). */
oc_status oc_ns_table_within(const char *path, const oc_case *c, int slot,
                             const double tol[NS_NCLASSES][2], oc_tolcap_stats *stats, oc_diag *d);

#endif
