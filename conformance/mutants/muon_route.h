/* The mixed Muon + AdamW mutant catalogue (spec/muon.md §11): mistaken routes and decays built
 * on the reference's step with a given route (oc_routed_step_as, include/optcert/muon_route.h),
 * beside the harness, not in ref/ (issue 16 item 3, as conformance/mutants/adam.h). */
#ifndef OPTCERT_MUTANTS_MUON_ROUTE_H
#define OPTCERT_MUTANTS_MUON_ROUTE_H

#include "optcert/muon_route.h"

typedef enum oc_route_mutant {
    OC_ROUTE_CORRECT = 0,
    OC_ROUTE_MUT_HEAD_BY_NAME,      /* 2-D and "embed" not in the name: the head goes to Muon */
    OC_ROUTE_MUT_ATTRIBUTE_IGNORED, /* every 2-D parameter to Muon (embedding, head included) */
    OC_ROUTE_MUT_GAIN_TO_MUON,      /* 1-D parameters to Muon as 1 x n matrices */
    OC_ROUTE_MUT_NON_2D_TO_MUON,    /* 3-D / 4-D to Muon flattened to dims[0] x rest */
    OC_ROUTE_MUT_DECAY_ON_GAINS,    /* AdamW decay also on 1-D parameters and biases */
    OC_ROUTE_MUTANT_COUNT
} oc_route_mutant;

/* Stable short name of a mutant (NULL if out of range). */
const char *oc_route_mutant_name(oc_route_mutant mu);

/* oc_ref_routed_step with mistake mu (OC_ROUTE_CORRECT: the reference itself); on a parameter
 * the reference rejects, the reference's status and nothing written. */
oc_status oc_route_mutant_step(oc_route_mutant mu, const oc_route_hparams *hp,
                               const oc_param_info *info, int64_t step, float *p, float *m,
                               float *v, const float *g, oc_route *route, double *work,
                               size_t work_len, float *scratch, size_t scratch_len);

#endif
