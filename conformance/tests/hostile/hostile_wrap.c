/* Hostile wrappers of the fast CPU backend (FAST_CPU_PLUGIN, loaded with dlopen): on its first
 * call, the entry point of each family below misbehaves in the way HOSTILE chooses, then runs
 * the backend. hostile_run.sh names the expected certificate lines.
 *   WRITE_INPUTS (VEC-PLUG-2): writes into an input the ABI declares const: the hyper-parameters
 *     of the schedule, the loss scaler, clipping and the guarded step; the logit maxima of QK
 *     clipping; the gradient of the routed step.
 *   OVERRUN (VEC-PLUG-3): writes one element past an output: the last clipped gradient view, the
 *     routed step's p, the guarded step's first parameter. */
#include <dlfcn.h>
#include <stddef.h>
#include "optcert/impl.h"

#define WRITE_INPUTS 1
#define OVERRUN 2

static const oc_impl *fast(void)
{
    static const oc_impl *impl;
    if (!impl) {
        void *h = dlopen(FAST_CPU_PLUGIN, RTLD_NOW | RTLD_LOCAL);
        oc_impl_entry_fn entry = NULL;
        if (h)
            *(void **)&entry = dlsym(h, OC_IMPL_ENTRY_SYMBOL);
        impl = entry ? entry() : NULL;
    }
    return impl;
}

/* 1 on the first call of the entry point that owns `calls`. */
static int first(int *calls) { return (*calls)++ == 0; }

static oc_status schedule_eval(void *ctx, const oc_schedule *s, int64_t samples, double *lr,
                               double *wd)
{
    static int calls;
    if (first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_schedule *)s)->max_lr *= 2; /* casts away the ABI's const */
    return fast()->schedule_eval(ctx, s, samples, lr, wd);
}

static oc_status loss_scale_update(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                                   int found_inf)
{
    static int calls;
    if (first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_loss_scaler *)c)->growth_factor = 3.0f;
    return fast()->loss_scale_update(ctx, c, s, found_inf);
}

static oc_status clip_step(void *ctx, const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                           float *total_norm, int *skipped)
{
    static int calls;
    oc_status st = fast()->clip_step(ctx, c, nviews, views, total_norm, skipped);
    if (first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_clip_config *)c)->max_norm = 0.5;
    if (calls == 1 && HOSTILE == OVERRUN && nviews)
        views[nviews - 1].grad[views[nviews - 1].length] = 0.0f;
    return st;
}

static oc_status qk_clip(void *ctx, const oc_qk_clip_config *c, const float *max_dot, float *w)
{
    static int calls;
    if (first(&calls) && HOSTILE == WRITE_INPUTS && c->heads)
        ((float *)max_dot)[0] = 0.0f;
    return fast()->qk_clip(ctx, c, max_dot, w);
}

static oc_status routed_step(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                             int64_t step, float *p, float *m, float *v, const float *g,
                             oc_route *route)
{
    static int calls;
    size_t n = 1;
    for (int k = 0; k < info->ndim; k++)
        n *= info->dims[k];
    oc_status st = fast()->routed_step(ctx, hp, info, step, p, m, v, g, route);
    if (first(&calls) && HOSTILE == WRITE_INPUTS && n)
        ((float *)g)[0] += 1.0f;
    if (calls == 1 && HOSTILE == OVERRUN)
        p[n] = 0.0f;
    return st;
}

static oc_status guarded_step(void *ctx, const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                              oc_loss_scale_state *scaler_state, size_t nsub,
                              oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                              float *grad_norm, oc_step_outcome *outcome)
{
    static int calls;
    oc_status st = fast()->guarded_step(ctx, cfg, scaler, scaler_state, nsub, subs, position,
                                        increment, grad_norm, outcome);
    if (first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_guard_config *)cfg)->clip_grad = 1e-3;
    if (calls == 1 && HOSTILE == OVERRUN && nsub && subs[0].nparams)
        subs[0].params[0].p[subs[0].params[0].n] = 0.0f;
    return st;
}

const oc_impl *optcert_impl_v1(void)
{
    static oc_impl table;
    if (!fast())
        return NULL;
    table = *fast();
    table.name = "hostile-wrap";
    table.schedule_eval = schedule_eval;
    table.loss_scale_update = loss_scale_update;
    table.clip_step = clip_step;
    table.qk_clip = qk_clip;
    table.routed_step = routed_step;
    table.guarded_step = guarded_step;
    return &table;
}
