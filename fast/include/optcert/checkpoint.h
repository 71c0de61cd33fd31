/* Checkpoint and reshard of the fast backend's optimizer state (spec/checkpoint.md): every rank
 * of any layout at any rank count writes the pieces it owns into its safetensors shard, rank 0
 * writes a JSON index mapping each logical parameter to its pieces; any layout at any other
 * rank count loads from it the pieces it needs (CKPT-FMT-1, CKPT-RESHARD-1). */
#ifndef OPTCERT_CHECKPOINT_H
#define OPTCERT_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/dist.h"

/* One parameter of a sub-optimizer as this rank holds it (parameter i of its layout). */
typedef struct oc_ckpt_param {
    const char *name;   /* logical name, the same on every rank holding a part of it */
    size_t dim0, dim1;  /* its global (logical) shape, row-major; dim1 = 1 for 1-D */
    size_t base;        /* cols = 0: this rank's tensor is elements [base, base + layout numel)
                         * of the global one (whole, or a tensor-parallel split on dim 0:
                         * tp_rank * local numel); cols > 0: its first column (below) */
    int replica;        /* a copy another rank writes (TP-replicated on tp_rank != 0) */
    size_t cols;        /* a split on dim 1 (row-parallel, CKPT-FMT-3): this rank holds columns
                         * [base, base + cols) of every row, as a dim0 x cols row-major tensor;
                         * 0: not split on dim 1 */
} oc_ckpt_param;

/* One sub-optimizer of a chained optimizer (a single optimizer: a chain of one). */
typedef struct oc_ckpt_sub {
    const oc_dist *d;               /* its engine: layout over its data-parallel group */
    const oc_dist_buffers *b;       /* master (mixed) or params (fp32); state[0 .. nstates) */
    oc_fast_dtype model;            /* the model copy's kind (mixed mode); NONE: fp32 mode */
    int nstates;                    /* 0 .. 3 */
    const char *const *state_names; /* [nstates]: "exp_avg", "exp_avg_sq", "max_exp_avg_sq", ... */
    const oc_ckpt_param *params;    /* [d->layout->nparams] */
    int64_t *step;                  /* its step count (updates done) */
} oc_ckpt_sub;

/* The whole optimizer state of this rank. */
typedef struct oc_ckpt_state {
    const oc_comm *world;        /* every rank of the job */
    int tp, pp, ep;              /* the model-parallel grid (recorded, CKPT-FMT-2) */
    size_t nsub;
    const oc_ckpt_sub *sub;
    oc_loss_scale_state *scaler; /* NULL: no loss scaler */
    int64_t *position;           /* the schedule position */
} oc_ckpt_state;

/* Loading mistakes the tests must catch (CKPT-MUT-1); OC_CKPT_CORRECT in real use. */
typedef enum oc_ckpt_mutant {
    OC_CKPT_CORRECT = 0,
    OC_CKPT_MUT_MASTER_FROM_MODEL, /* the master taken from the 16-bit parameters */
    OC_CKPT_MUT_STEP_NOT_SAVED,    /* the sub-optimizers' step counts left as they were */
    OC_CKPT_MUT_HYSTERESIS_NOT_SAVED, /* the hysteresis tracker left as it was */
    OC_CKPT_MUT_PIECE_OFFSET,      /* a split piece copied from its start, not from the
                                    * segment's offset inside it */
    OC_CKPT_MUTANT_COUNT
} oc_ckpt_mutant;

const char *oc_ckpt_mutant_name(oc_ckpt_mutant mu);

/* Writes the checkpoint into directory dir (created if absent; one that already holds an
 * index is refused). Every rank of s->world calls it; the status is the same on every rank
 * (a rank whose peer failed gets OC_ERR_PEER). msg (cap bytes) receives the reason of a
 * failure on the rank where it happened. CKPT-FMT-1, CKPT-ATOMIC-1. */
oc_status oc_ckpt_save(const oc_ckpt_state *s, const char *dir, char *msg, size_t cap);

/* Loads the checkpoint in dir into s under s's layouts and rank count (CKPT-RESHARD-1): the
 * masters (or fp32 parameters), every state, the model copies (rounded from the masters),
 * the loss scaler, the position and the step counts. Nothing is written unless every rank
 * succeeds (CKPT-LOAD-2); a missing, truncated or mismatched shard or index is refused with a
 * message naming it (CKPT-LOAD-1). Every rank of s->world calls it. The state loaded is the
 * saved state element for element, so the run continues as the unbroken one (CKPT-RESUME-1). */
oc_status oc_ckpt_load(const oc_ckpt_state *s, const char *dir, oc_ckpt_mutant mu, char *msg,
                       size_t cap);

#endif
