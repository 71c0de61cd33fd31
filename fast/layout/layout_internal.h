/* Shared by the layout builders (fast/layout/). */
#ifndef OPTCERT_FAST_LAYOUT_INTERNAL_H
#define OPTCERT_FAST_LAYOUT_INTERNAL_H

#include "optcert/layout.h"

/* Appends bucket [start, start + dp*shard) and advances l->size; 0 or -1 (no memory). */
int oc_layout_add_bucket(oc_layout *l, size_t start, size_t shard);
/* Number of elements of a parameter. */
static inline size_t oc_layout_numel(const oc_layout_param *p) { return p->dim0 * p->dim1; }
/* LAYOUT-ZERO1-1: parameter starts aligned to 64 elements. */
static inline size_t oc_layout_pad_start(size_t i) { return oc_layout_pad(i, 64); }

oc_status oc_layout_zero1_flat(oc_layout *l, const oc_layout_param *p, const oc_layout_opts *o);
oc_status oc_layout_fsdp2_dim0(oc_layout *l, const oc_layout_param *p);
oc_status oc_layout_layerwise(oc_layout *l, const oc_layout_param *p, const oc_layout_opts *o,
                              oc_layout_kind profile);

#endif
