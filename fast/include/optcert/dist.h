/* One optimizer step under a layout (spec/layouts.md §5): reduce the gradients to their
 * owners, step the owned pieces with a fast multi-tensor step, gather the parameters. */
#ifndef OPTCERT_DIST_H
#define OPTCERT_DIST_H

#include "optcert/comm.h"
#include "optcert/fast.h"
#include "optcert/layout.h"

/* The element-wise step applied to the owned pieces (a family's oc_fast_*_step, with its
 * hyper-parameters in ctx, called with the engine's options). Step control plugs in here: a
 * clipping coefficient or a skip decision computed from the reduced gradients before this
 * call, passed in the options. */
typedef oc_status (*oc_dist_step_fn)(void *ctx, const oc_fast_opts *o, size_t nt,
                                     const oc_fast_tensor *t);

/* The buffers of one rank. Two modes:
 *  - fp32 (master == NULL): params is the flat fp32 parameter buffer (layout->size), stepped
 *    where owned and all-gathered;
 *  - mixed precision, as Megatron's DistributedOptimizer (master != NULL): master holds the
 *    owned fp32 master pieces (d->owned elements, packed like the state), model the flat
 *    bf16/fp16 model buffer (layout->size), written from the new master where owned
 *    (FAST-MODEL-1) and all-gathered; params is unused. */
typedef struct oc_dist_buffers {
    float *params;
    float *master;
    uint16_t *model;
    float *grads;    /* flat, this rank's contribution; replaced by the sums where owned */
    float *state[3]; /* d->owned elements each, NULL where the family has no k-th state */
} oc_dist_buffers;

typedef struct oc_dist {
    const oc_layout *layout;
    const oc_comm *comm;
    size_t nseg;
    oc_layout_segment *seg; /* what this rank owns */
    oc_fast_tensor *t;      /* [nseg] scratch */
    size_t owned;           /* elements owned: the length of each state tensor */
    float *scratch;         /* one shard of the largest bucket */
} oc_dist;

/* The layout's dp must equal the communicator's size. */
oc_status oc_dist_init(oc_dist *d, const oc_layout *l, const oc_comm *c);
void oc_dist_free(oc_dist *d);

/* One step. o: inv_scale, clip_coeff and the model copy's kind (mixed mode; NULL: defaults,
 * fp32 mode). Gradient padding must hold zeros. */
oc_status oc_dist_step(const oc_dist *d, const oc_dist_buffers *b, const oc_fast_opts *o,
                       oc_dist_step_fn step, void *ctx);

#endif
