/* muonclip-kimi: WRITE_INPUTS zeroes the first logit maximum before the call.
 * expect write_inputs muonclip-kimi: wrote to its input max_dot */
#include "hostile_wrap.h"

static oc_status qk_clip(void *ctx, const oc_qk_clip_config *c, const float *max_dot, float *w)
{
    static int calls;
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS && c->heads)
        ((float *)max_dot)[0] = 0.0f;
    return FAST("muonclip-kimi", oc_qk_clip_fn)(ctx, c, max_dot, w);
}

const hostile_wrap hostile_wrap_qk_clip = {
    .family = "muonclip-kimi",
    .entry = (oc_entry_point)qk_clip,
};
