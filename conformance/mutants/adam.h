/* The Adam mutant catalogue (spec/adam.md §5): variant steps built from the reference's
 * pieces (include/optcert/adam.h), each with one catalogued mistake. They live beside the
 * harness, not in ref/ (issue 16 item 3): the reference API has no mutant parameter. */
#ifndef OPTCERT_MUTANTS_ADAM_H
#define OPTCERT_MUTANTS_ADAM_H

#include "optcert/adam.h"

typedef enum oc_adam_mutant {
    OC_ADAM_CORRECT = 0,
    OC_ADAM_MUT_EPS_INSIDE_SQRT,
    OC_ADAM_MUT_NO_BIAS_CORRECTION,
    OC_ADAM_MUT_BIAS_CORRECTION_T_MINUS_1,
    OC_ADAM_MUT_BIAS_CORRECTION_T_PLUS_1,
    OC_ADAM_MUT_L2_INSTEAD_OF_DECOUPLED,
    OC_ADAM_MUT_DECAY_NOT_SCALED_BY_LR,
    OC_ADAM_MUT_DECAY_AFTER_UPDATE,
    OC_ADAM_MUT_EPS_HAT,
    OC_ADAM_MUT_BETAS_SWAPPED,
    OC_ADAM_MUT_V_WITH_ABS_G,
    OC_ADAM_MUT_AMSGRAD_MAX_OF_VHAT,
    OC_ADAM_MUTANT_COUNT
} oc_adam_mutant;

/* Stable short name and one-line description of a mutant (NULL if out of range). */
const char *oc_adam_mutant_name(oc_adam_mutant mu);
const char *oc_adam_mutant_description(oc_adam_mutant mu);

/* oc_ref_adam_step with mistake mu (OC_ADAM_CORRECT: the reference itself); on an input the
 * reference rejects, the reference's status and nothing written. */
oc_status oc_adam_mutant_step(oc_adam_mutant mu, const oc_adam_hparams *hp, int64_t step,
                              size_t n, float *p, float *m, float *v, float *vmax,
                              const float *g);

#endif
