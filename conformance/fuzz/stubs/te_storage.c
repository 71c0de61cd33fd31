#include "fuzz_stub.h"

static oc_status te(void *ctx, const oc_te_config *c, oc_te_direction dir, size_t n,
                    oc_te_state *s, float *const *work)
{
    (void)ctx, (void)c, (void)s;
    if (dir == OC_TE_LOAD)
        oc_fuzz_fill(work[0], n);
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_te_storage = {
    .algorithm = "te-storage",
    .entry = (oc_entry_point)te,
};
