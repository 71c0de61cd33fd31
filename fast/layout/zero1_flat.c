/* zero1-flat: Megatron's DistributedOptimizer buffer layout (spec/layouts.md §2;
 * distrib_optimizer.py _compute_per_buffer_param_layout, param_layout.py: reference-facts §6.5). */
#include "layout_internal.h"

/* LAYOUT-ZERO1-1: parameters in reverse (backprop) order, each start aligned to 64 elements;
 * LAYOUT-ZERO1-2: a shared embedding closes the open bucket and gets a bucket of its own;
 * LAYOUT-ZERO1-4: a bucket closes once it holds bucket_size elements (measured from its start
 * to the parameter's end); LAYOUT-ZERO1-3: each bucket end is padded to lcm(dp, 128) (lcm(dp, 128, 2^16) with high_busbw); rank r owns
 * the r-th 1/dp of every bucket, which may cut parameters. */
oc_status oc_layout_zero1_flat(oc_layout *l, const oc_layout_param *p, const oc_layout_opts *o)
{
    size_t div = oc_layout_bucket_divisor(l->dp, o->high_busbw);
    size_t bucket_start = 0, cursor = 0;
    int open = 0; /* the open bucket holds at least one parameter */
#define CLOSE_BUCKET()                                                                        \
    do {                                                                                      \
        size_t end = oc_layout_pad(cursor, div);                                              \
        if (oc_layout_add_bucket(l, bucket_start, (end - bucket_start) / (size_t)l->dp) != 0) \
            return OC_ERR_INTERNAL;                                                           \
        bucket_start = cursor = end;                                                          \
        open = 0;                                                                             \
    } while (0)
    for (size_t k = l->nparams; k-- > 0;) {
        if (p[k].shared_embedding && open)
            CLOSE_BUCKET();
        size_t start = oc_layout_pad_start(cursor);
        l->offset[k] = start;
        cursor = start + l->numel[k];
        open = 1;
        if (p[k].shared_embedding || (o->bucket_size && cursor - bucket_start >= o->bucket_size))
            CLOSE_BUCKET();
    }
    if (open)
        CLOSE_BUCKET();
#undef CLOSE_BUCKET
    return OC_OK;
}
