/* One optimizer step under a layout (spec/layouts.md §5): reduce the gradients to their
 * owners, step the owned pieces with a fast multi-tensor step, gather the parameters. */
#ifndef OPTCERT_DIST_H
#define OPTCERT_DIST_H

#include "optcert/comm.h"
#include "optcert/fast.h"
#include "optcert/layout.h"

/* The element-wise step applied to the owned pieces (a family's oc_fast_*_step, with its
 * hyper-parameters in ctx). Step control plugs in here: a clipping coefficient or a skip
 * decision computed from the reduced gradients before this call. */
typedef oc_status (*oc_dist_step_fn)(void *ctx, size_t nt, const oc_fast_tensor *t);

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

/* params, grads: flat buffers of layout->size elements (grads: this rank's contribution,
 * replaced by the reduced sums where this rank owns them; padding must hold zeros).
 * state[k]: d->owned elements each, NULL where the family has no k-th state. */
oc_status oc_dist_step(const oc_dist *d, float *params, float *grads, float *const state[3],
                       oc_dist_step_fn step, void *ctx);

#endif
