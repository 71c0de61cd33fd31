#include "fuzz_stub.h"

static oc_status mixed(void *ctx, oc_algorithm alg, const void *hp, const oc_storage *s,
                       int64_t step, size_t n, void *param, float *master, void *const *state,
                       const float *g)
{
    (void)ctx, (void)alg, (void)hp, (void)s, (void)step, (void)param, (void)state, (void)g;
    oc_fuzz_fill(master, n);
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_mixed = {
    .algorithm = OC_FUZZ_MIXED,
    .entry = (oc_entry_point)mixed,
};
