/* fsdp2-dim0: PyTorch FSDP2's per-parameter sharding (spec/layouts.md §3). */
#include "layout_internal.h"

/* LAYOUT-FSDP2-1: every parameter, in model order, is its own bucket; rank r owns rows
 * [r*c, min((r+1)*c, dim0)) with c = ceil(dim0/dp) (torch.chunk on dim 0: the last non-empty
 * chunk may be shorter and trailing ranks may own nothing); the shards are padded to c rows
 * for the all-gather, as FSDP2 pads. Rows are contiguous (row-major), so a dim-0 chunk is one
 * contiguous range. */
oc_status oc_layout_fsdp2_dim0(oc_layout *l, const oc_layout_param *p)
{
    size_t start = 0;
    for (size_t i = 0; i < l->nparams; i++) {
        size_t rows = (p[i].dim0 + (size_t)l->dp - 1) / (size_t)l->dp;
        l->offset[i] = start;
        if (oc_layout_add_bucket(l, start, rows * p[i].dim1) != 0)
            return OC_ERR_INTERNAL;
        start = l->size;
    }
    return OC_OK;
}
