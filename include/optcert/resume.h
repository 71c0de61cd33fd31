/* Resume certification (spec/checkpoint.md §5, RESUME-*): an element-wise optimizer's whole
 * state saved through the implementation's own serialisation, restored into fresh buffers and
 * continued. This header declares the reference's serialisation (ref/resume.c) and the state
 * operations of the plugin entry point oc_state_io_fn (include/optcert/impl.h). */
#ifndef OPTCERT_RESUME_H
#define OPTCERT_RESUME_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/mixed.h"
#include "optcert/status.h"

/* What one call of a state entry point does (VEC-ABI-3). */
typedef enum oc_state_op {
    OC_STATE_SIZE = 0, /* *len = the bytes a save of this state needs; nothing else read */
    OC_STATE_SAVE,     /* state and *steps_done to bytes[0 .. *len), *len = bytes written */
    OC_STATE_RESTORE   /* bytes[0 .. *len) to state and *steps_done */
} oc_state_op;

/* The catalogue of restore mistakes (spec/checkpoint.md RESUME-MUT-1). */
typedef enum oc_resume_mutant {
    OC_RESUME_CORRECT = 0,
    OC_RESUME_MUT_STEP_DROPPED,    /* the step count restored as 0           RESUME-STATE-1 */
    OC_RESUME_MUT_MAX_DROPPED,     /* AMSGrad's max restored as a fresh 0    RESUME-STATE-1 */
    OC_RESUME_MUT_MASTER_FROM_PARAM, /* master widened from the 16-bit param RESUME-STATE-1 */
    OC_RESUME_MUTANT_COUNT
} oc_resume_mutant;

const char *oc_resume_mutant_name(oc_resume_mutant mu);

/* The buffers of a state, in the order of a case's outputs (VEC-FMT-16): state[0] the
 * parameter (s->param format), with a 16-bit parameter state[1] its fp32 master, then the
 * oc_algorithm_state_count state tensors (s->state format); each [n]. */
int oc_state_buffer_count(oc_algorithm alg, const void *hp, const oc_storage *s);

/* The reference serialisation (RESUME-REF-1): op as oc_state_op says; SAVE fails with
 * OC_ERR_BAD_SHAPE if *len is below the size, RESTORE with OC_ERR_FORMAT if the bytes are
 * not a save of this algorithm, storage and n. Nothing is written on error. */
oc_status oc_ref_state_io(oc_state_op op, oc_algorithm alg, const void *hp, const oc_storage *s,
                          size_t n, void *const *state, int64_t *steps_done, void *bytes,
                          size_t *len, oc_resume_mutant mu);

#endif
