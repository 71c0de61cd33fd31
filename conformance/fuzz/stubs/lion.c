#include "fuzz_stub.h"

static oc_status lion(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                      float *m, const float *g)
{
    (void)ctx, (void)hp, (void)step, (void)m, (void)g;
    oc_fuzz_fill(p, n);
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_lion = {.algorithm = "lion", .entry = (oc_entry_point)lion};
