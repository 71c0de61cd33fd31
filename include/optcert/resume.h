/* Resume certification (spec/checkpoint.md §5, RESUME-*): an element-wise optimizer's whole
 * state saved through the implementation's own serialisation, restored into fresh buffers and
 * continued. This header declares the reference's serialisation (ref/resume.c) and the state
 * operations of the plugin entry point oc_state_io_fn (include/optcert/impl.h). */
#ifndef OPTCERT_RESUME_H
#define OPTCERT_RESUME_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/loss_scale.h"
#include "optcert/mixed.h"
#include "optcert/status.h"

/* What one call of a state entry point does (VEC-ABI-3). */
typedef enum oc_state_op {
    OC_STATE_SIZE = 0, /* *len = the bytes a save of this state needs; nothing else read */
    OC_STATE_SAVE,     /* state and *steps_done to bytes[0 .. *len), *len = bytes written */
    OC_STATE_RESTORE   /* bytes[0 .. *len) to state and *steps_done */
} oc_state_op;

/* The `alg` of a loss scaler's state (spec/checkpoint.md RESUME-LS-1, VEC-ABI-3): hp is the
 * oc_loss_scaler, s is NULL, n is 1 and state[0] the oc_loss_scale_state. Not an element-wise
 * algorithm: a fixed value outside oc_algorithm's. */
#define OC_STATE_LOSS_SCALER ((oc_algorithm)256)

/* The buffers of a state, in the order of a case's outputs (VEC-FMT-16): state[0] the
 * parameter (s->param format), with a 16-bit parameter state[1] its fp32 master, then the
 * oc_algorithm_state_count state tensors (s->state format); each [n]. A loss scaler's state
 * (OC_STATE_LOSS_SCALER) is one buffer. -1 for an unknown algorithm or a NULL s. */
int oc_state_buffer_count(oc_algorithm alg, const void *hp, const oc_storage *s);

/* The reference serialisation (RESUME-REF-1, RESUME-LS-1): op as oc_state_op says; SAVE
 * fails with OC_ERR_BAD_SHAPE if *len is below the size, RESTORE with OC_ERR_FORMAT if the
 * bytes are not a save of this algorithm (loss-scale profile), storage and n. Nothing is
 * written on error. Its catalogued mistakes (RESUME-MUT-1) are conformance/mutants/resume.c. */
oc_status oc_ref_state_io(oc_state_op op, oc_algorithm alg, const void *hp, const oc_storage *s,
                          size_t n, void *const *state, int64_t *steps_done, void *bytes,
                          size_t *len);

#endif
