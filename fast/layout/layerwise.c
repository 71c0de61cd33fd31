/* layerwise: whole parameters per rank (the Muon layout), spec/layouts.md §4. Four profiles:
 * Megatron's LayerWiseDistributedOptimizer rule at NVIDIA/Megatron-LM@d98e8a64
 * (layer_wise_optimizer.py L196-444: compute cost, 30% cap, bucket size as a soft minimum;
 * `layerwise-megatron`), the same placement with a bucket closed at the first parameter that
 * reaches the bucket size (`layerwise`, optcert's own), the numel rule with the padding floor of
 * megatron-core 0.19.2 (`layerwise-numel`), and plain LPT over the whole list (`layerwise-lpt`). */
#include <stdlib.h>
#include "layout_internal.h"

/* LAYOUT-LW-2: Newton-Schulz cost: max(m,n)*min(m,n)^2 for 2-D, numel otherwise. */
static double ns_cost(const oc_layout_param *p)
{
    if (p->ndim != 2)
        return (double)(p->dim0 * p->dim1);
    double a = (double)p->dim0, b = (double)p->dim1;
    return a > b ? a * b * b : b * a * a;
}

typedef struct packer {
    oc_layout *l;
    const oc_layout_param *p;
    size_t shard_divisor;
    double *load;     /* [dp] accumulated cost, kept across buckets */
    size_t *cursor;   /* [dp] elements placed in the open bucket's shards */
    size_t *order;    /* scratch: the chunk's parameters */
    size_t *place;    /* [nparams] offset inside its shard */
    size_t *guess;    /* [dp] layerwise-megatron: the closing rule's estimate of the shards */
} packer;

/* The sort key of a profile: numel (layerwise-numel) or the Newton-Schulz cost. */
static double key(const packer *k, size_t i, int by_numel)
{
    return by_numel ? (double)k->l->numel[i] : ns_cost(&k->p[i]);
}

/* Stable sort of idx[0..n) by key, largest first (insertion sort: chunks are short). */
static void sort_by_key(const packer *k, size_t *idx, size_t n, int by_numel)
{
    for (size_t i = 1; i < n; i++) {
        size_t x = idx[i], j = i;
        while (j > 0 && key(k, idx[j - 1], by_numel) < key(k, x, by_numel)) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
}

/* Least loaded shard among those where the parameter fits under `cap` (all shards when
 * cap < 0), ties to the lowest index; -1 if none fits. */
static int least_loaded(const packer *k, size_t numel, double cap)
{
    int best = -1;
    for (int s = 0; s < k->l->dp; s++) {
        if (cap >= 0 && (double)(oc_layout_pad_start(k->cursor[s]) + numel) > cap)
            continue;
        if (best < 0 || k->load[s] < k->load[best])
            best = s;
    }
    return best;
}

/* Places parameter i at the end of shard s; its cost counts in the shard's load unless
 * `unloaded` (layerwise-megatron's shared embedding, LAYOUT-LWM-1). */
static void put(packer *k, size_t i, int s, int unloaded)
{
    size_t at = oc_layout_pad_start(k->cursor[s]);
    k->place[i] = at;
    k->cursor[s] = at + k->l->numel[i];
    k->load[s] += unloaded ? 0.0 : ns_cost(&k->p[i]);
    k->l->owner[i] = s;
}

/* The shard with the fewest elements placed, ties to the lowest index. */
static int fewest_elements(const packer *k)
{
    int s = 0;
    for (int r = 1; r < k->l->dp; r++)
        if (k->cursor[r] < k->cursor[s])
            s = r;
    return s;
}

/* Emits one bucket holding chunk[0..n): LAYOUT-LW-3 (layerwise), LAYOUT-LWN-1
 * (layerwise-numel: largest numel first to the shard with the fewest elements) or
 * LAYOUT-LPT-1 (layerwise-lpt). */
static oc_status emit(packer *k, size_t *chunk, size_t n, oc_layout_kind profile)
{
    oc_layout *l = k->l;
    int dp = l->dp, lpt = profile == OC_LAYOUT_LAYERWISE_LPT;
    int by_numel = profile == OC_LAYOUT_LAYERWISE_NUMEL;
    for (int s = 0; s < dp; s++)
        k->cursor[s] = 0;
    sort_by_key(k, chunk, n, by_numel);
    size_t total = 0;
    for (size_t j = 0; j < n; j++)
        total += l->numel[chunk[j]];
    double cap = lpt ? -1.0 : (double)total / dp * 1.3; /* the 30% cap on shard size */
    for (size_t j = 0; j < n; j++) {
        size_t i = chunk[j];
        int s = by_numel ? fewest_elements(k) : least_loaded(k, l->numel[i], cap);
        if (s < 0) /* nothing fits under the cap: the shard with the fewest elements */
            s = fewest_elements(k);
        put(k, i, s, 0);
    }
    size_t longest = 0;
    for (int s = 0; s < dp; s++)
        longest = k->cursor[s] > longest ? k->cursor[s] : longest;
    size_t shard = oc_layout_pad(longest, k->shard_divisor), start = l->size;
    for (size_t j = 0; j < n; j++)
        l->offset[chunk[j]] = start + (size_t)l->owner[chunk[j]] * shard + k->place[chunk[j]];
    return oc_layout_add_bucket(l, start, shard) == 0 ? OC_OK : OC_ERR_INTERNAL;
}

/* The bucket-size threshold with the padding floor, max(B, int(0.9 dp largest)): LAYOUT-LWN-1,
 * LAYOUT-LWM-1. */
static size_t padding_floor(size_t bucket_size, int dp, size_t largest)
{
    size_t floor = (size_t)((double)dp * (double)largest * 0.9);
    return floor > bucket_size ? floor : bucket_size;
}

/* LAYOUT-LWM-1: the closing rule's estimate (numel, backprop order): does a parameter of `numel`
 * elements fit the least-filled shard without growing the padded bucket? */
static int absorbs(const packer *k, size_t numel)
{
    size_t lo = k->guess[0], hi = k->guess[0];
    for (int s = 1; s < k->l->dp; s++) {
        lo = k->guess[s] < lo ? k->guess[s] : lo;
        hi = k->guess[s] > hi ? k->guess[s] : hi;
    }
    return oc_layout_pad_start(lo) + numel <= oc_layout_pad(hi, k->shard_divisor);
}

/* LAYOUT-LWM-1: the estimate places a parameter on the least-filled shard (ties: lowest). */
static void guess_place(packer *k, size_t numel)
{
    int s = 0;
    for (int r = 1; r < k->l->dp; r++)
        if (k->guess[r] < k->guess[s])
            s = r;
    k->guess[s] = oc_layout_pad_start(k->guess[s]) + numel;
}

/* LAYOUT-LW-1: walk the parameters in backprop order; a chunk becomes a bucket when it holds
 * bucket_size elements (0: one bucket; layerwise-numel: max(bucket_size, floor(0.9 dp
 * largest)) elements, LAYOUT-LWN-1; layerwise-megatron: that many and the next parameter is not
 * absorbed, LAYOUT-LWM-1), and a shared embedding closes the open chunk and is a bucket of its
 * own, in shard 0. LAYOUT-LPT-1: one chunk of everything, no cap. */
oc_status oc_layout_layerwise(oc_layout *l, const oc_layout_param *p, const oc_layout_opts *o,
                              oc_layout_kind profile)
{
    int lpt = profile == OC_LAYOUT_LAYERWISE_LPT, soft = profile == OC_LAYOUT_LAYERWISE_MEGATRON;
    int dp = l->dp;
    packer k = {l, p, 0, calloc((size_t)dp, sizeof(double)), calloc((size_t)dp, sizeof(size_t)),
                calloc(l->nparams + 1, sizeof(size_t)), calloc(l->nparams + 1, sizeof(size_t)),
                calloc((size_t)dp, sizeof(size_t))};
    l->owner = calloc(l->nparams + 1, sizeof *l->owner);
    /* LAYOUT-LW-3: shard sizes are multiples of lcm(64, bucket divisor / dp) */
    k.shard_divisor = oc_layout_lcm(64, oc_layout_bucket_divisor(dp, o->high_busbw) / (size_t)dp);
    oc_status st = k.load && k.cursor && k.order && k.place && k.guess && l->owner
                       ? OC_OK : OC_ERR_INTERNAL;
    size_t n = 0, numel = 0, largest_numel = 0;
    for (size_t j = l->nparams; st == OC_OK && j-- > 0;) {
        /* LAYOUT-LWM-1: close before a parameter once the soft minimum is met and the parameter
         * would grow the bucket */
        int close = soft && o->bucket_size && n &&
                    numel >= padding_floor(o->bucket_size, dp, largest_numel) &&
                    !absorbs(&k, l->numel[j]);
        if ((p[j].shared_embedding && !lpt) || close) {
            if (n)
                st = emit(&k, k.order, n, profile);
            n = numel = largest_numel = 0;
            for (int s = 0; s < dp; s++)
                k.guess[s] = 0;
        }
        if (p[j].shared_embedding && !lpt) {
            if (st == OC_OK) { /* shard 0 holds it, shards 1..dp-1 the same size of padding */
                for (int s = 0; s < dp; s++)
                    k.cursor[s] = 0;
                put(&k, j, 0, soft);
                size_t shard = oc_layout_pad(k.cursor[0], k.shard_divisor);
                l->offset[j] = l->size;
                st = oc_layout_add_bucket(l, l->size, shard) == 0 ? OC_OK : OC_ERR_INTERNAL;
            }
            continue;
        }
        if (soft)
            guess_place(&k, l->numel[j]);
        k.order[n++] = j;
        numel += l->numel[j];
        largest_numel = l->numel[j] > largest_numel ? l->numel[j] : largest_numel;
        size_t threshold = profile == OC_LAYOUT_LAYERWISE_NUMEL
                               ? padding_floor(o->bucket_size, dp, largest_numel)
                               : o->bucket_size;
        if (!lpt && !soft && o->bucket_size && numel >= threshold) {
            st = emit(&k, k.order, n, profile);
            n = numel = largest_numel = 0;
        }
    }
    if (st == OC_OK && n)
        st = emit(&k, k.order, n, profile);
    /* the makespan (every parameter's cost on its owner) against the lower bound
     * max(total/dp, largest cost) */
    double total = 0.0, largest = 0.0;
    for (int s = 0; s < dp && st == OC_OK; s++)
        k.load[s] = 0.0;
    for (size_t i = 0; i < l->nparams && st == OC_OK; i++) {
        double c = ns_cost(&p[i]);
        k.load[l->owner[i]] += c;
        total += c;
        largest = c > largest ? c : largest;
    }
    for (int s = 0; s < dp && st == OC_OK; s++)
        l->makespan = k.load[s] > l->makespan ? k.load[s] : l->makespan;
    l->lower_bound = total / dp > largest ? total / dp : largest;
    free(k.load), free(k.cursor), free(k.order), free(k.place), free(k.guess);
    return st;
}
