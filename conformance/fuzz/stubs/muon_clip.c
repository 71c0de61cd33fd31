#include "fuzz_stub.h"

static oc_status qk(void *ctx, const oc_muon_clip_config *c, const float *max_dot, float *w)
{
    (void)ctx, (void)c, (void)max_dot, (void)w;
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_muon_clip = {.algorithm = "muonclip", .entry = (oc_entry_point)qk};
