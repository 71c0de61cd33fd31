/* Layouts: the common description (buckets of dp shards), the replicated layout, and the
 * owned segments of a rank (spec/layouts.md). */
#include <stdlib.h>
#include <string.h>
#include "layout_internal.h"

static const char *const kind_names[OC_LAYOUT_KIND_COUNT] = {
    "replicated", "zero1-flat", "fsdp2-dim0", "layerwise", "layerwise-lpt", "layerwise-numel",
    "layerwise-megatron"};

const char *oc_layout_kind_name(oc_layout_kind k)
{
    return (unsigned)k < OC_LAYOUT_KIND_COUNT ? kind_names[k] : NULL;
}

oc_status oc_layout_kind_parse(const char *name, oc_layout_kind *out)
{
    for (int i = 0; name && i < OC_LAYOUT_KIND_COUNT; i++)
        if (strcmp(name, kind_names[i]) == 0) {
            *out = (oc_layout_kind)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

size_t oc_layout_pad(size_t v, size_t d) { return (v + d - 1) / d * d; }

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

size_t oc_layout_lcm(size_t a, size_t b) { return a / gcd(a, b) * b; }

/* LAYOUT-ZERO1-3 */
size_t oc_layout_bucket_divisor(int dp, int high_busbw)
{
    size_t d = oc_layout_lcm((size_t)dp, 128);
    return high_busbw ? oc_layout_lcm(d, (size_t)1 << 16) : d;
}

int oc_layout_add_bucket(oc_layout *l, size_t start, size_t shard)
{
    size_t *bs = realloc(l->bucket_start, (l->nbuckets + 1) * sizeof *bs);
    if (!bs)
        return -1;
    l->bucket_start = bs;
    size_t *sh = realloc(l->shard, (l->nbuckets + 1) * sizeof *sh);
    if (!sh)
        return -1;
    l->shard = sh;
    bs[l->nbuckets] = start;
    sh[l->nbuckets] = shard;
    l->nbuckets++;
    l->size = start + (size_t)l->dp * shard;
    return 0;
}

/* LAYOUT-REPL-1: forward order, no padding, one bucket that every rank owns. */
static oc_status replicated(oc_layout *l, const oc_layout_param *p)
{
    size_t off = 0;
    for (size_t i = 0; i < l->nparams; i++) {
        l->offset[i] = off;
        off += oc_layout_numel(&p[i]);
    }
    l->nbuckets = 0;
    if (oc_layout_add_bucket(l, 0, off) != 0)
        return OC_ERR_INTERNAL;
    l->size = off; /* not dp copies: the one shard is everyone's */
    return OC_OK;
}

void oc_layout_free(oc_layout *l)
{
    free(l->offset), free(l->numel), free(l->bucket_start), free(l->shard), free(l->owner);
    memset(l, 0, sizeof *l);
}

oc_status oc_layout_build(oc_layout_kind kind, int dp, const oc_layout_param *p, size_t n,
                          const oc_layout_opts *opts, oc_layout *out)
{
    static const oc_layout_opts none = {0, 0};
    if (!out || (n && !p))
        return OC_ERR_NULL_POINTER;
    memset(out, 0, sizeof *out);
    if (dp < 1 || dp > 65536 || (unsigned)kind >= OC_LAYOUT_KIND_COUNT)
        return OC_ERR_BAD_HPARAM;
    for (size_t i = 0; i < n; i++)
        if (p[i].dim0 == 0 || p[i].dim1 == 0 || (p[i].ndim != 1 && p[i].ndim != 2) ||
            (p[i].ndim == 1 && p[i].dim1 != 1) || p[i].dim0 > ((size_t)1 << 40) / p[i].dim1)
            return OC_ERR_BAD_HPARAM;
    *out = (oc_layout){.kind = kind, .dp = dp, .nparams = n};
    out->offset = calloc(n ? n : 1, sizeof *out->offset);
    out->numel = calloc(n ? n : 1, sizeof *out->numel);
    if (!out->offset || !out->numel) {
        oc_layout_free(out);
        return OC_ERR_INTERNAL;
    }
    for (size_t i = 0; i < n; i++)
        out->numel[i] = oc_layout_numel(&p[i]);
    opts = opts ? opts : &none;
    oc_status st;
    switch (kind) {
    case OC_LAYOUT_REPLICATED: st = replicated(out, p); break;
    case OC_LAYOUT_ZERO1_FLAT: st = oc_layout_zero1_flat(out, p, opts); break;
    case OC_LAYOUT_FSDP2_DIM0: st = oc_layout_fsdp2_dim0(out, p); break;
    default: st = oc_layout_layerwise(out, p, opts, kind); break;
    }
    if (st != OC_OK)
        oc_layout_free(out);
    return st;
}

/* LAYOUT-OWN-1: rank r owns [start + r*shard, start + (r+1)*shard) of every bucket (all of
 * the one bucket when replicated); its segments are the parameters' intersections with it. */
size_t oc_layout_segments(const oc_layout *l, int rank, oc_layout_segment *seg, size_t cap)
{
    size_t count = 0;
    for (size_t b = 0; b < l->nbuckets; b++) {
        size_t lo = l->bucket_start[b], hi = lo + l->shard[b];
        if (l->kind != OC_LAYOUT_REPLICATED) {
            lo += (size_t)rank * l->shard[b];
            hi = lo + l->shard[b];
        }
        for (size_t i = 0; i < l->nparams; i++) {
            size_t a = l->offset[i], z = a + l->numel[i];
            size_t s = a > lo ? a : lo, e = z < hi ? z : hi;
            if (s >= e)
                continue;
            if (seg && count < cap)
                seg[count] = (oc_layout_segment){i, s - a, e - s, s};
            count++;
        }
    }
    return count;
}
