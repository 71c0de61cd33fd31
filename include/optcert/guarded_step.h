/* The whole optimizer step with inf/NaN detection (spec/draft/step.md): unscale every fp32 main
 * gradient, detect any non-finite value across all parameters of all sub-optimizers, update
 * the loss scaler, and either skip the entire step or run every sub-optimizer (the reference
 * Adam, SGD and Lion steps). */
#ifndef OPTCERT_GUARDED_STEP_H
#define OPTCERT_GUARDED_STEP_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/adam.h"
#include "optcert/lion.h"
#include "optcert/loss_scale.h"
#include "optcert/sgd.h"
#include "optcert/status.h"

typedef enum oc_guard_mode {
    OC_GUARD_SCALED = 0,  /* fp16 with a loss scaler: unscale, check, skip   STEP-UNSCALE-1 */
    OC_GUARD_UNCHECKED,   /* Megatron bf16 without a scaler: no check at all  STEP-BF16-1 */
    OC_GUARD_CHECKED,     /* bf16 with the explicit check, no scaling         STEP-BF16-1 */
    OC_GUARD_MODE_COUNT
} oc_guard_mode;

typedef enum oc_sub_kind { OC_SUB_ADAM = 0, OC_SUB_SGD, OC_SUB_LION, OC_SUB_KIND_COUNT } oc_sub_kind;

/* One parameter of a sub-optimizer: its fp32 master value, optimizer state and main gradient. */
typedef struct oc_guarded_param {
    size_t n;
    float *p;
    float *state[3]; /* Adam: m, v, vmax (NULL unless amsgrad); SGD: buf; Lion: m */
    float *grad;     /* the main gradient, scaled by the loss scale; unscaled in place */
} oc_guarded_param;

/* One sub-optimizer of a chained optimizer (a single optimizer is a chain of one). */
typedef struct oc_sub_optimizer {
    oc_sub_kind kind;
    union {
        oc_adam_hparams adam;
        oc_sgd_hparams sgd;
        oc_lion_hparams lion;
    } hp;
    int64_t step;            /* updates done so far; the next one is step + 1 */
    size_t nparams;
    oc_guarded_param *params;
} oc_sub_optimizer;

/* One iteration (STEP-UNSCALE-1 ... STEP-SKIP-1). scaler/scaler_state: used in OC_GUARD_SCALED
 * only (may be NULL otherwise). *position: the schedule position (samples), advanced by
 * `increment` only when the step is taken (STEP-SKIP-1). *skipped: 1 if the step was skipped.
 * On error (invalid input) nothing is written. */
oc_status oc_ref_guarded_step(oc_guard_mode mode, const oc_loss_scaler *scaler,
                              oc_loss_scale_state *scaler_state, size_t nsub,
                              oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                              int *skipped);

#endif
