/* VEC-TOL-2: tolerances capped by the spec's derivation (conformance/src/tolcap.c). */
#ifndef OPTCERT_TOLCAP_H
#define OPTCERT_TOLCAP_H

#include "vectors.h"

/* How the caps compare with the tolerances they allowed: entries checked, those whose cap is
 * more than 1 + 2^-10 times the tolerance (or non-zero above a zero one), and the largest
 * cap / tolerance over non-zero tolerances. */
typedef struct oc_tolcap_stats {
    size_t entries, wider;
    double worst;
} oc_tolcap_stats;

/* VEC-TOL-2: every per-entry bound of a valid Adam, SGD or Lion case (fp32 or mixed storage) at
 * most the bound the family's derivation gives for that entry, re-evaluated from the case's
 * hyper-parameters, inputs and golden trajectory; else OC_ERR_FORMAT naming path, tcId, output
 * and entry. Other algorithms: OC_OK. stats (may be NULL) accumulates over the entries that pass. */
oc_status oc_tolcap_check(const char *path, const oc_case *c, oc_tolcap_stats *stats, oc_diag *d);

#endif
