#include "fuzz_stub.h"

static oc_status routed(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                        int64_t step, float *p, float *m, float *v, const float *g,
                        oc_route *route)
{
    (void)ctx, (void)hp, (void)info, (void)step, (void)p, (void)m, (void)v, (void)g;
    *route = (oc_route)(signed char)oc_fuzz_next(); /* in range or not */
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_muon_route = {
    .algorithm = "muon-route",
    .entry = (oc_entry_point)routed,
};
