/* The catalogue of restore mistakes (spec/checkpoint.md RESUME-MUT-1): the reference
 * serialisation (ref/resume.c) with one mistake each. They live beside the harness, not in
 * ref/ (issue 21 item 3): the reference API has no mutant parameter. */
#ifndef OPTCERT_MUTANTS_RESUME_H
#define OPTCERT_MUTANTS_RESUME_H

#include "optcert/resume.h"

typedef enum oc_resume_mutant {
    OC_RESUME_CORRECT = 0,
    OC_RESUME_MUT_STEP_DROPPED,      /* the step count restored as 0             RESUME-STATE-1 */
    OC_RESUME_MUT_MAX_DROPPED,       /* AMSGrad's max restored as a fresh 0      RESUME-STATE-1 */
    OC_RESUME_MUT_MASTER_FROM_PARAM, /* master widened from the 16-bit param     RESUME-STATE-1 */
    OC_RESUME_MUT_GROWTH_DROPPED,    /* the growth tracker restored as a fresh 0 RESUME-LS-1 */
    OC_RESUME_MUT_HYSTERESIS_DROPPED, /* the hysteresis tracker restored fresh   RESUME-LS-1 */
    OC_RESUME_MUTANT_COUNT
} oc_resume_mutant;

/* The first of the loss scaler's restore mistakes (the others are the element-wise ones). */
#define OC_RESUME_FIRST_SCALER OC_RESUME_MUT_GROWTH_DROPPED

const char *oc_resume_mutant_name(oc_resume_mutant mu);

/* oc_ref_state_io with mistake mu in its restore (OC_RESUME_CORRECT: the reference itself). */
oc_status oc_resume_mutant_state_io(oc_resume_mutant mu, oc_state_op op, oc_algorithm alg,
                                    const void *hp, const oc_storage *s, size_t n,
                                    void *const *state, int64_t *steps_done, void *bytes,
                                    size_t *len);

#endif
