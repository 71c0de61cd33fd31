/* MuonClip (QK-clip) in the fast CPU backend (spec/fast.md FAST-MUONCLIP-1, spec/muon.md
 * MUONCLIP-*): the logits in binary32 as MUONCLIP-TOL-1 derives (sqrtf, a quotient, an exact
 * max), the factor gamma^alpha of a clipped group in binary64 rounded once to binary32 (so that
 * it keeps its precision when gamma is below the normal binary32 range), and one binary32
 * product per clipped weight. Checks in the reference's order, all before the first write. */
#include <math.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "internal.h"

oc_status oc_fast_qk_clip(const oc_qk_clip_config *c, const float *max_dot, float *w)
{
    if (c == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_qk_clip_check(c); /* MUONCLIP-CFG-1, MUONCLIP-LAYOUT-1 */
    if (st != OC_OK)
        return st;
    if (c->profile == OC_QK_CLIP_KIMI_MLA) /* the MLA layout is not implemented here */
        return OC_ERR_BAD_PROFILE;         /* (no OC_CAP_QK_CLIP_MLA) */
    size_t n = oc_qk_clip_rows(c) * c->hidden, per = c->heads / c->groups;
    if ((st = oc_buffer_check(max_dot, c->heads, sizeof(float))) ||
        (st = oc_buffer_check(w, n, sizeof(float))) ||
        (st = oc_buffer_disjoint(max_dot, c->heads * sizeof(float), w, n * sizeof(float))))
        return st;
    if (oc_fast_any_nonfinite(max_dot, c->heads) || oc_fast_any_nonfinite(w, n))
        return OC_ERR_NONFINITE; /* MUONCLIP-ERR-1 */
    float root_d = sqrtf((float)c->head_dim); /* head_dim <= 2^20: exact conversion */
    size_t dh = c->head_dim * c->hidden;      /* elements of one head's rows */
    for (size_t g = 0; g < c->groups; g++) {
        float s = max_dot[g * per] / root_d;  /* MUONCLIP-LOGIT-1 */
        for (size_t h = 1; h < per; h++)      /* MUONCLIP-GROUP-1 */
            s = fmaxf(s, max_dot[g * per + h] / root_d);
        if (!(s > c->tau))                    /* MUONCLIP-GAMMA-1 */
            continue;
        double gamma = c->tau / s;
        float *block = w + g * (per + 2) * dh; /* [q heads; k; v] of group g (LAYOUT-1) */
        oc_fast_scale(block, per * dh, (float)pow(gamma, c->alpha));  /* MUONCLIP-SCALE-1 */
        oc_fast_scale(block + per * dh, dh, (float)pow(gamma, 1.0 - c->alpha));
    }
    return OC_OK;
}
