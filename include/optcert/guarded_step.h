/* The whole optimizer step with inf/NaN detection and global-norm clipping (spec/guarded_step.md):
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
#include "optcert/mixed.h" /* the element-wise algorithms' ACSL (buffers_ok) */
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
    /* Each sub-optimizer's own OptimizerConfig (STEP-CLIP-2; plugin option "groups"): with
     * per_sub 1, sub-optimizer k clips with sub_clip_grad[k] and checks sub_skip_threshold[k];
     * with per_sub 0 (all that older plugins know) every one has clip_grad and skip_threshold. */
    int per_sub;
    double sub_clip_grad[OC_GUARD_MAX_SUBS];
    double sub_skip_threshold[OC_GUARD_MAX_SUBS];
    /* Megatron's separate grad-norm group 'mtp' (STEP-GROUP-1; option "groups"): bit i set for
     * parameter i of the chain, the sub-optimizers' parameters counted in order. */
    uint64_t mtp_params;
    /* Megatron's loss scaler per sub-optimizer (STEP-SCALER-2; plugin option "scalers"): with
     * sub_scalers 1 in mode OC_GUARD_SCALED, scaler_state points to nsub states and
     * sub-optimizer k unscales with state k and updates it with its own found_inf; with 0 (all
     * that older plugins know) one state serves the chain (STEP-SCALER-1). */
    int sub_scalers;
} oc_guard_config;

/* One parameter of a sub-optimizer: its fp32 master value, optimizer state and main gradient. */
typedef struct oc_guarded_param {
    size_t n;
    float *p;
    float *state[3]; /* Adam: m, v, vmax (NULL unless amsgrad); SGD: buf; Lion: m */
    float *grad;     /* the main gradient, scaled by the loss scale; unscaled and clipped in place */
} oc_guarded_param;

/* One sub-optimizer of a chained optimizer (a single optimizer is a chain of one). */
typedef struct oc_sub_optimizer {
    oc_algorithm kind; /* its algorithm (optcert/mixed.h), whose member of hp is read */
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

/*@ // ACSL for proofs/ (NOTES.md there, section ref/guarded_step.c).
    // The buffers the step of the sub-optimizer's kind reads and writes, valid and pairwise
    // separated as that step requires (buffers_ok, optcert/mixed.h; a kind is its algorithm's
    // oc_algorithm value). The hyper-parameters are read through the cast the element-wise
    // step reads them through (WP's Typed+cast relates no union member to that cast:
    // proofs/NOTES.md).
    predicate param_ok(oc_sub_optimizer *s, oc_guarded_param *q) =
        q->n <= 0x10000000 &&
        \valid(q->p + (0 .. q->n - 1)) && \valid(q->grad + (0 .. q->n - 1)) &&
        buffers_ok(s->kind, (void *)&s->hp, q->n, q->p, q->state[0], q->state[1], q->state[2],
                   q->grad);
    // A sub-optimizer's parameters: the array NULL or readable, every parameter's buffers ok.
    predicate sub_ok(oc_sub_optimizer *s) =
        (s->params == \null || \valid_read(s->params + (0 .. s->nparams - 1))) &&
        (s->params != \null ==>
            \forall integer i; 0 <= i < s->nparams ==> param_ok(s, s->params + i));
    predicate subs_ok(oc_sub_optimizer *subs, integer nsub) =
        \forall integer k; 0 <= k < nsub ==> sub_ok(subs + k);
    // The parameters of subs[0 .. k-1], 0 <= k <= OC_GUARD_MAX_SUBS (STEP-CFG-1), written out
    // term by term: Eva does not evaluate recursive logic functions.
    logic integer params_of(oc_sub_optimizer *subs, integer k, integer j) =
        j < k ? subs[j].nparams : 0;
    logic integer params_upto(oc_sub_optimizer *subs, integer k) =
        params_of(subs, k, 0) + params_of(subs, k, 1) + params_of(subs, k, 2) +
        params_of(subs, k, 3) + params_of(subs, k, 4) + params_of(subs, k, 5) +
        params_of(subs, k, 6) + params_of(subs, k, 7);
    predicate params_bounded(oc_sub_optimizer *subs, integer nsub) =
        \forall integer k; 0 <= k <= nsub ==> params_upto(subs, k) <= OC_GUARD_MAX_PARAMS;
    // oc_guard_norm_and_clip's views are a local array, in the memory WP reads the
    // sub-optimizers from: the sub-optimizers' parameter counts, arrays, lengths and gradients
    // the same at L as at Pre, and every view's gradient valid.
    predicate params_kept{L, Pre}(oc_sub_optimizer *subs, integer nsub) =
        \forall integer k; 0 <= k < nsub ==>
            \at(subs[k].nparams, L) == \at(subs[k].nparams, Pre) &&
            \at(subs[k].params, L) == \at(subs[k].params, Pre);
    predicate grads_kept{L, Pre}(oc_sub_optimizer *subs, integer nsub) =
        \forall integer k, i; 0 <= k < nsub && 0 <= i < \at(subs[k].nparams, Pre) ==>
            \at(subs[k].params[i].n, L) == \at(subs[k].params[i].n, Pre) &&
            \at(subs[k].params[i].grad, L) == \at(subs[k].params[i].grad, Pre);
    predicate views_valid{L}(oc_clip_view *views, integer nviews) =
        \forall integer v; 0 <= v < nviews ==>
            \valid{L}(\at(views[v].grad, L) + (0 .. \at(views[v].length, L) - 1));
    // What oc_guard_norm_and_clip needs of the sub-optimizers: every parameter's gradient writable.
    predicate grads_ok(oc_sub_optimizer *subs, integer nsub) =
        \forall integer k; 0 <= k < nsub ==>
            (subs[k].nparams > 0 ==>
                subs[k].params != \null &&
                \valid_read(subs[k].params + (0 .. subs[k].nparams - 1))) &&
            \forall integer i; 0 <= i < subs[k].nparams ==>
                \valid(subs[k].params[i].grad + (0 .. subs[k].params[i].n - 1));
    // What check_sub establishes of a sub-optimizer.
    predicate sub_checked(oc_sub_optimizer *s) =
        0 <= s->step < INT64_MAX && (s->nparams > 0 ==> s->params != \null) &&
        0 <= s->kind < OC_ALG_COUNT;
    predicate subs_checked(oc_sub_optimizer *subs, integer nsub) =
        nsub <= OC_GUARD_MAX_SUBS && params_bounded(subs, nsub) &&
        \forall integer k; 0 <= k < nsub ==> sub_checked(subs + k);
    // The loss-scaler states the step reads in mode OC_GUARD_SCALED (STEP-SCALER-2).
    logic integer scaler_count(oc_guard_config *cfg, integer nsub) =
        cfg->sub_scalers != 0 ? nsub : 1;
    // What oc_guarded_step_check establishes when it accepts the step (STEP-ERR-1).
    predicate step_accepted(oc_guard_config *cfg, oc_loss_scaler *scaler,
                            oc_loss_scale_state *scaler_state, integer nsub,
                            oc_sub_optimizer *subs, int64_t *position, integer increment,
                            float *grad_norm, oc_step_outcome *outcome) =
        cfg != \null && position != \null && grad_norm != \null && outcome != \null &&
        (nsub > 0 ==> subs != \null) && 0 <= cfg->mode < OC_GUARD_MODE_COUNT &&
        (cfg->mode == OC_GUARD_SCALED ==> scaler != \null && scaler_state != \null) &&
        0 <= cfg->sub_scalers <= 1 && 0 <= increment && 0 <= *position <= INT64_MAX - increment && subs_checked(subs, nsub);
*/

/* STEP-CLIP-1: the clipping configuration of the step (profile megatron, one rank). */
/*@ requires valid_cfg: \valid_read(cfg);
    assigns \result \from *cfg;
*/
oc_clip_config oc_guard_clip_config(const oc_guard_config *cfg);

/* STEP-ERR-1: every check oc_ref_guarded_step makes before it writes anything, in its order
 * (pointers, mode, position and increment, CLIP-CFG-1, each sub-optimizer's hyper-parameters
 * and buffers, the loss scaler and its state); OC_OK when the step cannot fail. */
/*@ requires cfg_ok: cfg == \null || \valid_read(cfg);
    requires scaler_ok: scaler == \null || \valid_read(scaler);
    requires state_ok: scaler_state == \null || cfg == \null ||
             \valid_read(scaler_state + (0 .. scaler_count(cfg, nsub) - 1));
    requires position_ok: position == \null || \valid_read(position);
    requires subs_ok: subs == \null || (\valid_read(subs + (0 .. nsub - 1)) && subs_ok(subs, nsub));
    assigns \nothing;
    ensures accepted: \result == OC_OK ==>
            step_accepted(cfg, scaler, scaler_state, nsub, subs, position, increment, grad_norm,
                          outcome);
*/
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
/*@ requires cfg_ok: cfg == \null || \valid_read(cfg);
    requires scaler_ok: scaler == \null || \valid_read(scaler);
    requires state_ok: scaler_state == \null || cfg == \null ||
             \valid(scaler_state + (0 .. scaler_count(cfg, nsub) - 1));
    requires position_ok: position == \null || \valid(position);
    requires norm_ok: grad_norm == \null || \valid(grad_norm);
    requires outcome_ok: outcome == \null || \valid(outcome);
    requires subs_ok: subs == \null || (\valid(subs + (0 .. nsub - 1)) && subs_ok(subs, nsub));
    // The integers the step writes (the scaler state, the counters, the position) are
    // separated from the integers it reads afterwards (the Typed model has one integer memory).
    requires sep_state_position: scaler_state != \null && cfg != \null && position != \null ==>
        \separated(scaler_state + (0 .. scaler_count(cfg, nsub) - 1), position);
    requires sep_state_cfg: scaler_state != \null && cfg != \null ==>
        \separated(scaler_state + (0 .. scaler_count(cfg, nsub) - 1), cfg);
    requires sep_subs_position:
        subs != \null && position != \null ==> \separated(subs + (0 .. nsub - 1), position);
    requires sep_subs_state: subs != \null && scaler_state != \null && cfg != \null ==>
             \separated(subs + (0 .. nsub - 1), scaler_state + (0 .. scaler_count(cfg, nsub) - 1));
    requires sep_subs_cfg:
        subs != \null && cfg != \null ==> \separated(subs + (0 .. nsub - 1), cfg);
    requires sep_params: subs != \null ==>
             \forall integer k; 0 <= k < nsub && subs[k].params != \null ==>
             \separated(subs[k].params + (0 .. subs[k].nparams - 1), subs + (0 .. nsub - 1)) &&
             (scaler_state != \null && cfg != \null ==>
                 \separated(subs[k].params + (0 .. subs[k].nparams - 1),
                            scaler_state + (0 .. scaler_count(cfg, nsub) - 1)));
    // (the float buffers as open ranges: an over-approximation that keeps WP's goals small)
    assigns *position, *grad_norm, *outcome, scaler_state[0 .. scaler_count(cfg, nsub) - 1],
            errno, subs[0 .. nsub - 1].step,
            subs[0 .. nsub - 1].params[..].grad[..], subs[0 .. nsub - 1].params[..].p[..],
            subs[0 .. nsub - 1].params[..].state[0 .. 2][..];
*/
oc_status oc_ref_guarded_step(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                              oc_loss_scale_state *scaler_state, size_t nsub,
                              oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                              float *grad_norm, oc_step_outcome *outcome);

/* The stages of oc_ref_guarded_step (STEP-ORDER-1), for a step oc_guarded_step_check accepts
 * (the catalogued mistakes, conformance/mutants/guarded_step.c, recompose the step from
 * them). A set of sub-optimizers is a bit mask: bit k for sub-optimizer k.
 */

/* STEP-UNSCALE-1, STEP-SCALER-2: inv_scale[k], the factor of sub-optimizer k's gradients: 1
 * unless scaled, else the inverse of its own scaler's scale (sub_scalers) or of the one. */
/*@ requires valid_cfg: \valid_read(cfg) && nsub <= OC_GUARD_MAX_SUBS;
    requires valid_states: cfg->mode == OC_GUARD_SCALED ==>
             \valid_read(states + (0 .. scaler_count(cfg, nsub) - 1));
    requires valid_out: \valid(inv_scale + (0 .. nsub - 1));
    assigns inv_scale[0 .. nsub - 1];
*/
void oc_guard_inverse_scales(const oc_guard_config *cfg, const oc_loss_scale_state *states,
                             size_t nsub, float *inv_scale);

/* STEP-UNSCALE-1, STEP-FOUND-INF-1: every gradient checked for inf/NaN and, if scale_them,
 * sub-optimizer k's multiplied by inv_scale[k]; returns the sub-optimizers holding a value that
 * was not finite. */
/*@ requires valid_subs: \valid_read(subs + (0 .. nsub - 1));
    requires valid_inv: \valid_read(inv_scale + (0 .. nsub - 1));
    requires checked: subs_ok(subs, nsub) && subs_checked(subs, nsub);
    assigns subs[0 .. nsub - 1].params[..].grad[..];
*/
unsigned oc_guard_unscale(size_t nsub, oc_sub_optimizer *subs, const float *inv_scale,
                          int scale_them);

/* STEP-SCALER-1, STEP-SCALER-2: the loss scaler's update with this iteration's found_inf, `bad`
 * (bit k: sub-optimizer k held a non-finite value): the one state with any bit or, with
 * sub_scalers, state k with bit k. */
/*@ requires valid_cfg: \valid_read(cfg) && \valid_read(scaler) && nsub <= OC_GUARD_MAX_SUBS;
    requires valid_states: \valid(states + (0 .. scaler_count(cfg, nsub) - 1));
    assigns states[0 .. scaler_count(cfg, nsub) - 1];
*/
void oc_guard_update_scalers(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                             oc_loss_scale_state *states, size_t nsub, unsigned bad);

/* STEP-CLIP-1, STEP-CLIP-2, STEP-GROUP-1: *norm = the global norm of the gradients of the
 * sub-optimizers in `which` outside the 'mtp' group and, for each of them whose clip_grad is
 * > 0, its gradients clipped with it (CLIP-CHAIN-1), those in the 'mtp' group with the norm of
 * that group's gradients. */
/*@ requires valid_cfg_norm: \valid_read(cfg) && \valid(norm);
    requires valid_subs: \valid_read(subs + (0 .. nsub - 1));
    requires grads: nsub <= OC_GUARD_MAX_SUBS && params_bounded(subs, nsub) && grads_ok(subs, nsub);
    assigns *norm, subs[0 .. nsub - 1].params[..].grad[..];
*/
oc_status oc_guard_norm_and_clip(const oc_guard_config *cfg, size_t nsub, oc_sub_optimizer *subs,
                                 unsigned which, float *norm);

/* STEP-CLIP-2: sub-optimizer k's clip_grad and grad_norm_skip_threshold. */
/*@ requires valid_cfg: \valid_read(cfg) && k < OC_GUARD_MAX_SUBS;
    assigns \nothing;
*/
double oc_guard_sub_clip_grad(const oc_guard_config *cfg, size_t k);
/*@ requires valid_cfg: \valid_read(cfg) && k < OC_GUARD_MAX_SUBS;
    assigns \nothing;
*/
double oc_guard_sub_skip_threshold(const oc_guard_config *cfg, size_t k);

/* CLIP-SKIP-1, STEP-CLIP-2: whether the binary32 main norm skips the step: it exceeds the
 * finite threshold of a sub-optimizer that has a parameter in the main norm (STEP-GROUP-1). */
/*@ requires valid_cfg: \valid_read(cfg);
    requires valid_subs: \valid_read(subs + (0 .. nsub - 1));
    requires checked: subs_checked(subs, nsub);
    assigns \nothing;
*/
int oc_guard_norm_skips(const oc_guard_config *cfg, size_t nsub, const oc_sub_optimizer *subs,
                        float norm);

/* STEP-TAKE-1, STEP-SKIP-1: the sub-optimizers in `stepping` take their step, the others
 * keep their counters. */
/*@ requires valid_subs: \valid(subs + (0 .. nsub - 1));
    requires checked: subs_ok(subs, nsub) && subs_checked(subs, nsub);
    requires sep_params: \forall integer k; 0 <= k < nsub && subs[k].params != \null ==>
             \separated(subs[k].params + (0 .. subs[k].nparams - 1), subs + (0 .. nsub - 1));
    assigns errno, subs[0 .. nsub - 1].step, subs[0 .. nsub - 1].params[..].p[..],
            subs[0 .. nsub - 1].params[..].state[0 .. 2][..];
*/
oc_status oc_guard_step_subs(size_t nsub, oc_sub_optimizer *subs, unsigned stepping);

#endif
