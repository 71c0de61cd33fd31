#include "fuzz_stub.h"

static oc_status adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n, float *p,
                      float *m, float *v, float *vmax, const float *g)
{
    (void)ctx, (void)hp, (void)step, (void)m, (void)v, (void)vmax, (void)g;
    oc_fuzz_fill(p, n);
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_adam = {.algorithm = "adam", .entry = (oc_entry_point)adam};
