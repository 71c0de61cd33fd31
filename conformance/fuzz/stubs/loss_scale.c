#include "fuzz_stub.h"

static oc_status loss_scale(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                            int found_inf)
{
    (void)ctx, (void)c, (void)found_inf;
    if (oc_fuzz_writes())
        s->scale = (float)oc_fuzz_next() - 1.0f;
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_loss_scale = {
    .algorithm = "loss-scale",
    .entry = (oc_entry_point)loss_scale,
};
