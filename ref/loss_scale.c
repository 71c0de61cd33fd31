/* Dynamic loss scaling reference (spec/loss_scale.md): Megatron's DynamicGradScaler and
 * ConstantGradScaler, and torch.amp.GradScaler's _amp_update_scale_. Scalar C11, no
 * allocation, no I/O, no globals.
 *
 * The trackers are integers and every decision (grow, back off, keep) depends on them only;
 * the scale moves only by a binary32 product with a factor (LS-MUL-1) and Megatron's clamp.
 * The functional contract of oc_ref_loss_scale_run states the whole state as logic functions
 * of the found_inf history (ls_growth, ls_hyst, ls_scale in loss_scale.h) and WP proves it in its IEEE
 * binary32 model, the products included (proofs/STATUS.md).
 */
#include <float.h>
#include <string.h>
#include "optcert/loss_scale.h"

static const char *const profile_names[OC_LS_PROFILE_COUNT] = {
    "megatron", "megatron-constant", "torch",
};

/* The contracts of the functions loss_scale.h declares are there, with the logic they state;
 * this one stays here: it needs valid_read_string (<string.h>, which loss_scale.h does not
 * include). */
oc_status oc_loss_scale_profile_parse(const char *name, oc_loss_scale_profile *out)
{
    if (name == NULL || out == NULL)
        return OC_ERR_NULL_POINTER;
    /*@ loop invariant 0 <= i <= OC_LS_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_LS_PROFILE_COUNT - i;
    */
    for (int i = 0; i < OC_LS_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_loss_scale_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/* The comparisons are binary32 ones and stated as such (\lt_float: cvc5 relates two variables'
 * binary32 order to their real order only through it); FLT_MAX is converted to float because
 * Frama-C's libc defines it as a double, and WP's model of (double)x loses the infinities. */
/*@ requires \is_finite(lo);
    assigns \nothing;
    ensures \result != 0 <==> \is_finite(x) && \lt_float(lo, x);
*/
static int finite_above(float x, float lo) { return x > lo && x <= (float)FLT_MAX; }

/* LS-CFG-1. Comparisons are written so that NaN fails every one of them. */
oc_status oc_loss_scaler_check(const oc_loss_scaler *c)
{
    if (c == NULL)
        return OC_ERR_NULL_POINTER;
    if ((unsigned)c->profile >= OC_LS_PROFILE_COUNT || !finite_above(c->initial_scale, 0.0f))
        return OC_ERR_BAD_HPARAM;
    if (c->profile == OC_LS_MEGATRON_CONSTANT)
        return OC_OK;
    if (!finite_above(c->growth_factor, 1.0f) || !finite_above(c->backoff_factor, 0.0f) ||
        !(c->backoff_factor < 1.0f) || c->growth_interval < 1 ||
        c->growth_interval > OC_LS_MAX_INTERVAL)
        return OC_ERR_BAD_HPARAM;
    if (c->profile == OC_LS_MEGATRON &&
        (!finite_above(c->min_scale, 0.0f) || !(c->min_scale <= c->initial_scale) ||
         c->hysteresis < 1 || c->hysteresis > OC_LS_MAX_INTERVAL))
        return OC_ERR_BAD_HPARAM;
    return OC_OK;
}

/*@ requires ls_cfg_ok(c);
    assigns \nothing;
    ensures ls_same_scale(\result, c.initial_scale) && \result.growth_tracker == 0 &&
            \result.hysteresis_tracker == c.hysteresis;
*/
static oc_loss_scale_state ls_init(oc_loss_scaler c)
{
    oc_loss_scale_state s = {c.initial_scale, 0, c.hysteresis};   /* LS-INIT-1 */
    return s;
}

oc_status oc_ref_loss_scale_init(const oc_loss_scaler *c, oc_loss_scale_state *s)
{
    oc_status st;
    if (c == NULL || s == NULL)
        return OC_ERR_NULL_POINTER;
    if ((st = oc_loss_scaler_check(c)) != OC_OK)
        return st;
    *s = ls_init(*c);
    return OC_OK;
}

/* One update of a valid state (LS-GROW-1 ... LS-BACKOFF-1). The configuration and the state
 * are values, so that the proof of oc_ref_loss_scale_run needs no reasoning about memory. */
oc_loss_scale_state oc_loss_scale_next(oc_loss_scaler c, oc_loss_scale_state s, int inf)
{
    if (c.profile == OC_LS_MEGATRON_CONSTANT)              /* LS-PROF-CONSTANT */
        return s;
    int megatron = c.profile == OC_LS_MEGATRON;
    if (inf) {                                             /* LS-INF-1 */
        s.growth_tracker = 0;
        if (megatron)
            s.hysteresis_tracker -= 1;                     /* LS-HYST-1 */
        if (!megatron || s.hysteresis_tracker <= 0) {
            float backed = s.scale * c.backoff_factor;     /* LS-BACKOFF-1, LS-MUL-1 */
            if (megatron && backed < c.min_scale)
                backed = c.min_scale;
            s.scale = backed;
        }
        return s;
    }
    int64_t clean = s.growth_tracker + 1;                  /* LS-GROW-1 */
    if (clean != c.growth_interval) {
        s.growth_tracker = clean;
        return s;
    }
    s.growth_tracker = 0;
    if (megatron)
        s.hysteresis_tracker = c.hysteresis;               /* LS-HYST-1 */
    float grown = s.scale * c.growth_factor;               /* LS-MUL-1 */
    if (megatron || grown <= (float)FLT_MAX)               /* LS-OVF-1: torch keeps its scale */
        s.scale = grown;
    return s;
}

/* LS-STATE-1: a scale >= 0 (or +inf), the growth tracker below growth_interval, Megatron's
 * hysteresis tracker at most `hysteresis` and above OC_LS_MIN_HYSTERESIS_TRACKER. */
oc_status oc_loss_scale_state_check(const oc_loss_scaler *c, const oc_loss_scale_state *s)
{
    if (!(s->scale >= 0.0f))
        return OC_ERR_BAD_STEP;
    if (c->profile != OC_LS_MEGATRON_CONSTANT &&
        (s->growth_tracker < 0 || s->growth_tracker >= c->growth_interval))
        return OC_ERR_BAD_STEP;
    if (c->profile == OC_LS_MEGATRON && (s->hysteresis_tracker <= OC_LS_MIN_HYSTERESIS_TRACKER ||
                                         s->hysteresis_tracker > c->hysteresis))
        return OC_ERR_BAD_STEP;
    return OC_OK;
}

/* LS-ERR-1: checks everything, then updates; on error nothing is written. */
oc_status oc_ref_loss_scale_update(const oc_loss_scaler *c, oc_loss_scale_state *s,
                                   int found_inf)
{
    oc_status st;
    if (c == NULL || s == NULL)
        return OC_ERR_NULL_POINTER;
    if ((st = oc_loss_scaler_check(c)) != OC_OK || (st = oc_loss_scale_state_check(c, s)) != OC_OK)
        return st;
    *s = oc_loss_scale_next(*c, *s, found_inf);
    return OC_OK;
}

/* The whole trajectory of a history (LS-STATE-1): the state after update k is the logic state
 * of the first k + 1 flags (ls_growth, ls_hyst, ls_scale). */
oc_status oc_ref_loss_scale_run(const oc_loss_scaler *c, const unsigned char *found_inf, size_t n,
                                oc_loss_scale_state *trajectory)
{
    oc_status st;
    if (c == NULL || (n > 0 && (found_inf == NULL || trajectory == NULL)))
        return OC_ERR_NULL_POINTER;
    if ((st = oc_loss_scaler_check(c)) != OC_OK)
        return st;
    const oc_loss_scaler cfg = *c; /* trajectory may overlap *c: read it once */
    oc_loss_scale_state cur = ls_init(cfg);
    /*@ loop invariant 0 <= i <= n;
        loop invariant \le_float((float)0.0, cur.scale);
        loop invariant cfg.profile != OC_LS_MEGATRON_CONSTANT ==>
                       0 <= cur.growth_tracker < cfg.growth_interval;
        loop invariant cfg.profile == OC_LS_MEGATRON_CONSTANT ==>
                       cur.growth_tracker == 0 && cur.hysteresis_tracker == cfg.hysteresis;
        loop invariant cfg.profile == OC_LS_TORCH ==> cur.hysteresis_tracker == cfg.hysteresis;
        loop invariant hyst_range: cfg.profile == OC_LS_MEGATRON ==>
                       cfg.hysteresis - i <= cur.hysteresis_tracker <= cfg.hysteresis;
        loop invariant growth_is_history:
            cur.growth_tracker == ls_growth(cfg, (unsigned char *)found_inf, i);
        loop invariant hyst_is_history:
            cur.hysteresis_tracker == ls_hyst(cfg, (unsigned char *)found_inf, i);
        loop invariant scale_is_history:
            ls_same_scale(cur, ls_scale(cfg, (unsigned char *)found_inf, i));
        loop invariant trajectory_trackers:
            \forall integer k; 0 <= k < i ==>
                trajectory[k].growth_tracker == ls_growth(cfg, (unsigned char *)found_inf, k + 1) &&
                trajectory[k].hysteresis_tracker == ls_hyst(cfg, (unsigned char *)found_inf, k + 1);
        loop invariant trajectory_scale:
            \forall integer k; 0 <= k < i ==>
                ls_same(trajectory[k].scale, ls_scale(cfg, (unsigned char *)found_inf, k + 1));
        loop assigns i, cur, trajectory[0 .. n - 1];
        loop variant n - i;
    */
    for (size_t i = 0; i < n; i++) {
        cur = oc_loss_scale_next(cfg, cur, found_inf[i]);
        /* The state after update i + 1, proved here where the context is small (the invariants
         * then follow from it and the stores). */
        /*@ assert state_step:
                cur.growth_tracker == ls_growth(cfg, (unsigned char *)found_inf, i + 1) &&
                cur.hysteresis_tracker == ls_hyst(cfg, (unsigned char *)found_inf, i + 1);
        */
        /*@ assert scale_step:
                ls_same_scale(cur, ls_scale(cfg, (unsigned char *)found_inf, i + 1));
        */
        /* Field by field: WP proves the invariants from three plain stores, not a struct store. */
        trajectory[i].scale = cur.scale;
        trajectory[i].growth_tracker = cur.growth_tracker;
        trajectory[i].hysteresis_tracker = cur.hysteresis_tracker;
        //@ assert scale_stored: ls_same(trajectory[i].scale, cur.scale);
    }
    return OC_OK;
}
