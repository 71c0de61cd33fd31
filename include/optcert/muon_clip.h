/* MuonClip, Kimi K2's QK-clip (spec/muon.md, rules MUONCLIP-*): after the optimizer step, the
 * query and key rows of every attention head (or query group) whose largest logit exceeded tau
 * are scaled down so that the logit would be tau. */
#ifndef OPTCERT_MUON_CLIP_H
#define OPTCERT_MUON_CLIP_H

#include <stddef.h>
#include "optcert/status.h"

typedef enum oc_qk_clip_profile {
    OC_QK_CLIP_KIMI = 0,  /* per head; multi-head layouts only     MUONCLIP-PROF-KIMI */
    OC_QK_CLIP_MEGATRON,  /* per query group (GQA)                 MUONCLIP-PROF-MEGATRON */
    OC_QK_CLIP_KIMI_MLA,  /* per head, multi-head latent attention MUONCLIP-PROF-KIMI-MLA */
    OC_QK_CLIP_PROFILE_COUNT
} oc_qk_clip_profile;

typedef struct oc_qk_clip_config {
    oc_qk_clip_profile profile;
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
} oc_qk_clip_config;

const char *oc_qk_clip_profile_name(oc_qk_clip_profile pr);
oc_status oc_qk_clip_profile_parse(const char *name, oc_qk_clip_profile *out);

/* MUONCLIP-CFG-1 and MUONCLIP-LAYOUT-1 (the checks of oc_ref_qk_clip before its buffer checks). */
oc_status oc_qk_clip_check(const oc_qk_clip_config *c);

/* Rows of the fused QKV weight: groups (heads / groups + 2) head_dim (MUONCLIP-LAYOUT-1). */
size_t oc_qk_clip_rows(const oc_qk_clip_config *c);

/* Elements of the weight buffer of a layout the profile accepts: oc_qk_clip_rows x hidden, or
 * for kimi-mla [W_q up; W_kv up; W_kr] (MUONCLIP-LAYOUT-MLA). */
size_t oc_qk_clip_len(const oc_qk_clip_config *c);

/* Which factor a part of the weight is scaled by when its head or group is clipped. */
typedef enum oc_qk_clip_part {
    OC_QK_PART_Q = 0,    /* gamma^alpha:       W_q, or W_qc (MLA)     MUONCLIP-SCALE-1 */
    OC_QK_PART_K,        /* gamma^(1 - alpha): W_k, or W_kc (MLA)     MUONCLIP-SCALE-1 */
    OC_QK_PART_Q_ROTARY  /* gamma:             W_qr (MLA)             MUONCLIP-SCALE-MLA */
} oc_qk_clip_part;

typedef struct oc_qk_clip_segment {
    size_t offset, len; /* elements of the weight buffer */
    oc_qk_clip_part part;
} oc_qk_clip_segment;

/* The parts of the weight that clipping group g (a head under the per-head profiles) scales,
 * in buffer order; returns how many (2 or 3). For a configuration oc_ref_qk_clip accepts and
 * g < groups. v rows and the shared rotary key W_kr are in none of them. */
size_t oc_qk_clip_segments(const oc_qk_clip_config *c, size_t g, oc_qk_clip_segment seg[3]);

/* MUONCLIP-ERR-1: the checks of oc_ref_qk_clip, all made before any write (the configuration,
 * the buffers, every max_dot and w entry finite). */
oc_status oc_qk_clip_check_args(const oc_qk_clip_config *c, const float *max_dot, const float *w);

/* The pieces of the clip (conformance/mutants/muon_clip.c recombines them):
 * MUONCLIP-LOGIT-1 (-MLA): the logit S = max_dot / sqrt(d) of one head. */
double oc_qk_clip_logit(const oc_qk_clip_config *c, float max_dot);
/* MUONCLIP-GAMMA-1: 1 when a group (head) of largest logit s is clipped, with its factors
 * indexed by oc_qk_clip_part (MUONCLIP-SCALE-1, MUONCLIP-SCALE-MLA); 0 otherwise. */
int oc_qk_clip_factors(const oc_qk_clip_config *c, double s, double factor[3]);
/* MUONCLIP-STORE-1: w[0 .. len) times f, each rounded once to binary32. */
void oc_qk_clip_scale(float *w, size_t len, double f);
/* The segments of group g (oc_qk_clip_segments) of the weight w scaled by their factors. */
void oc_qk_clip_group(const oc_qk_clip_config *c, size_t g, const double factor[3], float *w);

/* Clips the fused QKV weight w (oc_qk_clip_len fp32, row-major, Megatron's per-group
 * [q heads of the group; k; v] layout, or the MLA layout of MUONCLIP-LAYOUT-MLA) in place, given
 * max_dot[h], the largest raw dot product q_i . k_j of head h over the batch (before the
 * 1/sqrt(d) softmax scale): each group whose largest logit (MUONCLIP-GROUP-1) exceeds tau is
 * scaled. On error nothing is written (MUONCLIP-ERR-1). */
oc_status oc_ref_qk_clip(const oc_qk_clip_config *c, const float *max_dot, float *w);

#endif
