/* schedule-megatron: WRITE_INPUTS doubles the schedule's max_lr (a const input) before the call.
 * expect write_inputs schedule-megatron: wrote to its input hyper-parameters */
#include "hostile_wrap.h"

static oc_status schedule_eval(void *ctx, const oc_schedule *s, int64_t samples, double *lr,
                               double *wd)
{
    static int calls;
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_schedule *)s)->max_lr *= 2; /* casts away the ABI's const */
    return FAST("schedule-megatron", oc_schedule_eval_fn)(ctx, s, samples, lr, wd);
}

const hostile_wrap hostile_wrap_schedule = {
    .family = "schedule-megatron",
    .entry = (oc_entry_point)schedule_eval,
};
