/* The Newton-Schulz mutant catalogue (spec/muon.md §5): variant orthogonalisations built from
 * the reference's pieces (include/optcert/newton_schulz.h), each with one catalogued mistake,
 * beside the harness, not in ref/ (issue 16 item 3, as conformance/mutants/adam.h). */
#ifndef OPTCERT_MUTANTS_NEWTON_SCHULZ_H
#define OPTCERT_MUTANTS_NEWTON_SCHULZ_H

#include "optcert/newton_schulz.h"

typedef enum oc_ns_mutant {
    OC_NS_CORRECT = 0,
    OC_NS_MUT_WRONG_COEFFICIENTS,   /* the simple set (the quintic set for the simple profile) */
    OC_NS_MUT_SCHEDULE_REVERSED,    /* tuples applied last to first */
    OC_NS_MUT_GRAM_WRONG_SIDE,      /* square X: A = X^T X, still left-multiplied */
    OC_NS_MUT_SPECTRAL_NORM,        /* G / (sigma_max(G) + eps) instead of the Frobenius norm */
    OC_NS_MUT_MAX_NORM,             /* G / (max |g_ij| + eps) */
    OC_NS_MUT_EPS_OMITTED,          /* d = s*||G||_F */
    OC_NS_MUT_EPS_MODE_SWAPPED,     /* add <-> max */
    OC_NS_MUT_ONE_STEP_FEWER,
    OC_NS_MUT_ONE_STEP_MORE,
    OC_NS_MUTANT_COUNT
} oc_ns_mutant;

/* Stable short name and one-line description of a mutant (NULL if out of range). */
const char *oc_ns_mutant_name(oc_ns_mutant mu);
const char *oc_ns_mutant_description(oc_ns_mutant mu);

/* oc_ref_newton_schulz with mistake mu (OC_NS_CORRECT: the reference itself); on an input the
 * reference rejects, the reference's status and nothing written. */
oc_status oc_ns_mutant_orthogonalise(oc_ns_mutant mu, const oc_ns_hparams *hp, size_t rows,
                                     size_t cols, const float *g, float *out, double *work,
                                     size_t work_len);

#endif
