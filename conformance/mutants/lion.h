/* The Lion mutant catalogue (spec/lion.md §5): variant steps built from the reference's pieces
 * (include/optcert/lion.h), each with one catalogued mistake (issue 16 item 3, as
 * conformance/mutants/adam.h). */
#ifndef OPTCERT_MUTANTS_LION_H
#define OPTCERT_MUTANTS_LION_H

#include "optcert/lion.h"

typedef enum oc_lion_mutant {
    OC_LION_CORRECT = 0,
    OC_LION_MUT_MOMENTUM_BEFORE_SIGN,
    OC_LION_MUT_BETAS_SWAPPED,
    OC_LION_MUT_DECAY_NOT_SCALED_BY_LR,
    OC_LION_MUT_COUPLED_DECAY,
    OC_LION_MUT_SIGN_ZERO_IS_ONE,
    OC_LION_MUT_SIGN_NAN_IS_NAN,
    OC_LION_MUTANT_COUNT
} oc_lion_mutant;

const char *oc_lion_mutant_name(oc_lion_mutant mu);
const char *oc_lion_mutant_description(oc_lion_mutant mu);

/* oc_ref_lion_step with mistake mu (OC_LION_CORRECT: the reference itself); on an input the
 * reference rejects, the reference's status and nothing written. */
oc_status oc_lion_mutant_step(oc_lion_mutant mu, const oc_lion_hparams *hp, int64_t step,
                              size_t n, float *p, float *m, const float *g);

#endif
