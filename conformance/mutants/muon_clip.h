/* The MuonClip (QK-clip) mutant catalogue (spec/muon.md, MUONCLIP-*): variant clips built from
 * the reference's pieces (include/optcert/muon_clip.h), each with one catalogued mistake,
 * beside the harness, not in ref/ (issue 16 item 3, as conformance/mutants/adam.h). */
#ifndef OPTCERT_MUTANTS_MUON_CLIP_H
#define OPTCERT_MUTANTS_MUON_CLIP_H

#include "optcert/muon_clip.h"

typedef enum oc_muon_clip_mutant {
    OC_MUON_CLIP_CORRECT = 0,
    OC_MUON_CLIP_MUT_GAMMA_ON_BOTH, /* W_q and W_k both times gamma (instead of gamma^alpha ...) */
    OC_MUON_CLIP_MUT_ALL_HEADS,     /* one gamma from the layer's max, applied to every head */
    OC_MUON_CLIP_MUT_NO_SQRT_D,     /* S = max q.k, not divided by sqrt(d) */
    OC_MUON_CLIP_MUT_ROTARY_Q_SQRT, /* kimi-mla: W_qr by gamma^alpha instead of gamma */
    OC_MUON_CLIP_MUT_SHARED_KEY,    /* kimi-mla: W_kr by gamma^(1-alpha) of every clipped head */
    OC_MUON_CLIP_MUTANT_COUNT
} oc_muon_clip_mutant;

/* Stable short name of a mutant (NULL if out of range). */
const char *oc_muon_clip_mutant_name(oc_muon_clip_mutant mu);

/* oc_ref_muon_clip with mistake mu (OC_MUON_CLIP_CORRECT: the reference itself); on an input the
 * reference rejects, the reference's status and nothing written. */
oc_status oc_muon_clip_mutant_clip(oc_muon_clip_mutant mu, const oc_muon_clip_config *c,
                                   const float *max_dot, float *w);

#endif
