/* FAST-CUDA-MT-1: the host side of the device table (table.h), plain C: built on the host,
 * copied to the device in one transfer, tested on machines without a GPU. */
#include "host.h"

uint64_t oc_cuda_table_fill(void *buf, size_t nt, const oc_fast_tensor *t)
{
    oc_cuda_tdesc *d = buf;
    uint64_t *start = (uint64_t *)(d + nt), c = 0;
    for (size_t i = 0; i < nt; i++) {
        d[i] = (oc_cuda_tdesc){t[i].param, t[i].grad, t[i].state[0], t[i].state[1],
                               t[i].state[2], t[i].model, t[i].n};
        start[i] = c;
        c += (t[i].n + OC_FAST_CHUNK - 1) / OC_FAST_CHUNK;
    }
    start[nt] = c;
    return c;
}
