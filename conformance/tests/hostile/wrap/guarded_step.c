/* guarded-step-megatron: WRITE_INPUTS changes the clipping threshold after the call; OVERRUN
 * writes one element past the first sub-optimizer's first parameter.
 * expect write_inputs guarded-step-megatron: wrote to its input hyper-parameters
 * expect overrun guarded-step-megatron: wrote past the end of p of parameter 0 of sub-optimizer 0 */
#include "hostile_wrap.h"

static oc_status guarded_step(void *ctx, const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                              oc_loss_scale_state *scaler_state, size_t nsub,
                              oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                              float *grad_norm, oc_step_outcome *outcome)
{
    static int calls;
    oc_status st = FAST("guarded-step-megatron", oc_guarded_step_fn)(
        ctx, cfg, scaler, scaler_state, nsub, subs, position, increment, grad_norm, outcome);
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_guard_config *)cfg)->clip_grad = 1e-3;
    if (calls == 1 && HOSTILE == OVERRUN && nsub && subs[0].nparams)
        subs[0].params[0].p[subs[0].params[0].n] = 0.0f;
    return st;
}

const hostile_wrap hostile_wrap_guarded = {
    .family = "guarded-step-megatron",
    .entry = (oc_entry_point)guarded_step,
};
