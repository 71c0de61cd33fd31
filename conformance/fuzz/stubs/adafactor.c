#include "fuzz_stub.h"

static oc_status adafactor(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                           int64_t step, oc_adafactor_state *s, const float *g)
{
    (void)ctx, (void)hp, (void)step, (void)g;
    oc_fuzz_fill(s->p, sh.rows * sh.cols);
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_adafactor = {
    .algorithm = "adafactor",
    .entry = (oc_entry_point)adafactor,
};
