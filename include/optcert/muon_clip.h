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
} oc_qk_clip_config;

typedef enum oc_qk_clip_mutant {
    OC_QK_CLIP_CORRECT = 0,
    OC_QK_CLIP_MUT_GAMMA_ON_BOTH,   /* W_q and W_k both times gamma (instead of gamma^alpha ...) */
    OC_QK_CLIP_MUT_ALL_HEADS,       /* one gamma from the layer's max, applied to every head */
    OC_QK_CLIP_MUT_NO_SQRT_D,       /* S = max q.k, not divided by sqrt(d) */
    OC_QK_CLIP_MUTANT_COUNT
} oc_qk_clip_mutant;

const char *oc_qk_clip_mutant_name(oc_qk_clip_mutant mu);
const char *oc_qk_clip_profile_name(oc_qk_clip_profile pr);
oc_status oc_qk_clip_profile_parse(const char *name, oc_qk_clip_profile *out);

/* MUONCLIP-CFG-1 and MUONCLIP-LAYOUT-1 (the checks of oc_ref_qk_clip before its buffer checks). */
oc_status oc_qk_clip_check(const oc_qk_clip_config *c);

/* Rows of the fused QKV weight: groups (heads / groups + 2) head_dim (MUONCLIP-LAYOUT-1). */
size_t oc_qk_clip_rows(const oc_qk_clip_config *c);

/* Clips the fused QKV weight w (oc_qk_clip_rows x hidden fp32, row-major, Megatron's
 * per-group [q heads of the group; k; v] layout) in place, given max_dot[h], the largest raw
 * dot product q_i . k_j of head h over the batch (before the 1/sqrt(d) softmax scale). On
 * error nothing is written (MUONCLIP-ERR-1). */
oc_status oc_ref_qk_clip(const oc_qk_clip_config *c, const float *max_dot, float *w,
                         oc_qk_clip_mutant mutant);

#endif
