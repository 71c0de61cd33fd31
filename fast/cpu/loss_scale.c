/* The loss scaler of the fast backends (spec/fast.md FAST-LS-1): the state machine of
 * spec/loss_scale.md on the host, one update per iteration. Products are binary32
 * multiplications: the exact product rounded once, overflowing to +inf (LS-MUL-1). */
#include <math.h>
#include "optcert/fast.h"
#include "../common/fast_families.h"

/* LS-STATE-1: a state the configuration can be in. */
static int reachable(const oc_loss_scaler *c, const oc_loss_scale_state *s)
{
    if (!(s->scale >= 0.0f))
        return 0;
    if (c->profile != OC_LS_MEGATRON_CONSTANT &&
        (s->growth_tracker < 0 || s->growth_tracker >= c->growth_interval))
        return 0;
    return c->profile != OC_LS_MEGATRON ||
           (s->hysteresis_tracker > OC_LS_MIN_HYSTERESIS_TRACKER &&
            s->hysteresis_tracker <= c->hysteresis);
}

oc_status oc_fast_loss_scale_update(const oc_loss_scaler *c, oc_loss_scale_state *s,
                                    int found_inf)
{
    if (c == NULL || s == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_loss_scaler_check(c); /* LS-CFG-1 */
    if (st != OC_OK)
        return st;
    if (!reachable(c, s))
        return OC_ERR_BAD_STEP;
    if (c->profile == OC_LS_MEGATRON_CONSTANT) /* LS-PROF-CONSTANT: nothing moves */
        return OC_OK;
    const int megatron = c->profile == OC_LS_MEGATRON;
    if (found_inf) {
        s->growth_tracker = 0;                          /* LS-INF-1 */
        if (megatron && --s->hysteresis_tracker > 0)    /* LS-HYST-1 */
            return OC_OK;
        float backed = s->scale * c->backoff_factor;    /* LS-BACKOFF-1 */
        s->scale = megatron && backed < c->min_scale ? c->min_scale : backed;
        return OC_OK;
    }
    if (++s->growth_tracker < c->growth_interval)       /* LS-GROW-1 */
        return OC_OK;
    s->growth_tracker = 0;
    if (megatron)
        s->hysteresis_tracker = c->hysteresis;
    float grown = s->scale * c->growth_factor;
    if (megatron || isfinite(grown))                    /* LS-OVF-1 */
        s->scale = grown;
    return OC_OK;
}

/* Plugin ABI v3 (VEC-ABI-1): the loss-scale-* families' entry point. */
static oc_status loss_scale_entry(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                                  int found_inf)
{
    (void)ctx;
    return oc_fast_loss_scale_update(c, s, found_inf);
}

const oc_fast_algorithm oc_fast_cpu_loss_scale = {
    .algorithm = "loss-scale",
    .entry = (oc_entry_point)loss_scale_entry,
};
