/* MuonClip, Kimi K2's QK-clip (spec/muon.md, rules MUONCLIP-*): after the optimizer step, the
 * query and key rows of every attention head (or query group) whose largest logit exceeded tau
 * are scaled down so that the logit would be tau. */
#ifndef OPTCERT_MUON_CLIP_H
#define OPTCERT_MUON_CLIP_H

#include <stddef.h>
#include "optcert/status.h"
#include <errno.h>  /* for the ACSL below (pow may set errno); no C compiler reads it */
#include <string.h> /* for the ACSL below (valid_read_string) */

typedef enum oc_muon_clip_profile {
    OC_MUON_CLIP_KIMI = 0,  /* per head; multi-head layouts only     MUONCLIP-PROF-KIMI */
    OC_MUON_CLIP_MEGATRON,  /* per query group (GQA)                 MUONCLIP-PROF-MEGATRON */
    OC_MUON_CLIP_KIMI_MLA,  /* per head, multi-head latent attention MUONCLIP-PROF-KIMI-MLA */
    OC_MUON_CLIP_PROFILE_COUNT
} oc_muon_clip_profile;

typedef struct oc_muon_clip_config {
    oc_muon_clip_profile profile;
    double tau;      /* in [2^-20, 2^20] (100)                     MUONCLIP-CFG-1 */
    double alpha;    /* in [0, 1] (0.5)                          MUONCLIP-CFG-1 */
    size_t heads;    /* query heads, a multiple of groups       MUONCLIP-LAYOUT-1 */
    size_t groups;   /* key/value heads (query groups)          MUONCLIP-LAYOUT-1 */
    size_t head_dim; /* d                                        MUONCLIP-LAYOUT-1 */
    size_t hidden;   /* columns of the fused QKV weight          MUONCLIP-LAYOUT-1 */
                     /* (kimi-mla: of the shared rotary key)     MUONCLIP-LAYOUT-MLA */
    /* Appended for the kimi-mla profile only (MUONCLIP-LAYOUT-MLA); the other profiles ignore
     * them. head_dim is then d_c, the non-rotary query/key dimension. */
    size_t rope_dim; /* d_r, rows of W_qr per head and of W_kr   MUONCLIP-LAYOUT-MLA */
    size_t v_dim;    /* d_v, value rows per head of W_kv up     MUONCLIP-LAYOUT-MLA */
    size_t q_cols;   /* columns of W_q up (q_lora_rank)          MUONCLIP-LAYOUT-MLA */
    size_t kv_cols;  /* columns of W_kv up (kv_lora_rank)        MUONCLIP-LAYOUT-MLA */
} oc_muon_clip_config;

/* MUONCLIP-LAYOUT-1: each size of a layout (heads, groups, head_dim, hidden; under
 * MUONCLIP-LAYOUT-MLA also rope_dim, v_dim, q_cols, kv_cols) is at most 2^20. */
#define OC_MUON_CLIP_MAX_DIM ((size_t)1 << 20)

/* A layout oc_muon_clip_check accepts (its integer conditions; every size at most 2^20, so no
 * size_t product of the reference overflows), the elements of its weight (oc_muon_clip_len),
 * and a group of such a layout. */
/*@ predicate mla_sizes_ok(oc_muon_clip_config *c) =
        1 <= c->rope_dim <= OC_MUON_CLIP_MAX_DIM && 1 <= c->v_dim <= OC_MUON_CLIP_MAX_DIM &&
        1 <= c->q_cols <= OC_MUON_CLIP_MAX_DIM && 1 <= c->kv_cols <= OC_MUON_CLIP_MAX_DIM;
    predicate layout_ok(oc_muon_clip_config *c) =
        0 <= c->profile < OC_MUON_CLIP_PROFILE_COUNT &&
        1 <= c->groups <= c->heads <= OC_MUON_CLIP_MAX_DIM && c->heads % c->groups == 0 &&
        1 <= c->head_dim <= OC_MUON_CLIP_MAX_DIM && 1 <= c->hidden <= OC_MUON_CLIP_MAX_DIM &&
        (c->profile != OC_MUON_CLIP_MEGATRON ==> c->groups == c->heads) &&
        (c->profile == OC_MUON_CLIP_KIMI_MLA ==> mla_sizes_ok(c));
    logic integer head_elems(oc_muon_clip_config *c) = c->head_dim * c->hidden;
    logic integer group_elems(oc_muon_clip_config *c) = (c->heads / c->groups + 2) * head_elems(c);
    logic integer q_head(oc_muon_clip_config *c) = (c->head_dim + c->rope_dim) * c->q_cols;
    logic integer kv_head(oc_muon_clip_config *c) = (c->head_dim + c->v_dim) * c->kv_cols;
    logic integer shared_key(oc_muon_clip_config *c) = c->heads * q_head(c) + c->heads * kv_head(c);
    logic integer qk_len(oc_muon_clip_config *c) =
        c->profile == OC_MUON_CLIP_KIMI_MLA ? shared_key(c) + c->rope_dim * c->hidden
        : c->groups * group_elems(c);
    predicate in_group(oc_muon_clip_config *c, integer g) = layout_ok(c) && 0 <= g < c->groups; */

const char *oc_muon_clip_profile_name(oc_muon_clip_profile pr);
/*@ requires name_ok: valid_read_string(name) && \valid(out);
    assigns *out;
    ensures known: \result == OC_OK ==> 0 <= *out < OC_MUON_CLIP_PROFILE_COUNT; */
oc_status oc_muon_clip_profile_parse(const char *name, oc_muon_clip_profile *out);

/* MUONCLIP-CFG-1 and MUONCLIP-LAYOUT-1 (the checks of oc_ref_muon_clip before its buffer
 * checks). */
/*@ requires config_ok: \valid_read(c);
    assigns \nothing;
    ensures accepted: \result == OC_OK ==> layout_ok(c); */
oc_status oc_muon_clip_check(const oc_muon_clip_config *c);

/* Rows of the fused QKV weight: groups (heads / groups + 2) head_dim (MUONCLIP-LAYOUT-1). */
size_t oc_muon_clip_rows(const oc_muon_clip_config *c);

/* Elements of the weight buffer of a layout the profile accepts: oc_muon_clip_rows x hidden, or
 * for kimi-mla [W_q up; W_kv up; W_kr] (MUONCLIP-LAYOUT-MLA). */
/*@ requires config_ok: \valid_read(c);
    requires sizes: c->groups >= 1 && c->groups <= OC_MUON_CLIP_MAX_DIM &&
                    c->heads <= OC_MUON_CLIP_MAX_DIM;
    requires head: c->head_dim <= OC_MUON_CLIP_MAX_DIM && c->heads % c->groups == 0;
    assigns \nothing;
    ensures length: layout_ok(c) ==> \result == qk_len(c) < 0x8000000000000000; */
size_t oc_muon_clip_len(const oc_muon_clip_config *c);

/* Which factor a part of the weight is scaled by when its head or group is clipped. */
typedef enum oc_muon_clip_part {
    OC_QK_PART_Q = 0,    /* gamma^alpha:       W_q, or W_qc (MLA)     MUONCLIP-SCALE-1 */
    OC_QK_PART_K,        /* gamma^(1 - alpha): W_k, or W_kc (MLA)     MUONCLIP-SCALE-1 */
    OC_QK_PART_Q_ROTARY  /* gamma:             W_qr (MLA)             MUONCLIP-SCALE-MLA */
} oc_muon_clip_part;

typedef struct oc_muon_clip_segment {
    size_t offset, len; /* elements of the weight buffer */
    oc_muon_clip_part part;
} oc_muon_clip_segment;

/* The parts of the weight that clipping group g (a head under the per-head profiles) scales,
 * in buffer order; returns how many (2 or 3). For a configuration oc_ref_muon_clip accepts and
 * g < groups. v rows and the shared rotary key W_kr are in none of them. */
/*@ requires buffers: \valid_read(c) && \valid(seg + (0 .. 2)) && \separated(c, seg + (0 .. 2));
    requires sizes: c->groups >= 1 && c->groups <= OC_MUON_CLIP_MAX_DIM &&
                    c->heads <= OC_MUON_CLIP_MAX_DIM;
    requires whole_groups: c->heads % c->groups == 0;
    assigns seg[0 .. 2];
    ensures count: 2 <= \result <= 3;
    behavior mla:
      assumes c->profile == OC_MUON_CLIP_KIMI_MLA;
      ensures mla_inside: \old(in_group(c, g)) ==> \forall integer k; 0 <= k < \result ==>
          0 <= seg[k].part <= OC_QK_PART_Q_ROTARY &&
          seg[k].offset + seg[k].len <= \old(qk_len(c));
    behavior blocks:
      assumes c->profile != OC_MUON_CLIP_KIMI_MLA;
      ensures blocks_inside: \old(in_group(c, g)) ==> \forall integer k; 0 <= k < \result ==>
          0 <= seg[k].part <= OC_QK_PART_Q_ROTARY &&
          seg[k].offset + seg[k].len <= \old(qk_len(c));
    complete behaviors;
    disjoint behaviors; */
size_t oc_muon_clip_segments(const oc_muon_clip_config *c, size_t g, oc_muon_clip_segment seg[3]);

/* MUONCLIP-ERR-1: the checks of oc_ref_muon_clip, all made before any write (the configuration,
 * the buffers, every max_dot and w entry finite). */
/*@ requires config_ok: c == \null || \valid_read(c);
    requires buffers: c != \null && layout_ok(c) ==>
        \valid_read(max_dot + (0 .. c->heads - 1)) && \valid_read(w + (0 .. qk_len(c) - 1));
    assigns \nothing;
    ensures accepted: \result == OC_OK ==> c != \null && layout_ok(c); */
oc_status oc_muon_clip_check_args(const oc_muon_clip_config *c, const float *max_dot,
                                  const float *w);

/* The pieces of the clip (conformance/mutants/muon_clip.c recombines them):
 * MUONCLIP-LOGIT-1 (-MLA): the logit S = max_dot / sqrt(d) of one head. */
/*@ requires config_ok: \valid_read(c);
    assigns \nothing; */
double oc_muon_clip_logit(const oc_muon_clip_config *c, float max_dot);
/* MUONCLIP-GAMMA-1: 1 when a group (head) of largest logit s is clipped, with its factors
 * indexed by oc_muon_clip_part (MUONCLIP-SCALE-1, MUONCLIP-SCALE-MLA); 0 otherwise. */
/*@ requires config_ok: \valid_read(c);
    requires factors: \valid(factor + (0 .. 2)) && \separated(factor + (0 .. 2), c);
    assigns factor[0 .. 2], errno; */
int oc_muon_clip_factors(const oc_muon_clip_config *c, double s, double factor[3]);
/* MUONCLIP-STORE-1: w[0 .. len) times f, each rounded once to binary32. */
/*@ requires weight: \valid(w + (0 .. len - 1));
    assigns w[0 .. len - 1]; */
void oc_muon_clip_scale(float *w, size_t len, double f);
/* The segments of group g (oc_muon_clip_segments) of the weight w scaled by their factors. */
/*@ requires group: \valid_read(c) && layout_ok(c) && g < c->groups;
    requires buffers: \valid_read(factor + (0 .. 2)) && \valid(w + (0 .. qk_len(c) - 1));
    requires apart: \separated(w + (0 .. qk_len(c) - 1), c, factor + (0 .. 2));
    assigns w[0 .. qk_len(c) - 1]; */
void oc_muon_clip_group(const oc_muon_clip_config *c, size_t g, const double factor[3], float *w);

/* Clips the fused QKV weight w (oc_muon_clip_len fp32, row-major, Megatron's per-group
 * [q heads of the group; k; v] layout, or the MLA layout of MUONCLIP-LAYOUT-MLA) in place, given
 * max_dot[h], the largest raw dot product q_i . k_j of head h over the batch (before the
 * 1/sqrt(d) softmax scale): each group whose largest logit (MUONCLIP-GROUP-1) exceeds tau is
 * scaled. On error nothing is written (MUONCLIP-ERR-1). */
/*@ requires config_ok: c == \null || \valid_read(c);
    requires buffers: c != \null && layout_ok(c) ==>
        \valid_read(max_dot + (0 .. c->heads - 1)) && \valid(w + (0 .. qk_len(c) - 1)) &&
        \separated(w + (0 .. qk_len(c) - 1), c, max_dot + (0 .. c->heads - 1));
    assigns w[0 .. qk_len(c) - 1], errno; */
oc_status oc_ref_muon_clip(const oc_muon_clip_config *c, const float *max_dot, float *w);

#endif
