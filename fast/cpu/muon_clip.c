/* MuonClip (QK-clip) in the fast CPU backend (spec/fast.md FAST-MUONCLIP-1, spec/muon.md
 * MUONCLIP-*): the logits in binary32 as MUONCLIP-TOL-1 derives (sqrtf, a quotient, an exact
 * max), the factor gamma^alpha of a clipped group in binary64 rounded once to binary32 (so that
 * it keeps its precision when gamma is below the normal binary32 range), and one binary32
 * product per clipped weight; the MLA layout (MUONCLIP-LAYOUT-MLA) through the reference's
 * oc_muon_clip_segments. Checks in the reference's order, all before the first write. */
#include <math.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "internal.h"
#include "../common/fast_families.h"

oc_status oc_fast_muon_clip(const oc_muon_clip_config *c, const float *max_dot, float *w)
{
    if (c == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_muon_clip_check(c); /* MUONCLIP-CFG-1, MUONCLIP-LAYOUT-1 */
    if (st != OC_OK)
        return st;
    size_t n = oc_muon_clip_len(c), per = c->heads / c->groups;
    if ((st = oc_buffer_check(max_dot, c->heads, sizeof(float))) ||
        (st = oc_buffer_check(w, n, sizeof(float))) ||
        (st = oc_buffer_disjoint(max_dot, c->heads * sizeof(float), w, n * sizeof(float))))
        return st;
    if (oc_fast_any_nonfinite(max_dot, c->heads) || oc_fast_any_nonfinite(w, n))
        return OC_ERR_NONFINITE; /* MUONCLIP-ERR-1 */
    size_t d = c->head_dim + (c->profile == OC_MUON_CLIP_KIMI_MLA ? c->rope_dim : 0);
    float root_d = sqrtf((float)d);           /* d <= 2^21: exact conversion (LOGIT-MLA) */
    for (size_t g = 0; g < c->groups; g++) {
        float s = max_dot[g * per] / root_d;  /* MUONCLIP-LOGIT-1 */
        for (size_t h = 1; h < per; h++)      /* MUONCLIP-GROUP-1 */
            s = fmaxf(s, max_dot[g * per + h] / root_d);
        if (!(s > c->tau))                    /* MUONCLIP-GAMMA-1 */
            continue;
        double gamma = c->tau / s;
        /* MUONCLIP-SCALE-1, MUONCLIP-SCALE-MLA, by oc_muon_clip_part; v rows and W_kr untouched */
        float factor[3] = {(float)pow(gamma, c->alpha), (float)pow(gamma, 1.0 - c->alpha),
                           (float)gamma};
        oc_muon_clip_segment seg[3];
        for (size_t p = 0, parts = oc_muon_clip_segments(c, g, seg); p < parts; p++)
            oc_fast_scale(w + seg[p].offset, seg[p].len, factor[seg[p].part]);
    }
    return OC_OK;
}

/* Plugin ABI v3 (VEC-ABI-1): the muonclip-* families' entry point. */
static oc_status muon_clip_entry(void *ctx, const oc_muon_clip_config *c, const float *max_dot,
                                 float *w)
{
    (void)ctx;
    return oc_fast_muon_clip(c, max_dot, w);
}

const oc_fast_algorithm oc_fast_cpu_muon_clip = {
    .algorithm = "muonclip",
    .entry = (oc_entry_point)muon_clip_entry,
};
