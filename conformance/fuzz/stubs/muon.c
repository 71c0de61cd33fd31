#include "fuzz_stub.h"

static oc_status muon(void *ctx, const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                      float *m, const float *g)
{
    (void)ctx, (void)hp, (void)m, (void)g;
    oc_fuzz_fill(p, rows * cols);
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_muon = {.algorithm = "muon", .entry = (oc_entry_point)muon};

static oc_status blocks(void *ctx, const oc_muon_hparams *hp, const oc_muon_partition *part,
                        size_t rows, size_t cols, float *p, float *m, const float *g)
{
    (void)ctx, (void)hp, (void)part, (void)m, (void)g;
    oc_fuzz_fill(p, rows * cols);
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_muon_blocks = {
    .algorithm = "muon-blocks",
    .entry = (oc_entry_point)blocks,
};
