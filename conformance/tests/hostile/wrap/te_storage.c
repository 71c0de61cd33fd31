/* te-storage-fusedadam: WRITE_INPUTS changes the fp32 master a store reads; OVERRUN writes one
 * element past the parameter a store writes.
 * expect write_inputs te-storage-fusedadam: wrote to its input work master
 * expect overrun te-storage-fusedadam: wrote past the end of its output param */
#include "hostile_wrap.h"

static oc_status te_storage(void *ctx, const oc_te_config *c, oc_te_direction dir, size_t n,
                            oc_te_state *s, float *const *work)
{
    static int calls;
    oc_status st = FAST("te-storage-fusedadam", oc_te_storage_fn)(ctx, c, dir, n, s, work);
    if (hostile_first(&calls) && HOSTILE == WRITE_INPUTS && dir == OC_TE_STORE && n)
        work[0][0] += 1.0f;
    if (calls == 1 && HOSTILE == OVERRUN && dir == OC_TE_STORE)
        s->param[n] = 0;
    return st;
}

const hostile_wrap hostile_wrap_te_storage = {
    .family = "te-storage-fusedadam",
    .entry = (oc_entry_point)te_storage,
};
