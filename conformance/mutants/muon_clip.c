/* MuonClip mutants (spec/muon.md, MUONCLIP-*): the reference's clip recomposed from its pieces
 * with a mistaken logit (MUONCLIP-LOGIT-1), group maximum (MUONCLIP-GROUP-1), factor
 * (MUONCLIP-SCALE-1, -SCALE-MLA) or an extra scaled part (the shared rotary key). */
#include <math.h>
#include "muon_clip.h"

static const char *const names[OC_MUON_CLIP_MUTANT_COUNT] = {
    "correct",       "gamma-on-both", "all-heads-clipped", "logit-not-divided-by-sqrt-d",
    "rotary-query-by-sqrt-gamma", "shared-rotary-key-clipped"};

const char *oc_muon_clip_mutant_name(oc_muon_clip_mutant mu)
{
    return (unsigned)mu < OC_MUON_CLIP_MUTANT_COUNT ? names[mu] : NULL;
}

/* The largest logit of heads [first, end), the raw dot product under no-sqrt-d. */
static double largest(oc_muon_clip_mutant mu, const oc_muon_clip_config *c, const float *max_dot,
                      size_t first, size_t end)
{
    double s = -INFINITY;
    for (size_t h = first; h < end; h++)
        s = fmax(s, mu == OC_MUON_CLIP_MUT_NO_SQRT_D ? (double)max_dot[h]
                                                     : oc_muon_clip_logit(c, max_dot[h]));
    return s;
}

oc_status oc_muon_clip_mutant_clip(oc_muon_clip_mutant mu, const oc_muon_clip_config *c,
                                   const float *max_dot, float *w)
{
    if (mu == OC_MUON_CLIP_CORRECT || (unsigned)mu >= OC_MUON_CLIP_MUTANT_COUNT ||
        oc_muon_clip_check_args(c, max_dot, w) != OC_OK)
        return oc_ref_muon_clip(c, max_dot, w);
    size_t per = c->heads / c->groups;
    double layer_max = largest(mu, c, max_dot, 0, c->heads);
    for (size_t g = 0; g < c->groups; g++) {
        double f[3];
        double s = mu == OC_MUON_CLIP_MUT_ALL_HEADS
                       ? layer_max
                       : largest(mu, c, max_dot, g * per, g * per + per);
        if (!oc_muon_clip_factors(c, s, f))
            continue;
        if (mu == OC_MUON_CLIP_MUT_GAMMA_ON_BOTH) /* f[OC_QK_PART_Q_ROTARY] is gamma */
            f[OC_QK_PART_Q] = f[OC_QK_PART_K] = f[OC_QK_PART_Q_ROTARY];
        if (mu == OC_MUON_CLIP_MUT_ROTARY_Q_SQRT)
            f[OC_QK_PART_Q_ROTARY] = f[OC_QK_PART_Q];
        oc_muon_clip_group(c, g, f, w);
        if (mu == OC_MUON_CLIP_MUT_SHARED_KEY && c->profile == OC_MUON_CLIP_KIMI_MLA) {
            size_t key_len = c->rope_dim * c->hidden; /* W_kr ends the buffer */
            oc_muon_clip_scale(w + oc_muon_clip_len(c) - key_len, key_len, f[OC_QK_PART_K]);
        }
    }
    return OC_OK;
}
