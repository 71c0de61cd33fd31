/* The whole optimizer step with inf/NaN detection and global-norm clipping (spec/step.md):
 * unscale every fp32 main gradient, detect any non-finite value across all parameters of all
 * sub-optimizers, update the loss scaler, skip the entire step or clip every gradient with one
 * global norm (ref/clip.c), and run every sub-optimizer (the reference Adam, SGD and Lion steps). */
#ifndef OPTCERT_GUARDED_STEP_H
#define OPTCERT_GUARDED_STEP_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/adam.h"
#include "optcert/clip.h"
#include "optcert/lion.h"
#include "optcert/loss_scale.h"
#include "optcert/sgd.h"
#include "optcert/status.h"

#define OC_GUARD_MAX_SUBS OC_CLIP_MAX_OPTIMIZERS /* sub-optimizers of one chain (CLIP-VIEW-1) */
#define OC_GUARD_MAX_PARAMS 64 /* parameters of all sub-optimizers together (STEP-CFG-1) */

typedef enum oc_guard_mode {
    OC_GUARD_SCALED = 0,  /* fp16 with a loss scaler: unscale, check, skip   STEP-UNSCALE-1 */
    OC_GUARD_UNCHECKED,   /* Megatron bf16 without a scaler: no check at all  STEP-BF16-1 */
    OC_GUARD_CHECKED,     /* bf16 with the explicit check, no scaling         STEP-BF16-1 */
    OC_GUARD_MODE_COUNT
} oc_guard_mode;

/* The step's configuration (STEP-CFG-1): Megatron's OptimizerConfig fields. */
typedef struct oc_guard_config {
    oc_guard_mode mode;
    double clip_grad;      /* max norm; <= 0 disables clipping (CLIP-DISABLE-1) */
    int inf_norm;          /* 0: 2-norm, 1: inf-norm */
    double skip_threshold; /* grad_norm_skip_threshold (+inf: never skip, CLIP-SKIP-1) */
} oc_guard_config;

typedef enum oc_sub_kind { OC_SUB_ADAM = 0, OC_SUB_SGD, OC_SUB_LION, OC_SUB_KIND_COUNT } oc_sub_kind;

/* One parameter of a sub-optimizer: its fp32 master value, optimizer state and main gradient. */
typedef struct oc_guarded_param {
    size_t n;
    float *p;
    float *state[3]; /* Adam: m, v, vmax (NULL unless amsgrad); SGD: buf; Lion: m */
    float *grad;     /* the main gradient, scaled by the loss scale; unscaled and clipped in place */
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

/* What happened to the step (STEP-SKIP-1, STEP-CLIP-1). */
typedef enum oc_step_outcome {
    OC_STEP_TAKEN = 0,
    OC_STEP_SKIPPED_INF,  /* found_inf: a gradient was not finite */
    OC_STEP_SKIPPED_NORM, /* the global norm exceeded grad_norm_skip_threshold */
    OC_STEP_OUTCOME_COUNT
} oc_step_outcome;

/* STEP-CLIP-1: the clipping configuration of the step (profile megatron, one rank). */
oc_clip_config oc_guard_clip_config(const oc_guard_config *cfg);

/* STEP-ERR-1: every check oc_ref_guarded_step makes before it writes anything, in its order
 * (pointers, mode, position and increment, CLIP-CFG-1, each sub-optimizer's hyper-parameters
 * and buffers, the loss scaler and its state); OC_OK when the step cannot fail. */
oc_status oc_guarded_step_check(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                                const oc_loss_scale_state *scaler_state, size_t nsub,
                                const oc_sub_optimizer *subs, const int64_t *position,
                                int64_t increment, const float *grad_norm,
                                const oc_step_outcome *outcome);

/* One iteration (STEP-ORDER-1). scaler/scaler_state: used in OC_GUARD_SCALED only (may be NULL
 * otherwise). *position: the schedule position (samples), advanced by `increment` only when
 * the step is taken (STEP-SCHED-1). *grad_norm: the global norm before clipping (0 when it is
 * not computed: clipping disabled or an inf skip). *outcome: taken or why skipped. On error
 * nothing is written, not even the gradients (STEP-ERR-1). */
oc_status oc_ref_guarded_step(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                              oc_loss_scale_state *scaler_state, size_t nsub,
                              oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                              float *grad_norm, oc_step_outcome *outcome);

/* The stages of oc_ref_guarded_step (STEP-ORDER-1), for a step oc_guarded_step_check accepts
 * (the catalogued mistakes, conformance/mutants/guarded_step.c, recompose the step from
 * them). A set of sub-optimizers is a bit mask: bit k for sub-optimizer k.
 *
 * STEP-UNSCALE-1: Megatron's inv_scale = scale.double().reciprocal().float(). */
float oc_guard_inverse_scale(const oc_loss_scale_state *state);

/* STEP-UNSCALE-1, STEP-FOUND-INF-1: every gradient checked for inf/NaN and, if scale_them,
 * multiplied by inv_scale; returns the sub-optimizers holding a value that was not finite. */
unsigned oc_guard_unscale(size_t nsub, oc_sub_optimizer *subs, float inv_scale, int scale_them);

/* STEP-CLIP-1: *norm = the global norm of the gradients of the sub-optimizers in `which`
 * and, with clip_grad > 0, those gradients clipped with it (CLIP-CHAIN-1). */
oc_status oc_guard_norm_and_clip(const oc_guard_config *cfg, size_t nsub, oc_sub_optimizer *subs,
                                 unsigned which, float *norm);

/* CLIP-SKIP-1: whether the binary32 norm skips the step. */
int oc_guard_norm_skips(const oc_guard_config *cfg, float norm);

/* STEP-TAKE-1, STEP-SKIP-1: the sub-optimizers in `stepping` take their step, the others
 * keep their counters. */
oc_status oc_guard_step_subs(size_t nsub, oc_sub_optimizer *subs, unsigned stepping);

#endif
