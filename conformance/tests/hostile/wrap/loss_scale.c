/* loss-scale-torch: WRITE_INPUTS changes the scaler's growth factor before the call.
 * expect write_inputs loss-scale-torch: wrote to its input hyper-parameters */
#include "hostile_wrap.h"

static oc_status loss_scale_update(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                                   int found_inf)
{
    static int calls;
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_loss_scaler *)c)->growth_factor = 3.0f;
    return FAST("loss-scale-torch", oc_loss_scale_update_fn)(ctx, c, s, found_inf);
}

const hostile_wrap hostile_wrap_loss_scale = {
    .family = "loss-scale-torch",
    .entry = (oc_entry_point)loss_scale_update,
};
