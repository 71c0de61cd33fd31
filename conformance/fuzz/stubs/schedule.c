#include "fuzz_stub.h"

static oc_status sched(void *ctx, const oc_schedule *s, int64_t samples, double *lr, double *wd)
{
    (void)ctx, (void)s, (void)samples;
    *lr = (double)oc_fuzz_next() - 3.0;
    *wd = (double)oc_fuzz_next() / 7.0;
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_schedule = {
    .algorithm = "schedule",
    .entry = (oc_entry_point)sched,
};
