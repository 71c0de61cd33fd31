/* Sharding layouts (spec/layouts.md): where each parameter of the logical parameter list lives
 * in a flat buffer, and which contiguous range of that buffer each data-parallel rank owns.
 *
 * Every layout is described the same way: the buffer is a sequence of buckets; bucket b has
 * dp equal shards of `shard[b]` elements and rank r owns shard r of every bucket (LAYOUT-OWN-1).
 * Gradients are reduce-scattered bucket by bucket, each rank steps the parameter pieces inside
 * its shards, parameters are all-gathered bucket by bucket (fast/include/optcert/dist.h). The
 * replicated layout is the one exception: one bucket, every rank owns all of it (all-reduce). */
#ifndef OPTCERT_LAYOUT_H
#define OPTCERT_LAYOUT_H

#include <stddef.h>
#include "optcert/status.h"

typedef enum oc_layout_kind {
    OC_LAYOUT_REPLICATED = 0, /* DDP                                      LAYOUT-REPL-1 */
    OC_LAYOUT_ZERO1_FLAT,     /* Megatron DistributedOptimizer           LAYOUT-ZERO1-* */
    OC_LAYOUT_FSDP2_DIM0,     /* per-parameter dim-0 chunks               LAYOUT-FSDP2-1 */
    OC_LAYOUT_LAYERWISE,      /* compute-cost LPT, hard bucket close      LAYOUT-LW-* */
    OC_LAYOUT_LAYERWISE_LPT,  /* whole parameters, plain LPT              LAYOUT-LPT-1 */
    OC_LAYOUT_LAYERWISE_NUMEL, /* megatron-core 0.19.2: numel LPT, floor   LAYOUT-LWN-1 */
    OC_LAYOUT_LAYERWISE_MEGATRON, /* Megatron-LM@d98e8a64: soft minimum    LAYOUT-LWM-1 */
    OC_LAYOUT_KIND_COUNT
} oc_layout_kind;

/* One logical parameter, in model (forward) order. */
typedef struct oc_layout_param {
    size_t dim0, dim1;    /* shape dim0 x dim1 (row-major); dim1 = 1 for 1-D */
    int ndim;             /* 1 or 2: the Newton-Schulz cost model of LAYOUT-LW-2 */
    int shared_embedding; /* Megatron's `shared_embedding`: a bucket of its own */
} oc_layout_param;

typedef struct oc_layout_opts {
    size_t bucket_size; /* elements; 0: one bucket (Megatron bucket_size None) */
    int high_busbw;     /* pad bucket ends to lcm(dp, 128, 2^16)  LAYOUT-ZERO1-3 */
} oc_layout_opts;

typedef struct oc_layout {
    oc_layout_kind kind;
    int dp;
    size_t nparams;
    size_t *offset;  /* [nparams] start of each parameter in the flat buffer */
    size_t *numel;   /* [nparams] its number of elements */
    size_t nbuckets;
    size_t *bucket_start, *shard; /* [nbuckets]; bucket b spans dp * shard[b] elements */
    size_t size;     /* flat buffer length (sum of the buckets) */
    int *owner;      /* [nparams] owning rank (layerwise kinds), else NULL */
    double makespan, lower_bound; /* layerwise kinds: max rank cost, max(total/dp, max cost) */
} oc_layout;

/* One owned piece of a parameter: elements [off, off + len) of parameter `param`, at flat
 * position `flat`. */
typedef struct oc_layout_segment {
    size_t param, off, len, flat;
} oc_layout_segment;

const char *oc_layout_kind_name(oc_layout_kind k);
oc_status oc_layout_kind_parse(const char *name, oc_layout_kind *out);

/* Builds the layout of `n` parameters for dp ranks (1 <= dp <= 65536). opts may be NULL
 * (one bucket, standard padding). OC_ERR_BAD_HPARAM on an empty shape or bad dp. */
oc_status oc_layout_build(oc_layout_kind kind, int dp, const oc_layout_param *p, size_t n,
                          const oc_layout_opts *opts, oc_layout *out);
void oc_layout_free(oc_layout *l);

/* The segments rank r owns, bucket by bucket, in parameter order within a bucket; returns their count and writes up to `cap` of them
 * (seg may be NULL to count). */
size_t oc_layout_segments(const oc_layout *l, int rank, oc_layout_segment *seg, size_t cap);

/* Megatron's padding helpers (NVIDIA/Megatron-LM@d98e8a64 megatron/core/optimizer/param_layout.py
 * L19-42). */
size_t oc_layout_pad(size_t v, size_t d);                    /* ceil(v/d)*d */
size_t oc_layout_bucket_divisor(int dp, int high_busbw);     /* lcm(dp,128[,2^16]) */
size_t oc_layout_lcm(size_t a, size_t b);

#endif
