/* Mixed Muon + AdamW mutants (spec/muon.md §11): the reference's step given a mistaken route
 * (ROUTE-RULE-1) or decay (ROUTE-WD-1). */
#include <string.h>
#include "muon_route.h"

static const char *const names[OC_ROUTE_MUTANT_COUNT] = {
    "correct",        "head-by-name", "attribute-ignored",
    "gain-to-muon",   "non-2d-to-muon",    "decay-on-gains"};

const char *oc_route_mutant_name(oc_route_mutant mu)
{
    return (unsigned)mu < OC_ROUTE_MUTANT_COUNT ? names[mu] : NULL;
}

/* The mistaken ROUTE-RULE-1 of a parameter oc_param_check accepts. */
static oc_route route_of(oc_route_mutant mu, const oc_param_info *info)
{
    switch (mu) {
    case OC_ROUTE_MUT_ATTRIBUTE_IGNORED:
        return info->ndim == 2 ? OC_ROUTE_MUON : OC_ROUTE_ADAMW;
    case OC_ROUTE_MUT_HEAD_BY_NAME:
        return info->ndim == 2 && strstr(info->name, "embed") == NULL ? OC_ROUTE_MUON
                                                                       : OC_ROUTE_ADAMW;
    case OC_ROUTE_MUT_GAIN_TO_MUON:
        return info->ndim == 1 ? OC_ROUTE_MUON : oc_param_route(info);
    case OC_ROUTE_MUT_NON_2D_TO_MUON:
        return info->ndim > 2 ? OC_ROUTE_MUON : oc_param_route(info);
    default:
        return oc_param_route(info);
    }
}

oc_status oc_route_mutant_step(oc_route_mutant mu, const oc_route_hparams *hp,
                               const oc_param_info *info, int64_t step, float *p, float *m,
                               float *v, const float *g, oc_route *route, double *work,
                               size_t work_len, float *scratch, size_t scratch_len)
{
    if (mu == OC_ROUTE_CORRECT || (unsigned)mu >= OC_ROUTE_MUTANT_COUNT ||
        oc_param_check(info) != OC_OK)
        return oc_ref_routed_step(hp, info, step, p, m, v, g, route, work, work_len, scratch,
                                  scratch_len);
    int decays = oc_param_decays(info) || mu == OC_ROUTE_MUT_DECAY_ON_GAINS;
    return oc_routed_step_as(hp, info, step, route_of(mu, info), decays, p, m, v, g, route, work,
                             work_len, scratch, scratch_len);
}
