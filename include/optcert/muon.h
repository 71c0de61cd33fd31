/* The Muon step: momentum, Newton–Schulz orthogonalisation, scale, decoupled weight decay
 * (spec/muon.md, rules MUON-*). */
#ifndef OPTCERT_MUON_H
#define OPTCERT_MUON_H

#include <stddef.h>
#include "optcert/newton_schulz.h"
#include "optcert/status.h"
#include <string.h> /* for the ACSL below (valid_read_string) */
#ifdef __FRAMAC__
#include <errno.h> /* for the ACSL below (sqrt may set errno); no C compiler reads it */
#endif

typedef enum oc_muon_profile {
    OC_MUON_KELLER = 0, /* EMA momentum, Nesterov, shape_scaling, simple NS    MUON-PROF-KELLER */
    OC_MUON_MOONLIGHT,  /* SGD momentum, Nesterov, 0.2 sqrt(max(A, B))          MUON-PROF-MOONLIGHT */
    OC_MUON_MEGATRON,   /* EMA momentum, no Nesterov, spectral, quintic NS      MUON-PROF-MEGATRON */
    OC_MUON_PROFILE_COUNT
} oc_muon_profile;

typedef enum oc_muon_momentum {
    OC_MUON_EMA = 0, /* m' = mu m + (1 - mu) g; Nesterov (1 - mu) g + mu m'   MUON-MOM-1 */
    OC_MUON_SGD      /* m' = mu m + g;           Nesterov g + mu m'            MUON-MOM-1 */
} oc_muon_momentum;

typedef enum oc_muon_scale {
    OC_MUON_SHAPE_SCALING = 0, /* sqrt(max(1, rows / cols))   MUON-SCALE-1 */
    OC_MUON_SPECTRAL,          /* sqrt(max(rows, cols))       MUON-SCALE-1 */
    OC_MUON_UNIT_RMS_NORM      /* sqrt(rows / cols)           MUON-SCALE-1 */
} oc_muon_scale;

typedef struct oc_muon_hparams {
    oc_muon_profile profile;
    oc_ns_hparams ns;          /* the orthogonalisation (NS-*)                    MUON-NS-1 */
    double lr;                 /* >= 0, finite                                    MUON-HP-1 */
    double momentum;           /* mu in [0, 1)                                    MUON-HP-1 */
    double weight_decay;       /* >= 0, finite                                    MUON-HP-1 */
    int nesterov;
    oc_muon_momentum form;
    oc_muon_scale scale;
    double extra_scale;        /* > 0, finite (Moonlight 0.2)                     MUON-SCALE-1 */
} oc_muon_hparams;

/* What oc_muon_check accepts: the shape and the enumerations (integer goals), the real
 * hyper-parameters finite and in range (floating-point comparisons, MUON-HP-1). */
/*@ predicate muon_shape_ok(oc_muon_hparams *hp, integer rows, integer cols) =
        1 <= rows && 1 <= cols && rows * cols <= OC_NS_MAX_ELEMS &&
        1 <= hp->ns.steps <= OC_NS_MAX_STEPS && 1 <= hp->ns.ncoef <= OC_NS_MAX_COEFS &&
        (hp->form == OC_MUON_EMA || hp->form == OC_MUON_SGD) &&
        0 <= hp->scale <= OC_MUON_UNIT_RMS_NORM && 0 <= hp->profile < OC_MUON_PROFILE_COUNT;
    // MUON-HP-1's ranges as the IEEE comparisons the C code makes with the binary64 bounds
    // (for finite values the same as the real comparisons: 1e6 is a binary64 value). Not the
    // logic literal 1e6: Frama-C 25 reads it as 8/5 (proofs/STATUS.md).
    predicate muon_reals_ok(oc_muon_hparams *hp) =
        \is_finite(hp->lr) && \le_double((double)0.0, hp->lr) &&
        \le_double(hp->lr, (double)1.0e6) &&
        \is_finite(hp->momentum) && \le_double((double)0.0, hp->momentum) &&
        \lt_double(hp->momentum, (double)1.0) &&
        \is_finite(hp->weight_decay) && \le_double((double)0.0, hp->weight_decay) &&
        \le_double(hp->weight_decay, (double)1.0e6) &&
        \is_finite(hp->extra_scale) && \lt_double((double)0.0, hp->extra_scale) &&
        \le_double(hp->extra_scale, (double)1.0e6);
*/

/* The caller's buffers of a step (MUON-ERR-1): valid for an accepted shape, pairwise separated. */
/*@ predicate step_buffers_ok(oc_muon_hparams *hp, integer rows, integer cols, float *p,
            float *m, float *g, double *work, integer work_len, float *scratch,
            integer scratch_len) =
        (rows * cols <= OC_NS_MAX_ELEMS ==>
            \valid(p + (0 .. rows * cols - 1)) && \valid(m + (0 .. rows * cols - 1)) &&
            \valid_read(g + (0 .. rows * cols - 1)) && \valid(scratch + (0 .. scratch_len - 1)) &&
            \valid(work + (0 .. work_len - 1))) &&
        \separated(p + (0 .. rows * cols - 1), m + (0 .. rows * cols - 1),
                   g + (0 .. rows * cols - 1), scratch + (0 .. scratch_len - 1),
                   work + (0 .. work_len - 1), hp);
*/

const char *oc_muon_profile_name(oc_muon_profile pr);
/*@ requires args_ok: valid_read_string(name) && \valid(out);
    assigns *out;
    ensures status: \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    ensures known: \result == OC_OK ==> 0 <= *out < OC_MUON_PROFILE_COUNT; */
oc_status oc_muon_profile_parse(const char *name, oc_muon_profile *out);

/* The profile's conventions with its library defaults (MUON-PROF-*). */
/*@ requires valid_hp: \valid(hp);
    assigns *hp;
    ensures status: \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    behavior unknown:
      assumes !(0 <= pr < OC_MUON_PROFILE_COUNT);
      assigns \nothing;
      ensures rejected: \result == OC_ERR_BAD_PROFILE;
    behavior known:
      assumes 0 <= pr < OC_MUON_PROFILE_COUNT;
      ensures filled: \result == OC_OK && hp->profile == pr;
    complete behaviors;
    disjoint behaviors; */
oc_status oc_muon_profile_defaults(oc_muon_profile pr, oc_muon_hparams *hp);

/* MUON-SCALE-1: the factor of the orthogonalised update for a rows x cols parameter. */
/*@ requires valid_hp: \valid_read(hp);
    assigns errno; */
double oc_muon_scale_factor(const oc_muon_hparams *hp, size_t rows, size_t cols);

/* MUON-HP-1 with NS-HP-1 / NS-IN-1 (the checks of oc_ref_muon_step before its buffer checks). */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing;
    ensures shape: \result == OC_OK ==> muon_shape_ok(hp, rows, cols);
    ensures reals: \result == OC_OK ==> muon_reals_ok(hp); */
oc_status oc_muon_check(const oc_muon_hparams *hp, size_t rows, size_t cols);
/* MUON-HP-1: OC_OK when the hyper-parameters are valid (for any shape). */
/*@ requires hp_ok: hp == \null || \valid_read(hp);
    assigns \nothing; */
oc_status oc_muon_hparams_check(const oc_muon_hparams *hp);

/* Doubles of workspace for a rows x cols parameter (oc_ns_work_len). The step also needs
 * 3 rows cols floats of scratch. */
/*@ assigns \nothing; */
size_t oc_muon_work_len(size_t rows, size_t cols);

/* One step on the rows x cols fp32 parameter p and momentum m (updated in place) with
 * gradient g, in the caller's workspace `work` (work_len doubles) and `scratch` (3 rows cols
 * floats). On error nothing is written to p and m (MUON-ERR-1). */
/*@ requires hp_ok: hp == \null || \valid_read(hp);
    requires buffers_ok:
        step_buffers_ok(hp, rows, cols, p, m, g, work, work_len, scratch, 3 * rows * cols);
    assigns p[0 .. rows * cols - 1], m[0 .. rows * cols - 1],
            scratch[0 .. 3 * rows * cols - 1], work[0 .. work_len - 1], errno; */
oc_status oc_ref_muon_step(const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                           float *m, const float *g, double *work, size_t work_len,
                           float *scratch);

/* The pieces of the step (conformance/mutants/muon.c recombines them).
 * MUON-ERR-1: what a step over nblocks blocks checks before it writes (hyper-parameters,
 * shape, buffers, the workspace and scratch lengths, finite p, m, g). */
/*@ requires valid_hp: \valid_read(hp);
    requires buffers_ok:
        step_buffers_ok(hp, rows, cols, p, m, g, work, work_len, scratch, scratch_len);
    assigns \nothing;
    ensures ok: \result == OC_OK ==> muon_shape_ok(hp, rows, cols) && muon_reals_ok(hp); */
oc_status oc_muon_step_check(const oc_muon_hparams *hp, size_t nblocks, size_t rows, size_t cols,
                             const float *p, const float *m, const float *g, const double *work,
                             size_t work_len, const float *scratch, size_t scratch_len);
/* MUON-MOM-1, MUON-NEST-1: the new momentum m_new and the direction dir of n elements. */
/*@ requires valid_in: \valid_read(hp) && \valid_read(m + (0 .. n - 1)) &&
                       \valid_read(g + (0 .. n - 1));
    requires valid_out: \valid(m_new + (0 .. n - 1)) && \valid(dir + (0 .. n - 1));
    requires separated: \separated(m_new + (0 .. n - 1), dir + (0 .. n - 1), m + (0 .. n - 1),
                        g + (0 .. n - 1), hp);
    assigns m_new[0 .. n - 1], dir[0 .. n - 1]; */
void oc_muon_momentum_step(const oc_muon_hparams *hp, size_t n, const float *m,
                           const float *g, float *m_new, float *dir);
/* MUON-WD-1, MUON-UPD-1, MUON-STORE-1: the new parameter p (1 - decay) - step o in binary32. */
/*@ assigns \nothing; */
float oc_muon_update(double p, double o, double step, double decay);

/* ---- Blocks: split QKV and blockwise tensor parallelism (rules MUON-BLK-*) ---- */

typedef enum oc_muon_tp_dim {
    OC_MUON_TP_NONE = 0, /* one rank                                               MUON-BLK-TP-1 */
    OC_MUON_TP_ROWS,     /* column-parallel: each rank holds rows / tp output rows  MUON-BLK-TP-1 */
    OC_MUON_TP_COLS      /* row-parallel: each rank holds cols / tp input columns   MUON-BLK-TP-1 */
} oc_muon_tp_dim;

typedef enum oc_muon_scale_shape {
    OC_MUON_SCALE_GLOBAL = 0, /* MUON-SCALE-1 on the block's shape times tp on the split dim */
    OC_MUON_SCALE_LOCAL       /* on the block's own shape (Megatron tp_mode="blockwise")     */
} oc_muon_scale_shape;        /*                                                 MUON-BLK-SCALE-1 */

typedef struct oc_muon_partition {
    size_t tp_size;                  /* 1 .. 64; 1 with OC_MUON_TP_NONE     MUON-BLK-TP-1 */
    oc_muon_tp_dim tp_dim;
    oc_muon_scale_shape scale_shape;
    /* Split QKV (MUON-BLK-QKV-1): heads, query groups and head dim of the fused weight; all 0
     * for no split. */
    size_t qkv_heads, qkv_groups, qkv_head_dim;
} oc_muon_partition;

/* One block: rows row0 + j stride + [0, run) for j < nruns, columns col0 + [0, ncols), stacked
 * in that order into a (run nruns) x ncols matrix; scale_rows x scale_cols is the shape its
 * scale uses (MUON-BLK-SCALE-1). */
typedef struct oc_muon_block {
    size_t row0, run, stride, nruns, col0, ncols, scale_rows, scale_cols;
} oc_muon_block;

/* MUON-BLK-TP-1: at most 64 tensor-parallel ranks; MUON-BLK-QKV-1: at most 2^20 query heads
 * and a head dimension of at most 2^20. */
#define OC_MUON_MAX_TP 64
#define OC_MUON_MAX_QKV_DIM ((size_t)1 << 20)

/* A partition oc_muon_partition_check accepts (MUON-BLK-TP-1, MUON-BLK-QKV-1). */
/*@ predicate partition_ok(oc_muon_partition *part, integer rows, integer cols) =
        1 <= part->tp_size <= OC_MUON_MAX_TP &&
        OC_MUON_TP_NONE <= part->tp_dim <= OC_MUON_TP_COLS &&
        OC_MUON_SCALE_GLOBAL <= part->scale_shape <= OC_MUON_SCALE_LOCAL &&
        (part->tp_dim == OC_MUON_TP_NONE ==> part->tp_size == 1) &&
        (part->tp_dim == OC_MUON_TP_ROWS ==> rows % part->tp_size == 0) &&
        (part->tp_dim == OC_MUON_TP_COLS ==> cols % part->tp_size == 0) &&
        ((part->qkv_heads == 0 && part->qkv_groups == 0 && part->qkv_head_dim == 0) ||
         (1 <= part->qkv_heads <= OC_MUON_MAX_QKV_DIM && 1 <= part->qkv_groups &&
          1 <= part->qkv_head_dim <= OC_MUON_MAX_QKV_DIM &&
          part->qkv_heads % part->qkv_groups == 0 && part->tp_dim != OC_MUON_TP_COLS &&
          part->qkv_groups % part->tp_size == 0 &&
          (part->qkv_heads + 2 * part->qkv_groups) * part->qkv_head_dim == rows));
*/

/* MUON-BLK-TP-1, MUON-BLK-QKV-1, MUON-BLK-ERR-1: OC_OK when the partition fits a rows x cols
 * parameter. */
/*@ requires part_ok: part == \null || \valid_read(part);
    assigns \nothing;
    ensures fits: \result == OC_OK ==> part != \null && partition_ok(part, rows, cols); */
oc_status oc_muon_partition_check(const oc_muon_partition *part, size_t rows, size_t cols);

/* Number of blocks of a valid partition: tp_size, times 3 with a QKV split. */
/*@ requires part_ok: \valid_read(part) && 1 <= part->tp_size <= OC_MUON_MAX_TP;
    assigns \nothing;
    ensures count: \result == part->tp_size * (part->qkv_heads != 0 ? 3 : 1); */
size_t oc_muon_block_count(const oc_muon_partition *part);

/* Block `index` (rank-major, then q, k, v) of a valid partition (MUON-BLK-*). */
/*@ requires buffers: \valid_read(part) && \valid(b) && \separated(part, b);
    requires fits: partition_ok(part, rows, cols);
    assigns *b; */
void oc_muon_block_at(const oc_muon_partition *part, size_t rows, size_t cols, size_t index,
                      oc_muon_block *b);

/* Floats of scratch for oc_ref_muon_block_step: 5 rows cols. */
/*@ assigns \nothing; */
size_t oc_muon_block_scratch_len(size_t rows, size_t cols);

/* One Muon step (MUON-*) in which the direction is orthogonalised block by block
 * (MUON-BLK-ORTH-1) and each block scaled by its own factor (MUON-BLK-SCALE-1): the blocks of
 * the partition (oc_muon_block_at) given to oc_muon_blocks_step. Workspace as
 * oc_ref_muon_step, scratch oc_muon_block_scratch_len floats. On error nothing is written. */
/*@ requires hp_ok: hp == \null || \valid_read(hp);
    requires part_ok: part == \null || \valid_read(part);
    requires buffers_ok:
        step_buffers_ok(hp, rows, cols, p, m, g, work, work_len, scratch, scratch_len);
    requires separated: \separated(part, p + (0 .. rows * cols - 1), m + (0 .. rows * cols - 1),
                        scratch + (0 .. scratch_len - 1), work + (0 .. work_len - 1));
    assigns p[0 .. rows * cols - 1], m[0 .. rows * cols - 1], scratch[0 .. scratch_len - 1],
            work[0 .. work_len - 1], errno; */
oc_status oc_ref_muon_block_step(const oc_muon_hparams *hp, const oc_muon_partition *part,
                                 size_t rows, size_t cols, float *p, float *m, const float *g,
                                 double *work, size_t work_len, float *scratch,
                                 size_t scratch_len);

/* The step over nblocks (1 .. 3 OC_MUON_MAX_TP) blocks that partition the rows x cols matrix,
 * each orthogonalised on its own (MUON-BLK-ORTH-1; one block: the whole matrix, as the plain
 * step) and scaled by its own factor (MUON-BLK-SCALE-1); checks as oc_muon_step_check. */
/*@ requires hp_ok: \valid_read(hp) && 1 <= nblocks <= 3 * OC_MUON_MAX_TP;
    requires blocks_ok: \valid_read(blocks + (0 .. nblocks - 1));
    requires buffers_ok:
        step_buffers_ok(hp, rows, cols, p, m, g, work, work_len, scratch, scratch_len);
    requires separated: \separated(blocks + (0 .. nblocks - 1), p + (0 .. rows * cols - 1),
                        m + (0 .. rows * cols - 1), scratch + (0 .. scratch_len - 1),
                        work + (0 .. work_len - 1));
    assigns p[0 .. rows * cols - 1], m[0 .. rows * cols - 1], scratch[0 .. scratch_len - 1],
            work[0 .. work_len - 1], errno; */
oc_status oc_muon_blocks_step(const oc_muon_hparams *hp, size_t nblocks,
                              const oc_muon_block *blocks, size_t rows, size_t cols, float *p,
                              float *m, const float *g, double *work, size_t work_len,
                              float *scratch, size_t scratch_len);

#endif
