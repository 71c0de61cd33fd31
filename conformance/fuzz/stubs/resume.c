#include <string.h>
#include "fuzz_stub.h"

/* The resume families' state entry (VEC-RESUME-1): any size asked, a save filled with one byte
 * and any length reported, any step count restored. */
static oc_status state_io(void *ctx, oc_state_op op, oc_algorithm alg, const void *hp,
                          const oc_storage *s, size_t n, void *const *state, int64_t *steps_done,
                          void *b, size_t *len)
{
    (void)ctx, (void)alg, (void)hp, (void)s, (void)n, (void)state;
    if (op == OC_STATE_SIZE)
        *len = oc_fuzz_next();
    else if (op == OC_STATE_SAVE) {
        if (oc_fuzz_writes())
            memset(b, oc_fuzz_next(), *len);
        *len = oc_fuzz_next();
    } else
        *steps_done = (int64_t)(signed char)oc_fuzz_next();
    return oc_fuzz_ret();
}

const oc_fuzz_stub oc_fuzz_stub_resume = {
    .algorithm = OC_FUZZ_RESUME,
    .entry = (oc_entry_point)state_io,
};
