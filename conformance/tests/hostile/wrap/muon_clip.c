/* muonclip-kimi: WRITE_INPUTS zeroes the first logit maximum before the call.
 * expect write_inputs muonclip-kimi: wrote to its input max_dot */
#include "hostile_wrap.h"

static oc_status muon_clip(void *ctx, const oc_muon_clip_config *c, const float *max_dot, float *w)
{
    static int calls;
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS && c->heads)
        ((float *)max_dot)[0] = 0.0f;
    return FAST("muonclip-kimi", oc_muon_clip_fn)(ctx, c, max_dot, w);
}

const hostile_wrap hostile_wrap_muon_clip = {
    .family = "muonclip-kimi",
    .entry = (oc_entry_point)muon_clip,
};
