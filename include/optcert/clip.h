/* Global-norm gradient clipping with deduplication (spec/clip.md): the norm of a logical
 * parameter set computed from per-rank views (tensor-parallel shards and duplicates, pipeline
 * stages with a shared embedding, data-parallel replicas or ZeRO-1 shards, sub-optimizers of a
 * chained optimizer) and the clipping of every view's gradient. */
#ifndef OPTCERT_CLIP_H
#define OPTCERT_CLIP_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"
#include <string.h> /* for the ACSL below (valid_read_string) */

#define OC_CLIP_MAX_OPTIMIZERS 8 /* sub-optimizers of a chained optimizer (CLIP-VIEW-1) */
#define OC_CLIP_EPS 1.0e-6       /* CLIP-COEF-1: both libraries add the Python float 1e-6 */

typedef enum oc_clip_profile {
    OC_CLIP_MEGATRON = 0, /* clip_grad_norm_fp32: coeff max/(norm+1e-6) applied if < 1  CLIP-PROF-MEGATRON */
    OC_CLIP_TORCH,        /* torch.nn.utils.clip_grad_norm_: coeff clamped at 1, always applied CLIP-PROF-TORCH */
    OC_CLIP_PROFILE_COUNT
} oc_clip_profile;

/* The clipping configuration (CLIP-CFG-1). */
typedef struct oc_clip_config {
    oc_clip_profile profile;
    double max_norm;        /* Megatron clip_grad (<= 0 disables), torch max_norm */
    int inf_norm;           /* 0: 2-norm, 1: inf-norm */
    double skip_threshold;  /* Megatron grad_norm_skip_threshold (+inf: never); torch: unused */
    int distributed;        /* ZeRO-1 distributed optimizer: dp ranks hold disjoint shards */
    int32_t tp_size, pp_size, dp_size; /* >= 1 */
} oc_clip_config;

/* One rank's piece of one logical parameter's gradient (CLIP-VIEW-1). */
typedef struct oc_clip_view {
    int32_t tp_rank, pp_stage, dp_rank; /* the rank holding it */
    int32_t optimizer;       /* sub-optimizer of a chained optimizer (0 if not chained) */
    int tensor_parallel;     /* the parameter is split over TP ranks (tensor_model_parallel) */
    int shared;              /* the copy of a shared parameter that is not counted (p.shared) */
    size_t length;           /* elements */
    float *grad;             /* length fp32 values, clipped in place */
} oc_clip_view;

/*@ // The views as the caller passes them: views NULL or readable, each gradient NULL or
    // readable (writable) over its length.
    predicate views_readable(oc_clip_view *views, integer n) =
        views == \null || \valid_read(views + (0 .. n - 1));
    predicate grads_readable(oc_clip_view *views, integer n) =
        views != \null ==> \forall integer i; 0 <= i < n ==> views[i].grad != \null ==>
            \valid_read(views[i].grad + (0 .. views[i].length - 1));
    predicate grads_writable(oc_clip_view *views, integer n) =
        views != \null ==> \forall integer i; 0 <= i < n ==> views[i].grad != \null ==>
            \valid(views[i].grad + (0 .. views[i].length - 1));
    // What check() establishes of the views (CLIP-VIEW-1): a sub-optimizer index in range,
    // a gradient for every non-empty view.
    predicate views_checked(oc_clip_view *views, integer n) =
        (n > 0 ==> views != \null) &&
        \forall integer i; 0 <= i < n ==>
            0 <= views[i].optimizer < OC_CLIP_MAX_OPTIMIZERS &&
            (views[i].length > 0 ==> views[i].grad != \null);
    // The arguments of the clipping step, each pointer NULL or valid; `skipped` separated
    // from the integers it could otherwise overwrite (the Typed model has one integer memory).
    predicate step_args(oc_clip_config *c, integer nviews, oc_clip_view *views,
                        float *total_norm, int *skipped) =
        (c == \null || \valid_read(c)) &&
        views_readable(views, nviews) && grads_writable(views, nviews) &&
        (total_norm == \null || \valid(total_norm)) &&
        (skipped == \null || \valid(skipped)) &&
        (c != \null && skipped != \null ==> \separated(skipped, c)) &&
        (views != \null && skipped != \null ==> \separated(skipped, views + (0 .. nviews - 1)));
*/

/*@ requires name_ok: name == \null || valid_read_string(name);
    requires out_ok: out == \null || \valid(out);
    assigns *out;
    ensures known: \result == OC_OK ==> 0 <= *out < OC_CLIP_PROFILE_COUNT; */
oc_status oc_clip_profile_parse(const char *name, oc_clip_profile *out);

/* Checks a configuration (CLIP-CFG-1) and views (CLIP-VIEW-1). */
/*@ requires c_ok: c == \null || \valid_read(c);
    requires views_ok: views_readable(views, nviews) && grads_readable(views, nviews);
    assigns \nothing;
*/
oc_status oc_clip_check(const oc_clip_config *c, size_t nviews, const oc_clip_view *views);

/* Whether a view's elements enter the norm (CLIP-DEDUP-SHARED-1, CLIP-DEDUP-TP-1,
 * CLIP-DEDUP-DP-1): not the shared copy, sharded over TP or on TP rank 0, and, without the
 * distributed optimizer, on DP rank 0 (every DP rank holds the same full gradients). */
/*@ requires c_ok: c == \null || \valid_read(c);
    requires v_ok: v == \null || \valid_read(v);
    assigns \nothing;
*/
int oc_clip_view_counted(const oc_clip_config *c, const oc_clip_view *v);

/* The pieces of the clipping step, for a configuration and views oc_clip_check accepts (the
 * catalogued mistakes, conformance/mutants/clip.c, recompose the step from them).
 *
 * The norm of the counted elements of every sub-optimizer in binary64 (CLIP-NORM-1 or
 * CLIP-NORM-INF-1, CLIP-CHAIN-1): NaN if a counted element is NaN, else +inf if one is
 * infinite (STEP-NONFINITE-1). */
/*@ requires valid_c: \valid_read(c);
    requires views_ok: views_readable(views, nviews) && grads_readable(views, nviews);
    requires checked: views_checked(views, nviews);
    assigns \nothing;
*/
double oc_clip_norm(const oc_clip_config *c, size_t nviews, const oc_clip_view *views);

/* The number the gradients are multiplied by for a norm (CLIP-COEF-1): max_norm / (norm +
 * 1e-6) where that is below 1, else 1 (no scaling). */
/*@ requires valid_c: \valid_read(c);
    assigns \nothing;
*/
double oc_clip_coefficient(const oc_clip_config *c, double norm);

/* The end of the step for a norm and each sub-optimizer's factor: *total_norm = the norm
 * rounded to binary32 (CLIP-NORM-1), every view's gradient times its sub-optimizer's factor
 * (CLIP-TOL-1) unless megatron's clipping is disabled (CLIP-DISABLE-1), and *skipped
 * (CLIP-SKIP-1). */
/*@ requires valid_c: \valid_read(c);
    requires views_ok: views_readable(views, nviews) && grads_writable(views, nviews);
    requires checked: views_checked(views, nviews);
    requires factor_ok: \valid_read(factor + (0 .. OC_CLIP_MAX_OPTIMIZERS - 1));
    requires outs_ok: \valid(total_norm) && \valid(skipped);
    requires separated: \separated(skipped, c) && \separated(skipped, views + (0 .. nviews - 1));
    assigns *total_norm, *skipped,
            { views[i].grad[j] | integer i, j; 0 <= i < nviews && 0 <= j < views[i].length };
*/
void oc_clip_apply(const oc_clip_config *c, size_t nviews, oc_clip_view *views, double norm,
                   const double factor[OC_CLIP_MAX_OPTIMIZERS], float *total_norm, int *skipped);

/* The clipping step (CLIP-NORM-1 ... CLIP-SKIP-1): computes the total norm of the counted
 * elements (of every sub-optimizer: CLIP-CHAIN-1), writes it (as binary32) to *total_norm,
 * *skipped = 1 if the step is skipped (CLIP-SKIP-1), and scales every view's gradient by the
 * clip coefficient of the profile. On error nothing is written. */
/*@ requires args_ok: step_args(c, nviews, views, total_norm, skipped);
    assigns *total_norm, *skipped,
            { views[i].grad[j] | integer i, j; 0 <= i < nviews && 0 <= j < views[i].length };
*/
oc_status oc_ref_clip_step(const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                           float *total_norm, int *skipped);

/* The clipping of Megatron's ChainedOptimizer.step (the guarded step, STEP-CLIP-1), in the two
 * halves Megatron runs: the norm over every sub-optimizer (get_grad_norm_fp32 over all of them),
 * then each sub-optimizer's gradients times its coefficient (clip_grad_by_total_norm_fp32 with
 * that sub-optimizer's own config.clip_grad, STEP-CLIP-2).
 *
 * First half: writes the total norm of the counted elements (CLIP-CHAIN-1; STEP-NONFINITE-1 for
 * gradients that are not finite) as binary32 to *total_norm, and to factor[o], for every
 * o < OC_CLIP_MAX_OPTIMIZERS, the number sub-optimizer o's gradients are multiplied by:
 * CLIP-COEF-1 with max_norm[o] (its clip_grad; c->max_norm is not read), 1 where the
 * coefficient is not applied or max_norm[o] <= 0 (CLIP-DISABLE-1: the norm is still computed).
 * OC_ERR_BAD_HPARAM if a max_norm[o] is not finite (CLIP-CFG-1). Profile megatron only;
 * neither CLIP-SKIP-1 (the caller checks the threshold after clipping, as ChainedOptimizer.step
 * does) nor CLIP-FINITE-1 (the bf16 step does not check for inf/NaN, STEP-BF16-1) is applied.
 * No gradient is written; on error nothing is written. */
/*@ requires c_ok: c == \null || \valid_read(c);
    requires max_norm_ok: max_norm == \null || \valid_read(max_norm + (0 .. OC_CLIP_MAX_OPTIMIZERS - 1));
    requires views_ok: views_readable(views, nviews) && grads_readable(views, nviews);
    requires total_ok: total_norm == \null || \valid(total_norm);
    requires factor_ok: factor == \null || \valid(factor + (0 .. OC_CLIP_MAX_OPTIMIZERS - 1));
    assigns *total_norm, factor[0 .. OC_CLIP_MAX_OPTIMIZERS - 1];
*/
oc_status oc_ref_clip_chained_factors(const oc_clip_config *c,
                                      const double max_norm[OC_CLIP_MAX_OPTIMIZERS], size_t nviews,
                                      const oc_clip_view *views, float *total_norm,
                                      double factor[OC_CLIP_MAX_OPTIMIZERS]);

/* Second half: grad[0 .. n-1] times `factor`, a factor of oc_ref_clip_chained_factors, each
 * product evaluated in binary64 and rounded once to binary32 (CLIP-TOL-1). OC_ERR_BAD_HPARAM
 * unless 0 <= factor <= 1 (CLIP-COEF-1 never gives another), OC_ERR_NULL_POINTER for a NULL
 * gradient with n > 0; on error nothing is written. */
/*@ requires grad_ok: grad == \null || \valid(grad + (0 .. n - 1));
    assigns grad[0 .. n - 1];
*/
oc_status oc_ref_clip_scale(size_t n, float *grad, double factor);

#endif
