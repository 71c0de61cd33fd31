/* The CPU-offload split: Megatron's HybridDeviceOptimizer._get_sub_optimizer_param_groups
 * (NVIDIA/Megatron-LM@d98e8a64 megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py
 * L251-301), spec/layouts.md §10. */
#include <stdlib.h>
#include "optcert/offload.h"

/* LAYOUT-OFFLOAD-1: threshold = (device numel) * fraction in binary64 (L255-258); walking the
 * parameters in order, a parameter is offloaded iff the numel offloaded before it is below the
 * threshold (L273), so the parameter that crosses it is offloaded too. With at most 2^53
 * elements every integer here is exact in binary64, so the comparison is Python's exact
 * int < float comparison. */
oc_status oc_offload_split(size_t n, const size_t *numel, double fraction, unsigned char *host)
{
    if (n && (!numel || !host))
        return OC_ERR_NULL_POINTER;
    if (!(fraction >= 0.0 && fraction <= 1.0))
        return OC_ERR_BAD_HPARAM;
    const size_t limit = (size_t)1 << 53;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (numel[i] > limit - total)
            return OC_ERR_BAD_HPARAM;
        total += numel[i];
    }
    double threshold = (double)total * fraction;
    size_t offloaded = 0;
    for (size_t i = 0; i < n; i++) {
        host[i] = (double)offloaded < threshold;
        offloaded += host[i] ? numel[i] : 0;
    }
    return OC_OK;
}

/* LAYOUT-OFFLOAD-2: the rank's owned pieces in increasing flat position (Megatron: the
 * optimizer's params are each bucket's param_map, built from the buffer's param_index_map in
 * placement order: distrib_optimizer.py L172-190, L300-345, L533-565). */
oc_status oc_offload_split_layout(const oc_layout *l, int rank, double fraction,
                                  unsigned char *host)
{
    if (!l || !host)
        return OC_ERR_NULL_POINTER;
    if (rank < 0 || rank >= l->dp)
        return OC_ERR_BAD_HPARAM;
    size_t n = oc_layout_segments(l, rank, NULL, 0);
    oc_layout_segment *seg = calloc(n + 1, sizeof *seg);
    size_t *order = calloc(n + 1, sizeof *order), *numel = calloc(n + 1, sizeof *numel);
    unsigned char *flag = calloc(n + 1, 1);
    oc_status st = seg && order && numel && flag ? OC_OK : OC_ERR_INTERNAL;
    if (st == OC_OK) {
        oc_layout_segments(l, rank, seg, n);
        for (size_t i = 0; i < n; i++) { /* insertion sort by flat position (short lists) */
            size_t j = i;
            for (; j > 0 && seg[order[j - 1]].flat > seg[i].flat; j--)
                order[j] = order[j - 1];
            order[j] = i;
        }
        for (size_t k = 0; k < n; k++)
            numel[k] = seg[order[k]].len;
        st = oc_offload_split(n, numel, fraction, flag);
    }
    for (size_t k = 0; st == OC_OK && k < n; k++)
        host[order[k]] = flag[k];
    free(seg), free(order), free(numel), free(flag);
    return st;
}
