/* The Adafactor mutant catalogue (spec/adafactor.md §6): variant steps built from the
 * reference's element functions, each with one catalogued mistake. They live beside the
 * harness, not in ref/ (issue 16 item 3): the reference API has no mutant parameter. */
#ifndef OPTCERT_MUTANTS_ADAFACTOR_H
#define OPTCERT_MUTANTS_ADAFACTOR_H

#include "optcert/adafactor.h"

typedef enum oc_adafactor_mutant {
    OC_ADAFACTOR_CORRECT = 0,
    OC_ADAFACTOR_MUT_NORMALISE_BY_SUM,
    OC_ADAFACTOR_MUT_NO_NORMALISER,
    OC_ADAFACTOR_MUT_NO_SQRT,
    OC_ADAFACTOR_MUT_NO_CLIP,
    OC_ADAFACTOR_MUT_CLIP_ALWAYS,
    OC_ADAFACTOR_MUT_BETA2_NEXT_STEP,
    OC_ADAFACTOR_MUT_NO_PARAM_SCALE,
    OC_ADAFACTOR_MUT_RHO_UNCAPPED,
    OC_ADAFACTOR_MUT_MOMENTUM_BEFORE_STEP_SIZE,
    OC_ADAFACTOR_MUT_EPS1_SWAPPED,
    OC_ADAFACTOR_MUT_DECAY_TORCH_FORM,
    OC_ADAFACTOR_MUTANT_COUNT
} oc_adafactor_mutant;

const char *oc_adafactor_mutant_name(oc_adafactor_mutant mu);

/* oc_ref_adafactor_step with mistake mu (OC_ADAFACTOR_CORRECT: the reference itself). */
oc_status oc_adafactor_mutant_step(oc_adafactor_mutant mu, const oc_adafactor_hparams *hp,
                                   oc_adafactor_shape sh, int64_t step, oc_adafactor_state *s,
                                   const float *g, double *work, size_t work_len);

#endif
