#include "fuzz_stub.h"

static oc_status clip(void *ctx, const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                      float *total_norm, int *skipped)
{
    (void)ctx, (void)c, (void)nviews, (void)views;
    *total_norm = (float)oc_fuzz_next() / 3.0f;
    *skipped = oc_fuzz_next() & 1;
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_clip = {.algorithm = "clip", .entry = (oc_entry_point)clip};
