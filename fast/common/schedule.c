/* The learning-rate and weight-decay schedule (spec/schedule.md): a handful of binary64
 * operations per step on the host, for which both backends use the reference's (spec/fast.md
 * §4). */
#include "optcert/schedule.h"
#include "fast_families.h"

/* Plugin ABI v3 (VEC-ABI-1): the schedule-* families' entry point. */
static oc_status schedule_entry(void *ctx, const oc_schedule *s, int64_t samples, double *lr,
                                double *wd)
{
    (void)ctx;
    return oc_ref_schedule_eval(s, samples, lr, wd);
}

const oc_fast_algorithm oc_fast_schedule = {
    .algorithm = "schedule",
    .entry = (oc_entry_point)schedule_entry,
};
