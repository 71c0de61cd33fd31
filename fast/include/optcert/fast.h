/* The fast CPU backend (spec/fast.md): multi-tensor, fused, vectorized, multi-threaded steps
 * of the element-wise families, with the same numerics on every instruction set.
 *
 * One call updates a list of tensors. Each element is visited once per call: the stored
 * gradient is unscaled and clipped (FAST-GRAD-1), the state and the fp32 master parameter are
 * updated, and an optional bf16/fp16 model copy is written from the new master (FAST-MODEL-1).
 * The global squared gradient norm and the non-finite flag come from one extra read-only pass
 * over the gradients (oc_fast_grad_sumsq), whose result does not depend on the thread count
 * or the instruction set (FAST-NORM-1), so a caller can decide to skip or clip before the
 * update pass. */
#ifndef OPTCERT_FAST_H
#define OPTCERT_FAST_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/adafactor.h"
#include "optcert/adam.h"
#include "optcert/clip.h"
#include "optcert/comm.h"
#include "optcert/guarded_step.h"
#include "optcert/loss_scale.h"
#include "optcert/mixed.h"
#include "optcert/muon.h"
#include "optcert/muon_clip.h"
#include "optcert/te_storage.h"
#include "optcert/muon_route.h"
#include "optcert/newton_schulz.h"
#include "optcert/lion.h"
#include "optcert/sgd.h"
#include "optcert/status.h"

typedef enum oc_fast_dtype {
    OC_FAST_MODEL_NONE = 0, /* no model copy */
    OC_FAST_MODEL_BF16,     /* bfloat16 copy, round to nearest even */
    OC_FAST_MODEL_FP16,     /* IEEE binary16 copy, round to nearest even */
} oc_fast_dtype;

/* One parameter tensor (or a contiguous piece of one: layouts pass owned ranges). */
typedef struct oc_fast_tensor {
    size_t n;
    float *param;       /* fp32 master, updated in place */
    const float *grad;  /* fp32 gradient as stored (loss-scaled, unclipped) */
    float *state[3];    /* adam: m, v, vmax (amsgrad only); sgd: momentum buffer; lion: m */
    uint16_t *model;    /* optional model copy (n elements), written from the new master */
} oc_fast_tensor;

/* What the step does to the stored gradient and where it writes the model copy. */
typedef struct oc_fast_opts {
    float inv_scale;          /* 1 / loss scale; 1: no loss scaling */
    float clip_coeff;         /* global-norm clipping coefficient; 1: none */
    oc_fast_dtype model;      /* kind of the model copies (tensors with model == NULL skip) */
} oc_fast_opts;

/* Defaults: no scaling, no clipping, no model copy. */
oc_fast_opts oc_fast_opts_default(void);

/* Updates every tensor. hp, step and the buffers are checked as the reference checks them
 * (ADAM-ERR-1 etc.) for every tensor before anything is written; on error nothing is written.
 * found_nonfinite (may be NULL) is set to 1 if some gradient the update saw was NaN or
 * infinite, else 0: the update still ran (a caller that skips on overflow calls
 * oc_fast_grad_sumsq first). */
oc_status oc_fast_adam_step(const oc_adam_hparams *hp, int64_t step, const oc_fast_opts *o,
                            size_t ntensors, const oc_fast_tensor *t, int *found_nonfinite);
oc_status oc_fast_sgd_step(const oc_sgd_hparams *hp, int64_t step, const oc_fast_opts *o,
                           size_t ntensors, const oc_fast_tensor *t, int *found_nonfinite);
oc_status oc_fast_lion_step(const oc_lion_hparams *hp, int64_t step, const oc_fast_opts *o,
                            size_t ntensors, const oc_fast_tensor *t, int *found_nonfinite);

/* FAST-NORM-1: per_tensor[i] (may be NULL) = sum over tensor i of (g * inv_scale)^2, with the
 * unscaled gradient rounded to binary32 as the update sees it and squared exactly in binary64,
 * summed in binary64 in a fixed order (blocks of OC_FAST_CHUNK elements, 16 lanes each, lanes
 * and blocks combined in index order); *total = the per-tensor sums added in tensor order.
 * *found_nonfinite = 1 iff some unscaled gradient is NaN or infinite (then *total is too). */
oc_status oc_fast_grad_sumsq(size_t ntensors, const oc_fast_tensor *t, float inv_scale,
                             double *per_tensor, double *total, int *found_nonfinite);

/* Work unit of the threads and of the norm's summation order (elements). */
#define OC_FAST_CHUNK 16384

/* Instruction sets of the CPU kernels, chosen at run time (FAST-ISA-1). */
typedef enum oc_fast_isa {
    OC_FAST_ISA_PORTABLE = 0, /* plain C, whatever the compiler's baseline target gives */
    OC_FAST_ISA_AVX2,         /* AVX2 + FMA + F16C (FMA is not used: FAST-DET-1) */
    OC_FAST_ISA_AVX512,       /* AVX-512 F/BW/VL/DQ */
    OC_FAST_ISA_COUNT
} oc_fast_isa;

/* The best set this CPU supports, unless the environment variable OPTCERT_FAST_ISA
 * (portable|avx2|avx512) asked for another supported one. */
oc_fast_isa oc_fast_isa_active(void);
const char *oc_fast_isa_name(oc_fast_isa isa);
/* Selects a set for the whole process: OC_ERR_UNSUPPORTED if this CPU lacks it. */
oc_status oc_fast_isa_select(oc_fast_isa isa);

/* FAST-MIXED-1: oc_impl.mixed_step (the contract of oc_ref_mixed_step) on
 * the fused kernels: the master is the kernels' parameter, a 16-bit parameter their model copy;
 * bf16 state goes through fp32 scratch. fp16 state is OC_ERR_UNSUPPORTED. */
oc_status oc_fast_mixed_step(oc_algorithm alg, const void *hp, const oc_storage *s,
                             int64_t step, size_t n, void *param, float *master,
                             void *const *state, const float *g);

/* FAST-TESTORE-1: oc_impl.te_storage (the contract of oc_ref_te_storage):
 * TE FusedAdam's storage of one tensor in whole-tensor passes. */
oc_status oc_fast_te_storage(const oc_te_config *c, oc_te_direction dir, size_t n,
                             oc_te_state *s, float *const *work);

/* FAST-ADAFACTOR-1: oc_impl.adafactor_step (the contract of oc_ref_adafactor_step without the
 * work buffer), every quantity in binary32. */
oc_status oc_fast_adafactor_step(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                 int64_t step, oc_adafactor_state *s, const float *g);

/* FAST-LS-1: one loss-scaler update (the contract of oc_ref_loss_scale_update). */
oc_status oc_fast_loss_scale_update(const oc_loss_scaler *c, oc_loss_scale_state *s,
                                    int found_inf);

/* FAST-CLIP-1: this process's part of the clipping norm over the views it counts
 * (oc_clip_view_counted): the sum of squares in binary64 (FAST-NORM-1) for the 2-norm, to be
 * added across ranks; max |g| for the inf-norm, to be maximized across ranks. The views are
 * not checked (oc_clip_check does that). */
oc_status oc_fast_clip_norm(const oc_clip_config *c, size_t nviews, const oc_clip_view *views,
                            double *partial);
/* The binary32 factor every gradient is multiplied by for a total norm (CLIP-COEF-1; 1: none,
 * also for profile megatron with max_norm <= 0, CLIP-DISABLE-1). */
float oc_fast_clip_coeff(const oc_clip_config *c, double norm);
/* FAST-CLIP-1: oc_impl.clip_step (the contract of oc_ref_clip_step). */
oc_status oc_fast_clip_step(const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                            float *total_norm, int *skipped);

/* Operand precision of the fast Newton–Schulz (FAST-NS-1, FAST-NS-2). */
typedef enum oc_fast_ns_precision {
    OC_FAST_NS_FP32 = 0, /* binary32 operands, intermediates and accumulation (class fp32) */
    OC_FAST_NS_BF16      /* every iterate and Gram matrix rounded to bfloat16, binary32
                            accumulation (class bf16) */
} oc_fast_ns_precision;

/* The precision the plugin uses: OPTCERT_FAST_NS=fp32|bf16 (default and anything else: fp32). */
oc_fast_ns_precision oc_fast_ns_precision_active(void);
const char *oc_fast_ns_precision_name(oc_fast_ns_precision prec);

/* Floats of workspace oc_fast_newton_schulz needs for a rows x cols input:
 * 2 k n + 2 k ld, k = min(rows, cols), n = max(rows, cols), ld = oc_fast_ns_gram_ld(k). */
size_t oc_fast_ns_work_len(size_t rows, size_t cols);

/* FAST-NS-3: the distance in floats between the rows of the k x k Gram matrices A and B in the
 * workspace (k + 16: rows of a power-of-two k would share cache sets). */
size_t oc_fast_ns_gram_ld(size_t k);

/* FAST-NS-1: the contract of oc_ref_newton_schulz (NS-ERR-1: same checks and
 * statuses, out written only on success) on CBLAS. work: work_len floats (at least
 * oc_fast_ns_work_len), or NULL to allocate them for this call. */
oc_status oc_fast_newton_schulz(const oc_ns_hparams *hp, oc_fast_ns_precision prec, size_t rows,
                                size_t cols, const float *g, float *out, float *work,
                                size_t work_len);

/* FAST-NS-4: Newton–Schulz of a matrix split over the ranks of `group` along `dim`
 * (OC_MUON_TP_ROWS: each rank holds rows x cols of a (size rows) x cols matrix, as a
 * column-parallel weight; OC_MUON_TP_COLS: rows x cols of a rows x (size cols) one, row-parallel),
 * rank r holding the r-th block. The iteration runs on X = the block, transposed when rows are
 * split, so that the Gram matrix is on the unsplit side and is the sum of the ranks' Gram
 * matrices: all-reduced in every iteration; ||G||_F from the ranks' binary64 sums of squares
 * added in rank order. out: this rank's block of the result. The checks of
 * oc_fast_newton_schulz on the whole matrix; the ranks agree on every status (LAYOUT-AGREE-1),
 * out written only on success. Every rank of the group calls it with the same arguments but
 * the buffers. (Megatron's tp_mode "distributed".) */
oc_status oc_fast_newton_schulz_sharded(const oc_ns_hparams *hp, oc_fast_ns_precision prec,
                                        const oc_comm *group, oc_muon_tp_dim dim, size_t rows,
                                        size_t cols, const float *g, float *out);

/* FAST-MUON-4: floats of workspace oc_fast_muon_block_step needs for part (NULL: the plain
 * step, oc_fast_muon_step) on a rows x cols parameter; 0 for a partition that does not fit it. */
size_t oc_fast_muon_work_len(const oc_muon_partition *part, size_t rows, size_t cols);

/* FAST-MUON-1: the contract of oc_ref_muon_step without the workspace (p, m
 * unchanged on error): binary32 momentum and update around oc_fast_newton_schulz. work:
 * work_len floats (at least oc_fast_muon_work_len(NULL, rows, cols)), or NULL to allocate
 * them for this call (FAST-MUON-4). */
oc_status oc_fast_muon_step(const oc_muon_hparams *hp, oc_fast_ns_precision prec, size_t rows,
                            size_t cols, float *p, float *m, const float *g, float *work,
                            size_t work_len);

/* FAST-MUON-2: the contract of oc_ref_muon_block_step without the workspaces
 * (same checks and statuses, p, m unchanged on error): each block gathered, orthogonalised by
 * oc_fast_newton_schulz and scaled by its own factor, as oc_fast_muon_step. work: as
 * oc_fast_muon_step's, at least oc_fast_muon_work_len(part, rows, cols) floats. */
oc_status oc_fast_muon_block_step(const oc_muon_hparams *hp, oc_fast_ns_precision prec,
                                  const oc_muon_partition *part, size_t rows, size_t cols,
                                  float *p, float *m, const float *g, float *work,
                                  size_t work_len);

/* Muon tensor-parallel modes (spec/layouts.md §9: LAYOUT-TP-MUON-1, -2, -3). */
typedef enum oc_fast_muon_tp_mode {
    OC_FAST_MUON_TP_BLOCKWISE = 0, /* each rank orthogonalises its own shard (MUON-BLK-TP-1) */
    OC_FAST_MUON_TP_DUPLICATED,    /* all-gather the direction, orthogonalise it whole, keep the
                                    * own block */
    OC_FAST_MUON_TP_DISTRIBUTED    /* oc_fast_newton_schulz_sharded on the shards */
} oc_fast_muon_tp_mode;

/* FAST-MUON-3: one Muon step of this rank's shard of a rows x cols weight (the whole, logical
 * shape) split by part (tp_size the group's size, tp_dim ROWS or COLS, no QKV split) over
 * group: the momentum and the update on the shard (p, m, g: the shard's rows x cols / tp
 * elements, row-major), the orthogonalisation by `mode`, the factor from part->scale_shape
 * (MUON-BLK-SCALE-1: the whole shape for GLOBAL, the shard's for LOCAL). The ranks agree on
 * every status (LAYOUT-AGREE-1); p and m are written only on success. */
oc_status oc_fast_muon_tp_step(const oc_muon_hparams *hp, oc_fast_ns_precision prec,
                               const oc_comm *group, oc_fast_muon_tp_mode mode,
                               const oc_muon_partition *part, size_t rows, size_t cols, float *p,
                               float *m, const float *g);

/* FAST-ROUTE-1: the contract of oc_ref_routed_step without the workspaces: the
 * reference's route (oc_param_route), then oc_fast_muon_step or oc_fast_adam_step. */
oc_status oc_fast_routed_step(const oc_route_hparams *hp, oc_fast_ns_precision prec,
                              const oc_param_info *info, int64_t step, float *p, float *m,
                              float *v, const float *g, oc_route *route);

/* FAST-STEP-1: the contract of oc_ref_guarded_step (its checks by
 * oc_guarded_step_check before anything is written), composed from the fused unscale pass,
 * oc_fast_loss_scale_update, the clipping pass and the multi-tensor steps. */
oc_status oc_fast_guarded_step(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                               oc_loss_scale_state *scaler_state, size_t nsub,
                               oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                               float *grad_norm, oc_step_outcome *outcome);

/* FAST-MUONCLIP-1: the contract of oc_ref_muon_clip (w unchanged on error). */
oc_status oc_fast_muon_clip(const oc_muon_clip_config *c, const float *max_dot, float *w);

#endif
