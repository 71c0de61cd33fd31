/* Eva driver for ref/muon_clip.c: oc_ref_muon_clip on every layout up to 4 heads, 1 or 2 groups,
 * head dimension 1 or 2, hidden 1 or 2 (and out-of-range sizes), every profile. The mutants
 * (conformance/mutants/muon_clip.c) recombine its pieces on the same ranges: a raw logit is
 * within the range of the logits below.
 *
 * Analysed with ref/muon_clip.c, ref/buffers.c, proofs/fmax.c, -eva-split-return auto and
 * -warn-special-float non-finite: "0 alarms" means that for every input in the ranges below no float/double
 * operation yields NaN or an infinity (the logit's division by sqrt(d), gamma = tau / S, the two
 * pow calls and the products with their conversions to binary32), no access is out of bounds and
 * no integer operation overflows.
 *
 * Stated ranges: profile every value and one out of range (and the MLA layout with
 * heads in [0, 4], d_c, d_r, d_v = kvCols in [0, 2], qCols 2, hidden 1); tau in [-1, 2^21]; alpha
 * in [-1, 2]; every layout with heads in [0, 4], groups in [0, 2], head_dim
 * and hidden in [0, 2], each analysed separately; logits any
 * binary32 value in [-2^100, 2^100]; weights in [-2^100, 2^100] (finite: MUONCLIP-ERR-1 rejects
 * the others before any arithmetic). */
#include "__fc_builtin.h"
#include "optcert/muon_clip.h"

#define HEADS 4
/* the largest buffer: MLA, heads x ((d_c + d_r) 2 + (d_c + d_v) 2) + d_r x 1 */
#define MAX_W (HEADS * (4 * 2 + 4 * 2) + 2)

int main(void)
{
    static float max_dot[HEADS], w[MAX_W];
    for (int h = 0; h < HEADS; h++)
        max_dot[h] = Frama_C_float_interval(-0x1p100f, 0x1p100f);
    for (int i = 0; i < MAX_W; i++)
        w[i] = Frama_C_float_interval(-0x1p100f, 0x1p100f);
    oc_status st = OC_OK;
    for (size_t heads = 0; heads <= HEADS; heads++)
        for (size_t groups = 0; groups <= 2; groups++)
            for (size_t d = 0; d <= 2; d++)
                for (size_t hidden = 0; hidden <= 2; hidden++) {
                    oc_muon_clip_config c = {
                        (oc_muon_clip_profile)Frama_C_interval(0, OC_MUON_CLIP_PROFILE_COUNT),
                        Frama_C_double_interval(-1.0, 0x1p21), Frama_C_double_interval(-1.0, 2.0),
                        heads, groups, d, hidden, 0, 0, 0, 0};
                    /* w holds the largest layout of these ranges */
                    st |= oc_ref_muon_clip(&c, max_dot, w);
                }
    /* MUONCLIP-LAYOUT-MLA: d_c, d_r, d_v, kvCols in [0, 2], qCols 2, hidden 1 */
    for (size_t heads = 0; heads <= HEADS; heads++)
        for (size_t dc = 0; dc <= 2; dc++)
            for (size_t dr = 0; dr <= 2; dr++)
                for (size_t s = 0; s <= 2; s++) {
                    oc_muon_clip_config c = {
                        OC_MUON_CLIP_KIMI_MLA, Frama_C_double_interval(-1.0, 0x1p21),
                        Frama_C_double_interval(-1.0, 2.0), heads, heads, dc, 1, dr, s, 2, s};
                    st |= oc_ref_muon_clip(&c, max_dot, w);
                }
    oc_muon_clip_profile p = OC_MUON_CLIP_KIMI;
    oc_status st2 = oc_muon_clip_profile_parse(Frama_C_nondet(0, 1) ? "megatron" : "other", &p);
    return (int)st + (int)st2 + (int)p + (oc_muon_clip_profile_name(p) != 0);
}
