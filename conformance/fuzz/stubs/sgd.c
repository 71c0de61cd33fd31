#include "fuzz_stub.h"

static oc_status sgd(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                     float *buf, const float *g)
{
    (void)ctx, (void)hp, (void)step, (void)buf, (void)g;
    oc_fuzz_fill(p, n);
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_sgd = {.algorithm = "sgd", .entry = (oc_entry_point)sgd};
