/* zero1-flat: Megatron's DistributedOptimizer buffer layout (spec/layouts.md §2;
 * NVIDIA/Megatron-LM@d98e8a64 distrib_optimizer.py _compute_per_buffer_param_layout L506-588,
 * param_layout.py L19-42;
 * the same walk as param_and_grad_buffer.py's _compute_default_per_buffer_param_layout with
 * use_distributed_optimizer). */
#include "layout_internal.h"

/* Closes the bucket [*start, cursor): its end padded (LAYOUT-ZERO1-3); the next one starts there. */
static int close_bucket(oc_layout *l, size_t div, size_t *start, size_t *cursor)
{
    size_t end = oc_layout_pad(*cursor, div);
    if (oc_layout_add_bucket(l, *start, (end - *start) / (size_t)l->dp) != 0)
        return -1;
    *start = *cursor = end;
    return 0;
}

/* LAYOUT-ZERO1-1: parameters in reverse (backprop) order, each start aligned to 64 elements;
 * LAYOUT-ZERO1-2: a shared embedding closes the open bucket and gets a bucket of its own;
 * LAYOUT-ZERO1-4: a bucket closes once it holds bucket_size elements (measured from its start
 * to the parameter's end); LAYOUT-ZERO1-3: each bucket end is padded to lcm(dp, 128)
 * (lcm(dp, 128, 2^16) with high_busbw); rank r owns the r-th 1/dp of every bucket, which may
 * cut parameters. */
oc_status oc_layout_zero1_flat(oc_layout *l, const oc_layout_param *p, const oc_layout_opts *o)
{
    size_t div = oc_layout_bucket_divisor(l->dp, o->high_busbw);
    size_t start = 0, cursor = 0;
    int open = 0; /* the open bucket holds at least one parameter */
    for (size_t k = l->nparams; k-- > 0;) {
        if (p[k].shared_embedding && open && close_bucket(l, div, &start, &cursor) != 0)
            return OC_ERR_INTERNAL;
        l->offset[k] = oc_layout_pad_start(cursor);
        cursor = l->offset[k] + l->numel[k];
        open = 1;
        if (p[k].shared_embedding || (o->bucket_size && cursor - start >= o->bucket_size)) {
            if (close_bucket(l, div, &start, &cursor) != 0)
                return OC_ERR_INTERNAL;
            open = 0;
        }
    }
    if (open && close_bucket(l, div, &start, &cursor) != 0)
        return OC_ERR_INTERNAL;
    return OC_OK;
}
