/* The multi-tensor steps and the norm of the CUDA backend (spec/fast.md §5): host-side checks
 * and scalars as on the CPU (fast/common/step_prep.c), the device table, one launch. */
#include <math.h>
#include "optcert/fast_cuda.h"
#include "../common/step_prep.h"
#include "host.h"
#include "optcert/buffers.h"

static const oc_fast_opts default_opts = {1.0f, 1.0f, OC_FAST_MODEL_NONE};

/* Checks (FAST-ERR-1), uploads the table and prepares the launch; *l.nchunks == 0: no work. */
static oc_status prepare(oc_cuda_ctx *c, oc_status hp_status, const oc_fast_opts **o, size_t nt,
                         const oc_fast_tensor *t, int states, oc_cuda_launch *l)
{
    if (!c)
        return OC_ERR_NULL_POINTER;
    *o = *o ? *o : &default_opts;
    oc_status st = oc_fast_prep_check(hp_status, *o, nt, t, states);
    if (st == OC_OK)
        st = oc_cuda_table_upload(c, nt, t, *o, l);
    if (st == OC_OK && c->clip_pending) { /* FAST-CUDA-CLIP-1: stays on the device */
        l->clip_dev = c->clip;
        c->clip_pending = 0;
    }
    return st;
}

oc_status oc_cuda_adam_step(oc_cuda_ctx *c, const oc_adam_hparams *hp, int64_t step,
                            const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    oc_cuda_launch l;
    oc_status st = prepare(c, oc_adam_check(hp, step), &o, nt, t, hp->amsgrad ? 3 : 2, &l);
    if (st != OC_OK || l.nchunks == 0)
        return st;
    oc_fast_adam_coef k = oc_fast_prep_adam(hp, step);
    return oc_cuda_status(oc_cuda_launch_adam(&l, &k, hp->amsgrad != 0));
}

oc_status oc_cuda_sgd_step(oc_cuda_ctx *c, const oc_sgd_hparams *hp, int64_t step,
                           const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    int momentum = hp->momentum != 0.0;
    oc_cuda_launch l;
    oc_status st = prepare(c, oc_sgd_check(hp, step), &o, nt, t, momentum, &l);
    if (st != OC_OK || l.nchunks == 0)
        return st;
    oc_fast_sgd_coef k = oc_fast_prep_sgd(hp);
    return oc_cuda_status(oc_cuda_launch_sgd(&l, &k, hp->profile == OC_SGD_EMA, momentum,
                                             step == 1, hp->nesterov != 0));
}

oc_status oc_cuda_lion_step(oc_cuda_ctx *c, const oc_lion_hparams *hp, int64_t step,
                            const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    if (!hp)
        return OC_ERR_NULL_POINTER;
    oc_cuda_launch l;
    oc_status st = prepare(c, oc_lion_check(hp, step), &o, nt, t, 1, &l);
    if (st != OC_OK || l.nchunks == 0)
        return st;
    oc_fast_lion_coef k = oc_fast_prep_lion(hp);
    return oc_cuda_status(oc_cuda_launch_lion(&l, &k));
}

/* ---- FAST-CUDA-NORM-1, FAST-CUDA-CLIP-1 ---- */

oc_status oc_cuda_grad_sumsq(oc_cuda_ctx *c, size_t nt, const oc_fast_tensor *t, float inv_scale)
{
    if (!c || (nt > 0 && !t))
        return OC_ERR_NULL_POINTER;
    oc_fast_opts o = {inv_scale, 1.0f, OC_FAST_MODEL_NONE};
    if (!(inv_scale > 0.0f && inv_scale <= 0x1.fffffep+127f))
        return OC_ERR_BAD_HPARAM;
    for (size_t i = 0; i < nt; i++) {
        oc_status st = oc_buffer_check(t[i].grad, t[i].n, sizeof(float));
        if (st != OC_OK)
            return st;
    }
    oc_cuda_launch l;
    oc_status st = oc_cuda_table_upload(c, nt, t, &o, &l);
    if (st == OC_OK)
        st = oc_cuda_reserve(c, (void **)&c->norm, &c->norm_cap, (nt + 1) * sizeof(double));
    if (st == OC_OK && l.nchunks > 0)
        st = oc_cuda_reserve(c, (void **)&c->part, &c->part_cap, l.nchunks * sizeof(double));
    if (st != OC_OK)
        return st;
    c->norm_nt = nt;
    if (l.nchunks == 0) /* all sums are 0 */
        return oc_cuda_status(cudaMemsetAsync(c->norm, 0, (nt + 1) * sizeof(double), c->stream));
    return oc_cuda_status(oc_cuda_launch_sumsq(&l, c->part, c->norm, c->norm + nt));
}

oc_status oc_cuda_grad_sumsq_read_sync(oc_cuda_ctx *c, double *per_tensor, double *total,
                                       int *found_nonfinite)
{
    if (!c || !total || !found_nonfinite)
        return OC_ERR_NULL_POINTER;
    if (!c->norm)
        return OC_ERR_UNSUPPORTED; /* no norm was enqueued */
    size_t nt = c->norm_nt;
    int err = cudaMemcpyAsync(total, c->norm + nt, sizeof(double), cudaMemcpyDeviceToHost,
                              c->stream);
    if (!err && per_tensor && nt > 0)
        err = cudaMemcpyAsync(per_tensor, c->norm, nt * sizeof(double), cudaMemcpyDeviceToHost,
                              c->stream);
    if (!err)
        err = cudaStreamSynchronize(c->stream);
    if (err)
        return oc_cuda_status(err);
    *found_nonfinite = !isfinite(*total);
    return OC_OK;
}

oc_status oc_cuda_clip_from_norm(oc_cuda_ctx *c, double max_norm)
{
    if (!c)
        return OC_ERR_NULL_POINTER;
    if (!c->norm)
        return OC_ERR_UNSUPPORTED;
    if (!(max_norm > 0.0 && isfinite(max_norm)))
        return OC_ERR_BAD_HPARAM;
    oc_status st = oc_cuda_status(oc_cuda_launch_clip(c->norm + c->norm_nt, max_norm, c->clip,
                                                      c->stream));
    c->clip_pending = st == OC_OK;
    return st;
}

oc_status oc_cuda_found_nonfinite_sync(oc_cuda_ctx *c, int *found)
{
    if (!c || !found)
        return OC_ERR_NULL_POINTER;
    unsigned f = 0;
    int err = cudaMemcpyAsync(&f, c->flag, sizeof f, cudaMemcpyDeviceToHost, c->stream);
    if (!err)
        err = cudaMemsetAsync(c->flag, 0, sizeof f, c->stream);
    if (!err)
        err = cudaStreamSynchronize(c->stream);
    if (err)
        return oc_cuda_status(err);
    *found = f != 0;
    return OC_OK;
}
