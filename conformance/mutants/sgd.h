/* The SGD mutant catalogue (spec/sgd.md §5): variant steps built from the reference's pieces
 * (include/optcert/sgd.h), each with one catalogued mistake (issue 16 item 3, as
 * conformance/mutants/adam.h). */
#ifndef OPTCERT_MUTANTS_SGD_H
#define OPTCERT_MUTANTS_SGD_H

#include "optcert/sgd.h"

typedef enum oc_sgd_mutant {
    OC_SGD_CORRECT = 0,
    OC_SGD_MUT_NESTEROV_USES_BUFFER,
    OC_SGD_MUT_DAMPENING_ON_FIRST_STEP,
    OC_SGD_MUT_LERP_WEIGHTS_SWAPPED,
    OC_SGD_MUT_MAXIMIZE_AFTER_DECAY,
    OC_SGD_MUT_DECAY_SKIPPED_WITHOUT_MOMENTUM,
    OC_SGD_MUTANT_COUNT
} oc_sgd_mutant;

const char *oc_sgd_mutant_name(oc_sgd_mutant mu);
const char *oc_sgd_mutant_description(oc_sgd_mutant mu);

/* oc_ref_sgd_step with mistake mu (OC_SGD_CORRECT: the reference itself); on an input the
 * reference rejects, the reference's status and nothing written. */
oc_status oc_sgd_mutant_step(oc_sgd_mutant mu, const oc_sgd_hparams *hp, int64_t step, size_t n,
                             float *p, float *buf, const float *g);

#endif
