/* clip-torch: WRITE_INPUTS changes max_norm after the call; OVERRUN writes one element past the
 * last view's clipped gradient.
 * expect write_inputs clip-torch: wrote to its input hyper-parameters
 * expect overrun clip-torch: wrote past the end of its output grad */
#include "hostile_wrap.h"

static oc_status clip_step(void *ctx, const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                           float *total_norm, int *skipped)
{
    static int calls;
    oc_status st =
        FAST("clip-torch", oc_clip_step_fn)(ctx, c, nviews, views, total_norm, skipped);
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_clip_config *)c)->max_norm = 0.5;
    if (calls == 1 && HOSTILE == OVERRUN && nviews)
        views[nviews - 1].grad[views[nviews - 1].length] = 0.0f;
    return st;
}

const hostile_wrap hostile_wrap_clip = {
    .family = "clip-torch",
    .entry = (oc_entry_point)clip_step,
};
