/* Hostile wrappers of the fast CPU backend (FAST_CPU_PLUGIN, loaded with dlopen; both are plugin
 * ABI v3 tables): on its first call, the entry point of each family below misbehaves in the way
 * HOSTILE chooses, then runs the backend. hostile_run.sh names the expected certificate lines.
 *   WRITE_INPUTS (VEC-PLUG-2): writes into an input the ABI declares const: the hyper-parameters
 *     of the schedule, the loss scaler, clipping and the guarded step; the logit maxima of QK
 *     clipping; the gradient of the routed step and of Adafactor; the fp32 master a TE storage
 *     store reads; the save a resume-adam-torch restore reads (VEC-RESUME-1).
 *   OVERRUN (VEC-PLUG-3): writes one element past an output: the last clipped gradient view, the
 *     routed step's p, the guarded step's first parameter, a TE storage store's parameter,
 *     Adafactor's p, the p a resume-adam-torch restore writes, the buffer a
 *     resume-adam-torch-mixed save writes; and a resume-sgd-torch save reports 8 bytes more than
 *     it was given (VEC-RESUME-1). */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include "optcert/impl.h"

#define WRITE_INPUTS 1
#define OVERRUN 2

static const oc_impl_v3 *fast(void)
{
    static const oc_impl_v3 *impl;
    if (!impl) {
        void *h = dlopen(FAST_CPU_PLUGIN, RTLD_NOW | RTLD_LOCAL);
        oc_impl_v3_entry_fn entry = NULL;
        if (h)
            *(void **)&entry = dlsym(h, OC_IMPL_V3_ENTRY_SYMBOL);
        impl = entry ? entry() : NULL;
    }
    return impl;
}

/* The backend's entry point for `family`, of the type the family's algorithm has. */
static oc_entry_point fast_entry(const char *family)
{
    for (size_t i = 0; i < fast()->nfamilies; i++)
        if (strcmp(fast()->families[i].family, family) == 0)
            return fast()->families[i].entry;
    return NULL;
}
#define FAST(family, type) ((type)fast_entry(family))

/* 1 on the first call of the entry point that owns `calls`. */
static int first(int *calls) { return (*calls)++ == 0; }

static oc_status schedule_eval(void *ctx, const oc_schedule *s, int64_t samples, double *lr,
                               double *wd)
{
    static int calls;
    if (first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_schedule *)s)->max_lr *= 2; /* casts away the ABI's const */
    return FAST("schedule-megatron", oc_schedule_eval_fn)(ctx, s, samples, lr, wd);
}

static oc_status loss_scale_update(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                                   int found_inf)
{
    static int calls;
    if (first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_loss_scaler *)c)->growth_factor = 3.0f;
    return FAST("loss-scale-torch", oc_loss_scale_update_fn)(ctx, c, s, found_inf);
}

static oc_status clip_step(void *ctx, const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                           float *total_norm, int *skipped)
{
    static int calls;
    oc_status st =
        FAST("clip-torch", oc_clip_step_fn)(ctx, c, nviews, views, total_norm, skipped);
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
    return FAST("muonclip-kimi", oc_qk_clip_fn)(ctx, c, max_dot, w);
}

static oc_status routed_step(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                             int64_t step, float *p, float *m, float *v, const float *g,
                             oc_route *route)
{
    static int calls;
    size_t n = 1;
    for (int k = 0; k < info->ndim; k++)
        n *= info->dims[k];
    oc_status st =
        FAST("muon-adamw-route", oc_routed_step_fn)(ctx, hp, info, step, p, m, v, g, route);
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
    oc_status st = FAST("step-megatron", oc_guarded_step_fn)(ctx, cfg, scaler, scaler_state, nsub,
                                                             subs, position, increment,
                                                             grad_norm, outcome);
    if (first(&calls) && HOSTILE == WRITE_INPUTS)
        ((oc_guard_config *)cfg)->clip_grad = 1e-3;
    if (calls == 1 && HOSTILE == OVERRUN && nsub && subs[0].nparams)
        subs[0].params[0].p[subs[0].params[0].n] = 0.0f;
    return st;
}

static oc_status te_storage(void *ctx, const oc_te_config *c, oc_te_direction dir, size_t n,
                            oc_te_state *s, float *const *work)
{
    static int calls;
    oc_status st = FAST("te-storage-fusedadam", oc_te_storage_fn)(ctx, c, dir, n, s, work);
    if (first(&calls) && HOSTILE == WRITE_INPUTS && dir == OC_TE_STORE && n)
        work[0][0] += 1.0f;
    if (calls == 1 && HOSTILE == OVERRUN && dir == OC_TE_STORE)
        s->param[n] = 0;
    return st;
}

/* The resume families' state entry, the fast backend's (FAST-RESUME-1) with the misbehaviour on
 * the first call of `op` in each family; every other case of the family must still conform. */
static oc_status resume_io(const char *family, int *calls, oc_state_op op, void *ctx,
                           oc_algorithm alg, const void *hp, const oc_storage *s, size_t n,
                           void *const *state, int64_t *steps_done, void *bytes, size_t *len)
{
    size_t cap = *len;
    oc_status st = FAST(family, oc_state_io_fn)(ctx, op, alg, hp, s, n, state, steps_done,
                                                bytes, len);
    int now = op != OC_STATE_SIZE && (op == OC_STATE_RESTORE) == (strcmp(family, "resume-adam-torch") == 0) &&
              first(calls);
    if (now && HOSTILE == WRITE_INPUTS && strcmp(family, "resume-adam-torch") == 0)
        ((unsigned char *)bytes)[0] ^= 1;
    if (now && HOSTILE == OVERRUN && strcmp(family, "resume-adam-torch") == 0)
        ((float *)state[0])[n] = 0.0f;
    if (now && HOSTILE == OVERRUN && strcmp(family, "resume-adam-torch-mixed") == 0)
        ((unsigned char *)bytes)[cap] = 0;
    if (now && HOSTILE == OVERRUN && strcmp(family, "resume-sgd-torch") == 0)
        *len = cap + 8;
    return st;
}

#define RESUME_WRAPPER(fn, family)                                                              \
    static oc_status fn(void *ctx, oc_state_op op, oc_algorithm alg, const void *hp,            \
                        const oc_storage *s, size_t n, void *const *state, int64_t *steps_done, \
                        void *bytes, size_t *len)                                                \
    {                                                                                           \
        static int calls;                                                                       \
        return resume_io(family, &calls, op, ctx, alg, hp, s, n, state, steps_done, bytes, len); \
    }
RESUME_WRAPPER(resume_adam, "resume-adam-torch")
RESUME_WRAPPER(resume_adam_mixed, "resume-adam-torch-mixed")
RESUME_WRAPPER(resume_sgd, "resume-sgd-torch")


static oc_status adafactor_step(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                int64_t step, oc_adafactor_state *s, const float *g)
{
    static int calls;
    oc_status st = FAST("adafactor-torch", oc_adafactor_step_fn)(ctx, hp, sh, step, s, g);
    if (first(&calls) && HOSTILE == WRITE_INPUTS)
        ((float *)g)[0] += 1.0f;
    if (calls == 1 && HOSTILE == OVERRUN)
        s->p[sh.rows * sh.cols] = 0.0f;
    return st;
}

/* The backend's table with the families above replaced. */
const oc_impl_v3 *optcert_impl_v3(void)
{
    static const struct {
        const char *family;
        oc_entry_point entry;
    } hostile[] = {
        {"schedule-megatron", (oc_entry_point)schedule_eval},
        {"loss-scale-torch", (oc_entry_point)loss_scale_update},
        {"clip-torch", (oc_entry_point)clip_step},
        {"muonclip-kimi", (oc_entry_point)qk_clip},
        {"muon-adamw-route", (oc_entry_point)routed_step},
        {"step-megatron", (oc_entry_point)guarded_step},
        {"te-storage-fusedadam", (oc_entry_point)te_storage},
        {"resume-adam-torch", (oc_entry_point)resume_adam},
        {"resume-adam-torch-mixed", (oc_entry_point)resume_adam_mixed},
        {"resume-sgd-torch", (oc_entry_point)resume_sgd},
        {"adafactor-torch", (oc_entry_point)adafactor_step},
    };
    static oc_family_entry families[64];
    static oc_impl_v3 table;
    if (!fast() || fast()->nfamilies > 64)
        return NULL;
    table = *fast();
    table.name = "hostile-wrap";
    memcpy(families, fast()->families, fast()->nfamilies * sizeof *families);
    for (size_t i = 0; i < table.nfamilies; i++)
        for (size_t k = 0; k < sizeof hostile / sizeof *hostile; k++)
            if (strcmp(families[i].family, hostile[k].family) == 0)
                families[i].entry = hostile[k].entry;
    table.families = families;
    return &table;
}
