/* One optimizer step under a layout (spec/layouts.md §5): reduce the gradients to their
 * owners, step the owned pieces with a fast multi-tensor step, gather the parameters. */
#ifndef OPTCERT_DIST_H
#define OPTCERT_DIST_H

#include "optcert/comm.h"
#include "optcert/fast.h"
#include "optcert/layout.h"

/* The element-wise step applied to the owned pieces (a family's oc_fast_*_step, with its
 * hyper-parameters in ctx, called with the engine's options). Step control plugs in here: a
 * clipping coefficient or a skip decision computed from the reduced gradients before this
 * call, passed in the options. */
typedef oc_status (*oc_dist_step_fn)(void *ctx, const oc_fast_opts *o, size_t nt,
                                     const oc_fast_tensor *t);

/* The buffers of one rank. Two modes:
 *  - fp32 (master == NULL): params is the flat fp32 parameter buffer (layout->size), stepped
 *    where owned and all-gathered;
 *  - mixed precision, as Megatron's DistributedOptimizer (master != NULL): master holds the
 *    owned fp32 master pieces (d->owned elements, packed like the state), model the flat
 *    bf16/fp16 model buffer (layout->size), written from the new master where owned
 *    (FAST-MODEL-1) and all-gathered; params is unused. */
typedef struct oc_dist_buffers {
    float *params;
    float *master;
    uint16_t *model;
    float *grads;    /* flat, this rank's contribution; replaced by the sums where owned */
    float *state[3]; /* d->owned elements each, NULL where the family has no k-th state */
} oc_dist_buffers;

typedef struct oc_dist {
    const oc_layout *layout;
    const oc_comm *comm;
    size_t nseg;
    oc_layout_segment *seg; /* what this rank owns */
    oc_fast_tensor *t;      /* [nseg] scratch */
    size_t owned;           /* elements owned: the length of each state tensor */
    float *scratch;         /* one shard of the largest bucket */
} oc_dist;

/* The layout's dp must equal the communicator's size. */
oc_status oc_dist_init(oc_dist *d, const oc_layout *l, const oc_comm *c);
void oc_dist_free(oc_dist *d);

/* The tensors the step function is given for buffers b (d->t, filled from b: the owned
 * pieces in segment order, state and masters packed): what a step function that keeps its
 * own buffers (oc_offload_create) is built from. */
const oc_fast_tensor *oc_dist_tensors(const oc_dist *d, const oc_dist_buffers *b);

/* One step. o: inv_scale, clip_coeff and the model copy's kind (mixed mode; NULL: defaults,
 * fp32 mode). Gradient padding must hold zeros. */
oc_status oc_dist_step(const oc_dist *d, const oc_dist_buffers *b, const oc_fast_opts *o,
                       oc_dist_step_fn step, void *ctx);

/* LAYOUT-PP-1: Megatron's _allreduce_word_embedding_grads. The gradient of parameter `param`,
 * tied between the first and the last pipeline stage (the input embedding and the output
 * layer), summed in place over `embedding_group` (those two stages' ranks of the same TP and
 * DP ranks), its whole range in this rank's flat gradient buffer; call it before the step. */
oc_status oc_dist_tie_grads(const oc_dist *d, const oc_dist_buffers *b,
                            const oc_comm *embedding_group, size_t param);

/* Step control under a layout (spec/layouts.md §8). Per logical parameter: */
typedef struct oc_dist_param_attr {
    int tensor_parallel; /* split over the TP ranks (each holds a different part) */
    int shared;          /* on this rank, the uncounted copy of a tied parameter (p.shared) */
    int mtp;             /* in Megatron's separate grad-norm group 'mtp' (STEP-GROUP-1): out of
                          * the main norm, clipped against the group's own norm */
} oc_dist_param_attr;

typedef struct oc_dist_control {
    const oc_clip_config *clip;     /* NULL: no clipping (found_inf skip only); dp_size must be
                                     * the layout's dp, tp_size * pp_size the size of mp */
    const oc_dist_param_attr *attr; /* [nparams]; NULL: every parameter replicated over TP */
    int32_t tp_rank, pp_stage;      /* this rank's place in the model-parallel group */
    const oc_comm *mp;              /* the model-parallel group of this rank (its rank is
                                     * pp_stage * tp_size + tp_rank); NULL if tp = pp = 1 */
} oc_dist_control;

typedef struct oc_dist_outcome {
    float total_norm; /* the deduplicated global norm (0 when not computed), 'mtp' group left out */
    float clip_coeff; /* the factor the step applied (1: none) */
    int found_inf;    /* some rank's gradient was not finite */
    int skipped;      /* nothing was written: found_inf, or the norm above the skip threshold */
    float mtp_norm;   /* the 'mtp' group's own norm (STEP-GROUP-1; 0 without the group) */
} oc_dist_outcome;

/* One step with step control (LAYOUT-SKIP-1, LAYOUT-CLIP-1, LAYOUT-CLIP-2): reduce the
 * gradients, reduce found_inf with MAX over both groups, the deduplicated norm over both
 * groups, then either skip (parameters, states, masters and model copies untouched) or step
 * with the clip coefficient (o->clip_coeff is replaced) and gather. Every rank computes the
 * same norm, coefficient and decision bit for bit. Every rank of both groups must call it. */
oc_status oc_dist_controlled_step(const oc_dist *d, const oc_dist_buffers *b,
                                  const oc_fast_opts *o, const oc_dist_control *sc,
                                  oc_dist_step_fn step, void *ctx, oc_dist_outcome *out);

/* One sub-optimizer of a chained step: its engine (layout over its data-parallel group), buffers,
 * step control (attributes, model-parallel group, clipping configuration with its group
 * sizes) and step function; clip_coeff and mtp_clip_coeff, if not NULL, receive the factors
 * its step applied to its parameters in the main norm and in the 'mtp' group (STEP-CLIP-2,
 * STEP-GROUP-1: its own max_norm against the chain's norm, against the group's; 1: none). */
typedef struct oc_dist_sub {
    const oc_dist *d;
    const oc_dist_buffers *b;
    const oc_dist_control *sc;
    oc_dist_step_fn step;
    void *ctx;
    float *clip_coeff, *mtp_clip_coeff;
} oc_dist_sub;

/* LAYOUT-CHAIN-1: Megatron's ChainedOptimizer under layouts (dense parameters over the
 * data-parallel group, expert parameters over the expert-data-parallel group, ...): every
 * sub-step's gradients reduced, found_inf from all of them MAX over every sub-step's groups,
 * the norm of each sub-step combined over its own groups (LAYOUT-CLIP-2) and the sub-steps'
 * parts added in chain order, one norm (computed whatever max_norm is, CLIP-DISABLE-1) and one
 * skip decision: skipped if the norm is above the own skip threshold of any sub-step with a
 * parameter in the main norm (profile megatron); then every sub-step stepped with the
 * coefficient of its own max_norm against that norm (STEP-CLIP-2), its parameters in the
 * 'mtp' group (attr.mtp) with the coefficient against the group's own norm, combined like the
 * main one (STEP-GROUP-1), and gathered. The clipping configurations (all NULL, or none) must
 * agree on profile and norm type; at most OC_CLIP_MAX_OPTIMIZERS sub-steps. outcome's
 * clip_coeff is the first sub-step's. oc_dist_controlled_step is the chain of one. Every
 * rank of every group must call it with the same chain. */
oc_status oc_dist_chained_step(size_t nsub, const oc_dist_sub *sub, const oc_fast_opts *o,
                               oc_dist_outcome *out);

#endif
