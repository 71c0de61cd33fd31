/* The plugin ABI: how an implementation (the reference, the fast backends, a third-party
 * shared library) gives optcert its entry points. v3 (oc_impl_v3, at the end) is the current
 * one: the families it certifies, by name, which is also the table the harness uses inside. v2
 * (oc_impl: positional slots plus capability bits, frozen) still loads, translated into the
 * family list it claims (spec/vectors.md VEC-ABI-4). This header is the contract; README
 * "Certifying your own optimizer" shows its use, spec/vectors.md §2b (VEC-ABI-*) and §3
 * (VEC-PLUG-*) how a plugin is loaded and run. */
#ifndef OPTCERT_IMPL_H
#define OPTCERT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"
#include "optcert/adafactor.h"
#include "optcert/adam.h"
#include "optcert/clip.h"
#include "optcert/guarded_step.h"
#include "optcert/lion.h"
#include "optcert/mixed.h"
#include "optcert/loss_scale.h"
#include "optcert/muon.h"
#include "optcert/muon_clip.h"
#include "optcert/muon_route.h"
#include "optcert/newton_schulz.h"
#include "optcert/resume.h"
#include "optcert/schedule.h"
#include "optcert/sgd.h"
#include "optcert/te_storage.h"

#define OC_IMPL_ABI_VERSION 2u /* 2: mixed_step, loss_scale_update appended */

/* Capability flags: which profiles / options the implementation claims to support.
 * The harness runs only the cases an implementation claims; the certificate lists
 * what was not claimed. */
#define OC_CAP_ADAM_TORCH    (1ull << 0)
#define OC_CAP_ADAM_OPTAX    (1ull << 1)
#define OC_CAP_ADAM_PAPER    (1ull << 2)
#define OC_CAP_ADAM_KERAS    (1ull << 3)
#define OC_CAP_ADAM_AMSGRAD  (1ull << 4)
#define OC_CAP_ADAM_MAXIMIZE (1ull << 5)
#define OC_CAP_SGD_TORCH     (1ull << 8)
#define OC_CAP_SGD_EMA       (1ull << 9)
#define OC_CAP_SGD_NESTEROV  (1ull << 10)
#define OC_CAP_SGD_MAXIMIZE  (1ull << 11)
#define OC_CAP_LION_TORCH    (1ull << 16)
#define OC_CAP_SCHEDULE_MEGATRON (1ull << 24)
/* Mixed precision (spec/mixed.md), for every element-wise algorithm claimed above. */
#define OC_CAP_MIXED_BF16       (1ull << 48) /* bf16 params, fp32 master, fp32 state */
#define OC_CAP_MIXED_F16        (1ull << 49) /* fp16 params, fp32 master, fp32 state */
#define OC_CAP_MIXED_STATE_BF16 (1ull << 50) /* bf16 params, fp32 master, bf16 state */
#define OC_CAP_LOSS_SCALE_MEGATRON          (1ull << 32)
#define OC_CAP_LOSS_SCALE_MEGATRON_CONSTANT (1ull << 33)
#define OC_CAP_LOSS_SCALE_TORCH             (1ull << 34)
#define OC_CAP_CLIP_MEGATRON                (1ull << 35)
#define OC_CAP_CLIP_TORCH                   (1ull << 36)
#define OC_CAP_NEWTON_SCHULZ (1ull << 40) /* NS-* for every coefficient schedule and normalisation */
#define OC_CAP_MUON (1ull << 41)          /* MUON-* for every momentum form and scale mode */
/* The guarded step (spec/guarded_step.md), one bit per mode of oc_guard_mode. */
#define OC_CAP_STEP_SCALED                  (1ull << 37)
#define OC_CAP_STEP_UNCHECKED               (1ull << 38)
#define OC_CAP_STEP_CHECKED                 (1ull << 39)
#define OC_CAP_MUON_CLIP (1ull << 42)     /* MUONCLIP-* for both profiles */
#define OC_CAP_MUON_BLOCKS (1ull << 43)   /* MUON-BLK-*: split QKV and blockwise TP blocks */
#define OC_CAP_MUON_ROUTE (1ull << 44)    /* ROUTE-*: mixed Muon + AdamW parameter routing */
#define OC_CAP_MUON_CLIP_MLA (1ull << 45) /* with OC_CAP_MUON_CLIP: the kimi-mla profile */
#define OC_CAP_TE_STORAGE (1ull << 46)    /* TESTORE-*: TE FusedAdam's storage, every configuration */
#define OC_CAP_RESUME (1ull << 47)        /* RESUME-*: save and restore of the element-wise state */
#define OC_CAP_ADAFACTOR (1ull << 51)     /* ADAFACTOR-*: every profile and option */

/* The entry points, one type per algorithm. */
/* Same contract as oc_ref_adam_step: fp32 buffers updated in place, nothing written on
 * error. NULL if no Adam capability is claimed. */
typedef oc_status (*oc_adam_step_fn)(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n,
                                     float *p, float *m, float *v, float *vmax, const float *g);

/* As oc_ref_sgd_step; NULL if no SGD capability is claimed. */
typedef oc_status (*oc_sgd_step_fn)(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n,
                                    float *p, float *buf, const float *g);

/* As oc_ref_lion_step; NULL if no Lion capability is claimed. */
typedef oc_status (*oc_lion_step_fn)(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n,
                                     float *p, float *m, const float *g);

/* As oc_ref_schedule_eval; NULL if no schedule capability is claimed. */
typedef oc_status (*oc_schedule_eval_fn)(void *ctx, const oc_schedule *s, int64_t samples,
                                         double *lr, double *wd);

/* As oc_ref_mixed_step; NULL if no OC_CAP_MIXED_* is claimed. */
typedef oc_status (*oc_mixed_step_fn)(void *ctx, oc_algorithm alg, const void *hp,
                                      const oc_storage *s, int64_t step, size_t n, void *param,
                                      float *master, void *const *state, const float *g);

/* As oc_ref_loss_scale_update: one update of the state in place,
 * nothing written on error. NULL if no loss-scale capability is claimed. */
typedef oc_status (*oc_loss_scale_update_fn)(void *ctx, const oc_loss_scaler *c,
                                             oc_loss_scale_state *s, int found_inf);

/* As oc_ref_clip_step: the views' gradients clipped in place, the total norm and the skip
 * flag written; nothing written on error. NULL if no clip capability is claimed. */
typedef oc_status (*oc_clip_step_fn)(void *ctx, const oc_clip_config *c, size_t nviews,
                                     oc_clip_view *views, float *total_norm, int *skipped);

/* As oc_ref_newton_schulz without the workspace: out (rows x cols fp32,
 * row-major) written only on success. NULL if OC_CAP_NEWTON_SCHULZ is not claimed. */
typedef oc_status (*oc_newton_schulz_fn)(void *ctx, const oc_ns_hparams *hp, size_t rows,
                                         size_t cols, const float *g, float *out);

/* As oc_ref_muon_step without the workspace: p and m (rows x cols fp32)
 * updated in place, unchanged on error. NULL if OC_CAP_MUON is not claimed. */
typedef oc_status (*oc_muon_step_fn)(void *ctx, const oc_muon_hparams *hp, size_t rows, size_t cols,
                                     float *p, float *m, const float *g);

/* As oc_ref_guarded_step: one whole step of a chained optimizer, in place, nothing written
 * on error. NULL if no OC_CAP_STEP_* is claimed. */
typedef oc_status (*oc_guarded_step_fn)(void *ctx, const oc_guard_config *cfg,
                                        const oc_loss_scaler *scaler,
                                        oc_loss_scale_state *scaler_state, size_t nsub,
                                        oc_sub_optimizer *subs, int64_t *position,
                                        int64_t increment, float *grad_norm,
                                        oc_step_outcome *outcome);

/* As oc_ref_muon_clip: the fused QKV weight w clipped in place, unchanged
 * on error. NULL if OC_CAP_MUON_CLIP is not claimed. */
typedef oc_status (*oc_muon_clip_fn)(void *ctx, const oc_muon_clip_config *c, const float *max_dot,
                                     float *w);

/* As oc_ref_muon_block_step without the workspaces: p and m updated in
 * place, unchanged on error. NULL if OC_CAP_MUON_BLOCKS is not claimed. */
typedef oc_status (*oc_muon_block_step_fn)(void *ctx, const oc_muon_hparams *hp,
                                           const oc_muon_partition *part, size_t rows, size_t cols,
                                           float *p, float *m, const float *g);

/* As oc_ref_routed_step without the workspaces: the parameter routed
 * (*route) and stepped in place, nothing written on error. NULL if OC_CAP_MUON_ROUTE is
 * not claimed. */
typedef oc_status (*oc_routed_step_fn)(void *ctx, const oc_route_hparams *hp,
                                       const oc_param_info *info, int64_t step, float *p, float *m,
                                       float *v, const float *g, oc_route *route);

/* As oc_ref_te_storage: one direction of TE's storage of one tensor,
 * nothing written on error. NULL if OC_CAP_TE_STORAGE is not claimed. */
typedef oc_status (*oc_te_storage_fn)(void *ctx, const oc_te_config *c, oc_te_direction dir,
                                      size_t n, oc_te_state *s, float *const *work);

/* Resume certification (spec/checkpoint.md §5, VEC-ABI-3): the implementation's own
 * serialisation of an element-wise optimizer's whole state, one entry point for the pair.
 * alg, hp, s and n describe the state as oc_mixed_step_fn does; state[] holds its buffers in
 * the order of the case's outputs (oc_state_buffer_count of them: the parameter, with a 16-bit
 * parameter its fp32 master, then the state tensors); *steps_done is the number of updates the
 * state has seen (the next step call gets *steps_done + 1).
 *   OC_STATE_SIZE     *len = the bytes a save needs (at most 2^30); nothing else is read.
 *   OC_STATE_SAVE     reads state and *steps_done, writes the save into bytes[0 .. *len)
 *                     (*len on entry: the capacity the harness allocated, the size answered
 *                     before) and sets *len to the bytes written; state is not changed.
 *   OC_STATE_RESTORE  reads bytes[0 .. *len) (a save of this implementation, not modified)
 *                     and writes every buffer of state (fresh buffers, poisoned by the
 *                     harness: VEC-RESUME-1) and *steps_done.
 * A loss scaler's state (resume-loss-scale-*, spec/checkpoint.md RESUME-LS-1) comes with alg
 * OC_STATE_LOSS_SCALER, hp its oc_loss_scaler, s NULL, n 1, state[0] its oc_loss_scale_state.
 * The harness owns every buffer; the format of the bytes is the implementation's. NULL if
 * OC_CAP_RESUME is not claimed. */
typedef oc_status (*oc_state_io_fn)(void *ctx, oc_state_op op, oc_algorithm alg, const void *hp,
                                    const oc_storage *s, size_t n, void *const *state,
                                    int64_t *steps_done, void *bytes, size_t *len);
/* As oc_ref_adafactor_step without the work buffer: one step of one tensor, s updated in
 * place, nothing written on error. NULL if OC_CAP_ADAFACTOR is not claimed. */
typedef oc_status (*oc_adafactor_step_fn)(void *ctx, const oc_adafactor_hparams *hp,
                                          oc_adafactor_shape sh, int64_t step,
                                          oc_adafactor_state *s, const float *g);

typedef struct oc_impl {
    uint32_t abi_version;      /* OC_IMPL_ABI_VERSION */
    const char *name;          /* e.g. "optcert-ref" */
    const char *version;       /* free text, printed in the certificate */
    uint64_t capabilities;     /* OC_CAP_* */
    void *ctx;                 /* passed back to every entry point */
    oc_adam_step_fn adam_step;
    oc_sgd_step_fn sgd_step;
    oc_lion_step_fn lion_step;
    oc_schedule_eval_fn schedule_eval;
    oc_mixed_step_fn mixed_step;
    oc_loss_scale_update_fn loss_scale_update;
    oc_clip_step_fn clip_step;
    oc_newton_schulz_fn newton_schulz;
    oc_muon_step_fn muon_step;
    oc_guarded_step_fn guarded_step;
    oc_muon_clip_fn muon_clip;
    oc_muon_block_step_fn muon_block_step;
    oc_routed_step_fn routed_step;
    oc_te_storage_fn te_storage;
    oc_state_io_fn state_io;
    oc_adafactor_step_fn adafactor_step;
} oc_impl;

/* A v2 plugin shared object exports this symbol (name: OC_IMPL_ENTRY_SYMBOL). */
typedef const oc_impl *(*oc_impl_entry_fn)(void);
#define OC_IMPL_ENTRY_SYMBOL "optcert_impl_v1"

/* Plugin ABI v3 (VEC-ABI-1): the table lists the families the implementation certifies by name
 * ("adam-torch", "clip-megatron", ...: `optcert families`), each with its entry point and the
 * options of that family it supports. A new family adds a name, not a field: the struct and the
 * version stay. A family's entry point has its algorithm's type, cast to oc_entry_point: the
 * types above are those of the algorithms v2 has slots for (frozen with it); an algorithm added
 * later declares its type in its own header, include/optcert/<fam>.h, and nothing here names it.
 * oc_adam_step_fn for the adam-* families, oc_sgd_step_fn, oc_lion_step_fn,
 * oc_schedule_eval_fn, oc_loss_scale_update_fn, oc_clip_step_fn, oc_newton_schulz_fn
 * (newton-schulz-*), oc_muon_step_fn (muon-keller, -megatron, -moonlight), oc_muon_block_step_fn
 * (muon-blocks-megatron-*), oc_routed_step_fn (muon-route-megatron), oc_muon_clip_fn (muonclip-*),
 * oc_guarded_step_fn (guarded-step-megatron), oc_te_storage_fn (te-storage-fusedadam),
 * oc_adafactor_step_fn (adafactor-*), and
 * oc_mixed_step_fn for a "-mixed" family, whose fp32
 * cases use the entry of the family without "-mixed" (list both); oc_state_io_fn for a
 * "resume-" family (VEC-ABI-3), whose steps use the entry of the family without "resume-"
 * (and, for resume-X-mixed, that of X too: list them all) with that family's options.
 * Options (spec/vectors.md VEC-ABI-2): adam-*: "amsgrad", "maximize"; sgd-*: "nesterov",
 * "maximize"; *-mixed: "bf16", "f16", "bf16-state" (storage combinations, spec/mixed.md);
 * guarded-step-megatron: "scaled", "unchecked", "checked" (guard modes), "groups" (STEP-CLIP-2,
 * STEP-GROUP-1: oc_guard_config's per_sub and mtp_params); no other family has any.
 * The entry point is exported as OC_IMPL_V3_ENTRY_SYMBOL and returns a table whose
 * abi_version is OC_IMPL_ABI_V3: the symbol and the version agree. */
#define OC_IMPL_ABI_V3 3u
#define OC_IMPL_V3_ENTRY_SYMBOL "optcert_impl_v3"

typedef void (*oc_entry_point)(void);

typedef struct oc_family_entry {
    const char *family;   /* an optcert family name */
    const char *options;  /* space-separated options of that family; NULL or "" for none */
    oc_entry_point entry; /* the family's entry point, cast */
} oc_family_entry;

typedef struct oc_impl_v3 {
    uint32_t abi_version; /* OC_IMPL_ABI_V3 */
    const char *name;     /* e.g. "optcert-fast-cpu" */
    const char *version;  /* free text, printed in the certificate */
    void *ctx;            /* passed back to every entry point */
    size_t nfamilies;     /* 1 .. 1024 */
    const oc_family_entry *families;
} oc_impl_v3;

typedef const oc_impl_v3 *(*oc_impl_v3_entry_fn)(void);

#endif
