/* adafactor-torch: WRITE_INPUTS changes the gradient after the call; OVERRUN writes one element
 * past p.
 * expect write_inputs adafactor-torch: wrote to its input g
 * expect overrun adafactor-torch: wrote past the end of its output p */
#include "hostile_wrap.h"

static oc_status adafactor_step(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                int64_t step, oc_adafactor_state *s, const float *g)
{
    static int calls;
    oc_status st = FAST("adafactor-torch", oc_adafactor_step_fn)(ctx, hp, sh, step, s, g);
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS)
        ((float *)g)[0] += 1.0f;
    if (calls == 1 && HOSTILE == OVERRUN)
        s->p[sh.rows * sh.cols] = 0.0f;
    return st;
}

const hostile_wrap hostile_wrap_adafactor = {
    .family = "adafactor-torch",
    .entry = (oc_entry_point)adafactor_step,
};
