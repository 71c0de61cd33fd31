/* Distributed Muon over a data-parallel group (spec/layouts.md §9, LAYOUT-MUON-*): the Muon step
 * as the step function of the layout engine (fast/layout/dist.c), so that the layout decides
 * who orthogonalises what:
 *   gather-all     the `replicated` layout: gradients all-reduced, every rank steps (and
 *                  orthogonalises) every matrix;
 *   owner-compute  a layerwise layout (any profile): gradients reduce-scattered to the owner of
 *                  each whole matrix, each matrix stepped once by its owner, parameters
 *                  all-gathered.
 * Step control (found_inf, clipping) comes from oc_dist_controlled_step as for every family.
 * Tensor-parallel weights: oc_fast_muon_tp_step (fast.h). */
#ifndef OPTCERT_DIST_MUON_H
#define OPTCERT_DIST_MUON_H

#include "optcert/dist.h"

typedef struct oc_dist_muon {
    const oc_dist *dist;            /* the engine the step runs under */
    const oc_layout_param *params;  /* [nparams] the logical shapes: 2-D, dim0 x dim1 */
    const oc_muon_hparams *hp;
    oc_fast_ns_precision prec;
    /* this rank's work in the last call (the benchmark's counts) */
    size_t orthogonalised;          /* matrices */
    double ns_flops;                /* steps (3 k^2 n + k^3) per matrix, k <= n its sides: two
                                     * SYRK and one SYMM (FAST-NS-1) */
} oc_dist_muon;

/* An oc_dist_step_fn (ctx: an oc_dist_muon): every owned segment must be a whole 2-D
 * parameter (else OC_ERR_UNSUPPORTED: zero1-flat and fsdp2-dim0 cut matrices); each one's
 * gradient is taken as (g * inv_scale) * clip_coeff (FAST-GRAD-1) and stepped by
 * oc_fast_muon_step with the owned momentum (state[0]); the model copy, when asked for, is
 * written from the new parameter. The ranks of the group agree on the status (LAYOUT-AGREE-1)
 * before the engine gathers: on any rank's failure no rank has changed a parameter, momentum
 * or model copy. */
oc_status oc_dist_muon_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t);

/* LAYOUT-QKCLIP-1: MuonClip under data / context parallelism (Kimi K2, Megatron): each rank's
 * max_dot[h] (the largest q.k of head h over its part of the batch and sequence) MAX-reduced
 * over `group` (an all-gather of the binary32 values, the maximum taken in rank order, a NaN on
 * any rank giving NaN), then oc_fast_muon_clip on this rank's copy of the weights: every rank
 * clips the same heads by the same factors. Every rank of the group calls it; the ranks agree
 * on the status (LAYOUT-AGREE-1), w written only on success. */
oc_status oc_dist_muon_clip(const oc_comm *group, const oc_muon_clip_config *c,
                            const float *max_dot, float *w);

#endif
