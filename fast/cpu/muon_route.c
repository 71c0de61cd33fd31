/* The mixed Muon + AdamW step on one parameter in the fast CPU backend (spec/fast.md
 * FAST-ROUTE-1, spec/muon.md ROUTE-*): the reference's checks in its order, its routing rule
 * (oc_param_route, ROUTE-RULE-1) and decay rule (oc_param_decays, ROUTE-WD-1), then the fast
 * Muon step or the fast element-wise AdamW step. Nothing is written on error (ROUTE-ERR-1). */
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "../common/fast_families.h"

oc_status oc_fast_routed_step(const oc_route_hparams *hp, oc_fast_ns_precision prec,
                              const oc_param_info *info, int64_t step, float *p, float *m,
                              float *v, const float *g, oc_route *route)
{
    if (hp == NULL || route == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_param_check(info);
    if (st != OC_OK)
        return st;
    oc_adam_hparams adamw = hp->adamw; /* ROUTE-HP-1: both optimizers' hyper-parameters */
    if ((st = oc_muon_hparams_check(&hp->muon)) != OC_OK || (st = oc_adam_check(&adamw, step)) != OC_OK)
        return st;
    if (adamw.profile != OC_ADAM_TORCH || !adamw.decoupled || adamw.amsgrad || adamw.maximize)
        return OC_ERR_BAD_HPARAM;
    size_t n = oc_param_numel(info);
    if ((st = oc_buffer_check(v, n, sizeof(float))) != OC_OK)
        return st;
    oc_route r = oc_param_route(info);
    if (r == OC_ROUTE_MUON) { /* ROUTE-RULE-1 routes 2-D parameters only */
        st = oc_fast_muon_step(&hp->muon, prec, info->dims[0], info->dims[1], p, m, g, NULL, 0);
    } else {
        if (!oc_param_decays(info))
            adamw.weight_decay = 0; /* ROUTE-WD-1 */
        oc_fast_tensor t = {n, p, g, {m, v, NULL}, NULL};
        st = oc_fast_adam_step(&adamw, step, NULL, 1, &t, NULL);
    }
    if (st == OC_OK)
        *route = r;
    return st;
}

/* Plugin ABI v3 (VEC-ABI-1): muon-route-megatron's entry point, in the Newton-Schulz precision the
 * table's ctx points to (FAST-NS-2). */
static oc_status routed_entry(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                              int64_t step, float *p, float *m, float *v, const float *g,
                              oc_route *route)
{
    const oc_fast_ns_precision *prec = ctx;
    return oc_fast_routed_step(hp, *prec, info, step, p, m, v, g, route);
}

const oc_fast_algorithm oc_fast_cpu_muon_route = {
    .algorithm = "muon-route",
    .entry = (oc_entry_point)routed_entry,
};
