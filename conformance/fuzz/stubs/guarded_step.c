#include "fuzz_stub.h"

static oc_status guarded(void *ctx, const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                         oc_loss_scale_state *scaler_state, size_t nsub, oc_sub_optimizer *subs,
                         int64_t *position, int64_t increment, float *grad_norm,
                         oc_step_outcome *outcome)
{
    (void)ctx, (void)cfg, (void)scaler, (void)scaler_state, (void)nsub, (void)subs;
    (void)position, (void)increment;
    *grad_norm = (float)oc_fuzz_next();
    *outcome = (oc_step_outcome)(signed char)oc_fuzz_next(); /* in range or not */
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_guarded_step = {
    .algorithm = "guarded-step",
    .entry = (oc_entry_point)guarded,
};
