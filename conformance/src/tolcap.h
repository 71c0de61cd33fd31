/* VEC-TOL-2: tolerances capped by the spec's derivation (conformance/src/tolcap.c). */
#ifndef OPTCERT_TOLCAP_H
#define OPTCERT_TOLCAP_H

#include "optcert/muon.h"
#include "vectors.h"

/* How the caps compare with the tolerances they allowed: entries checked, those whose cap is
 * more than 1 + 2^-10 times the tolerance (or non-zero above a zero one), and the largest
 * cap / tolerance over non-zero tolerances. */
typedef struct oc_tolcap_stats {
    size_t entries, wider;
    double worst;
} oc_tolcap_stats;

/* VEC-TOL-2: every per-entry bound of a valid case at most the bound the family's derivation
 * gives for that entry, re-evaluated from the case's hyper-parameters, inputs and golden
 * trajectory (the descriptor's cap_tolerances); else OC_ERR_FORMAT naming path, tcId, output
 * and entry. Families without one (VEC-TOL-1's cap alone) and invalid cases: OC_OK. stats (may
 * be NULL) accumulates over the entries that pass. */
oc_status oc_tolcap_check(const char *path, const oc_case *c, oc_tolcap_stats *stats, oc_diag *d);

/* The cap_tolerances of Adam, SGD, Lion and their mixed-precision variants. */
oc_status oc_tolcap_elementwise(const char *path, const oc_case *c, oc_tolcap_stats *stats,
                                oc_diag *d);

/* The error model of an element-wise algorithm's step, in the algorithm's own file
 * (conformance/src/<fam>.c, with the constants of tolcap_model.h) and named by its descriptor's
 * .tolcap. */
typedef struct oc_tolcap_model {
    /* VEC-TOL-2: one element's step t; before[a], after[a] the golden stored values of
     * algorithm state a (p first) before and after the step (after: before any 16-bit
     * narrowing), g the gradient, E[a] the carried bound, replaced by the step's. */
    void (*element)(const oc_hparams *hp, int64_t t, const double *before, const double *after,
                    double g, double *E);
    /* STEP-TOL-2 (b): whether grad_sensitivity derives a bound for hp, and add[k] (zeroed by
     * the caller), what an error eg != 0 of the gradient g adds to output k's bound, from the
     * golden state before the step and its bounds E. */
    int (*sensitivity_defined)(const oc_hparams *hp);
    const char *sensitivity_domain; /* where it is defined, in words */
    void (*grad_sensitivity)(const oc_hparams *hp, int64_t t, const double *before,
                             const double *E, double g, double eg, double *add);
} oc_tolcap_model;

/* Pieces for the families whose outputs contain such steps (AdamW routes, the guarded step).
 * a is an element-wise algorithm (its .tolcap); before/after the golden values of the
 * algorithm's state (p first) before and after step t of one element with gradient g; E the
 * carried bounds (OC_MAX_STATE entries), replaced by the step's, widened by the slack. */
void oc_tolcap_element(const oc_algo *a, const oc_hparams *hp, int64_t t, const double *before,
                       const double *after, double g, double *E);
/* STEP-TOL-2 (b): whether oc_tolcap_grad_sensitivity derives a bound for algorithm a with hp
 * (a NULL: no). */
int oc_tolcap_sensitivity_defined(const oc_algo *a, const oc_hparams *hp);
/* STEP-TOL-2 (b): add[k], what an error eg of the gradient g adds to output k's bound. */
void oc_tolcap_grad_sensitivity(const oc_algo *a, const oc_hparams *hp, int64_t t,
                                const double *before, const double *E, double g, double eg,
                                double *add);
/* A bound widened by the slack of VEC-TOL-2 (and to the next binary64). */
double oc_tolcap_widen(double e);
/* MUON-TOL-1's p and m tables (outputs 0 and 1) of a Muon step over the blocks of part (NULL:
 * the whole matrix, MUON-BLK-TOL-1) from inputs p, m, g (conformance/src/muon.c): the
 * cap of the Muon step, its block step and a Muon route. */
oc_status oc_tolcap_muon_tables(const char *path, const oc_case *c, const oc_muon_hparams *hp,
                                const oc_muon_partition *part, const float *p, const float *m,
                                const float *g, oc_tolcap_stats *stats, oc_diag *d);
/* Tolerance i of expected output k (an entry's, or a table's element) against cap:
 * OC_ERR_FORMAT above it; counted in stats. */
oc_status oc_tolcap_within(const char *path, const oc_case *c, int k, size_t i, double cap,
                           oc_tolcap_stats *stats, oc_diag *d);
/* oc_tolcap_within for entry i of a per-entry output; an entry whose expected value is not
 * finite is judged exactly whatever its tolerance, so it is not capped (VEC-TOL-2). */
oc_status oc_tolcap_entry_within(const char *path, const oc_case *c, int k, size_t i, double cap,
                                 oc_tolcap_stats *stats, oc_diag *d);

#endif
