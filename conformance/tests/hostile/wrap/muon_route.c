/* muon-route-megatron: WRITE_INPUTS changes the gradient after the call; OVERRUN writes one element
 * past p.
 * expect write_inputs muon-route-megatron: wrote to its input g
 * expect overrun muon-route-megatron: wrote past the end of its output p */
#include "hostile_wrap.h"

static oc_status routed_step(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                             int64_t step, float *p, float *m, float *v, const float *g,
                             oc_route *route)
{
    static int calls;
    size_t n = 1;
    for (int k = 0; k < info->ndim; k++)
        n *= info->dims[k];
    oc_status st =
        FAST("muon-route-megatron", oc_routed_step_fn)(ctx, hp, info, step, p, m, v, g, route);
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS && n)
        ((float *)g)[0] += 1.0f;
    if (calls == 1 && HOSTILE == OVERRUN)
        p[n] = 0.0f;
    return st;
}

const hostile_wrap hostile_wrap_routed = {
    .family = "muon-route-megatron",
    .entry = (oc_entry_point)routed_step,
};
