/* Dynamic loss scaling reference (spec/loss_scale.md): Megatron's DynamicGradScaler and
 * ConstantGradScaler, and torch.amp.GradScaler's _amp_update_scale_. Scalar C11, no
 * allocation, no I/O, no globals.
 *
 * The trackers are integers and every decision (grow, back off, keep) depends on them only;
 * the scale moves only by a binary32 product with a factor (LS-MUL-1) and Megatron's clamp.
 * The functional contract of oc_ref_loss_scale_run states the whole state as logic functions
 * of the found_inf history (ls_growth, ls_hyst, ls_scale below) and WP proves it in its IEEE
 * binary32 model, the products included (proofs/STATUS.md).
 */
#include <float.h>
#include <string.h>
#include "optcert/loss_scale.h"

/* The float comparisons of the logic are binary32 ones (\lt_float, \le_float), and a scale is
 * compared as a state field (ls_same_scale, ls_same): ACSL's < and == on floats compare their
 * real values, which WP leaves unspecified for the infinities, and cvc5 relates two variables'
 * binary32 order to their real order only through \lt_float and \le_float. \mul_float is the
 * binary32 product, RN32(s * f) with IEEE overflow to +inf: LS-MUL-1 and LS-OVF-1 exactly. */
/*@ axiomatic LossScaleTests {
      // The truth values of two binary32 tests, as terms for the case splits of the logic
      // functions below (?: takes a term; \is_finite and \lt_float are predicates).
      logic boolean ls_finite(float x);
      axiom ls_finite_def: \forall float x; ls_finite(x) <==> \is_finite(x);
      logic boolean ls_below(float x, float y);
      axiom ls_below_def: \forall float x, y; ls_below(x, y) <==> \lt_float(x, y);
      // Some state (no axiom): ls_same compares two floats as the scales of two copies of it.
      logic oc_loss_scale_state ls_any;
    }

    // The state s has the scale v: the same binary32 value (+inf included), as WP compares
    // two states field by field as binary32 values.
    predicate ls_same_scale(oc_loss_scale_state s, float v) = s == {s \with .scale = v};

    // x and y are the same binary32 value, compared as the scales of two states.
    predicate ls_same(float x, float y) = {ls_any \with .scale = x} == {ls_any \with .scale = y};

    predicate ls_cfg_ok(oc_loss_scaler c) =
        OC_LS_MEGATRON <= c.profile < OC_LS_PROFILE_COUNT &&
        \is_finite(c.initial_scale) && \lt_float((float)0.0, c.initial_scale) &&
        (c.profile != OC_LS_MEGATRON_CONSTANT ==>
            \is_finite(c.growth_factor) && \lt_float((float)1.0, c.growth_factor) &&
            \is_finite(c.backoff_factor) && \lt_float((float)0.0, c.backoff_factor) &&
            \lt_float(c.backoff_factor, (float)1.0) &&
            1 <= c.growth_interval <= OC_LS_MAX_INTERVAL) &&
        (c.profile == OC_LS_MEGATRON ==>
            \is_finite(c.min_scale) && \lt_float((float)0.0, c.min_scale) &&
            \le_float(c.min_scale, c.initial_scale) &&
            1 <= c.hysteresis <= OC_LS_MAX_INTERVAL);

    // A growth (LS-GROW-1, LS-MUL-1): the product; torch keeps the scale when it overflows
    // (LS-OVF-1), Megatron takes the +inf.
    logic float ls_grown(oc_loss_scaler c, float s) =
        c.profile == OC_LS_TORCH && !ls_finite(\mul_float(s, c.growth_factor))
            ? s : \mul_float(s, c.growth_factor);

    // A backoff (LS-BACKOFF-1, LS-MUL-1): the product, clamped at min_scale by Megatron.
    logic float ls_backed(oc_loss_scaler c, float s) =
        c.profile == OC_LS_MEGATRON && ls_below(\mul_float(s, c.backoff_factor), c.min_scale)
            ? c.min_scale : \mul_float(s, c.backoff_factor);

    // The growth tracker after the n first updates of history h (LS-GROW-1, LS-INF-1).
    logic integer ls_growth{L}(oc_loss_scaler c, unsigned char *h, integer n) =
        n <= 0 || c.profile == OC_LS_MEGATRON_CONSTANT ? 0 :
        h[n - 1] != 0 ? 0 :
        ls_growth(c, h, n - 1) + 1 == c.growth_interval ? 0 : ls_growth(c, h, n - 1) + 1;

    // Update n (1-based) grows the scale: a clean step that completes an interval.
    logic boolean ls_grows{L}(oc_loss_scaler c, unsigned char *h, integer n) =
        c.profile != OC_LS_MEGATRON_CONSTANT && h[n - 1] == 0 &&
        ls_growth(c, h, n - 1) + 1 == c.growth_interval;

    // The hysteresis tracker (LS-HYST-1): decremented by every inf, reset only by growth.
    logic integer ls_hyst{L}(oc_loss_scaler c, unsigned char *h, integer n) =
        n <= 0 || c.profile != OC_LS_MEGATRON ? c.hysteresis :
        h[n - 1] != 0 ? ls_hyst(c, h, n - 1) - 1 :
        ls_grows(c, h, n) ? c.hysteresis : ls_hyst(c, h, n - 1);

    // Update n backs the scale off (LS-BACKOFF-1): torch on every inf, Megatron once the
    // hysteresis tracker is exhausted.
    logic boolean ls_backs_off{L}(oc_loss_scaler c, unsigned char *h, integer n) =
        h[n - 1] != 0 &&
        (c.profile == OC_LS_TORCH || (c.profile == OC_LS_MEGATRON && ls_hyst(c, h, n) <= 0));

    // The scale after the n first updates (LS-INIT-1, LS-GROW-1, LS-BACKOFF-1, LS-OVF-1).
    logic float ls_scale{L}(oc_loss_scaler c, unsigned char *h, integer n) =
        n <= 0 ? c.initial_scale :
        ls_grows(c, h, n) ? ls_grown(c, ls_scale(c, h, n - 1)) :
        ls_backs_off(c, h, n) ? ls_backed(c, ls_scale(c, h, n - 1)) :
        ls_scale(c, h, n - 1);

    // A state the configuration can be in (LS-STATE-1), for the update's preconditions.
    predicate ls_state_ok(oc_loss_scaler c, oc_loss_scale_state s) =
        \le_float((float)0.0, s.scale) &&
        (c.profile != OC_LS_MEGATRON_CONSTANT ==> 0 <= s.growth_tracker < c.growth_interval) &&
        (c.profile == OC_LS_MEGATRON ==>
            OC_LS_MIN_HYSTERESIS_TRACKER < s.hysteresis_tracker <= c.hysteresis);
*/

static const char *const profile_names[OC_LS_PROFILE_COUNT] = {
    "megatron", "megatron-constant", "torch",
};

/*@ requires name == \null || valid_read_string(name);
    requires out == \null || \valid(out);
    assigns *out;
    ensures \result == OC_OK ==> 0 <= *out < OC_LS_PROFILE_COUNT;
*/
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
/*@ requires c == \null || \valid_read(c);
    assigns \nothing;
    ensures c == \null ==> \result == OC_ERR_NULL_POINTER;
    ensures \result == OC_OK <==> c != \null && ls_cfg_ok(*c);
*/
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

/*@ requires c == \null || \valid_read(c);
    requires s == \null || \valid(s);
    assigns *s;
    ensures \result == OC_OK <==> c != \null && s != \null && \old(ls_cfg_ok(*c));
    ensures \result == OC_OK ==> s->scale == \old(c->initial_scale) && s->growth_tracker == 0 &&
                                 s->hysteresis_tracker == \old(c->hysteresis);
    ensures \result != OC_OK && s != \null ==> *s == \old(*s);
*/
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
/*@ requires ls_cfg_ok(c);
    requires ls_state_ok(c, s);
    assigns \nothing;
    ensures \le_float((float)0.0, \result.scale);
    ensures c.profile != OC_LS_MEGATRON_CONSTANT ==>
            0 <= \result.growth_tracker < c.growth_interval;
    ensures c.profile == OC_LS_MEGATRON_CONSTANT ==> \result == s;
    ensures c.profile == OC_LS_MEGATRON ==>
            s.hysteresis_tracker - 1 <= \result.hysteresis_tracker <= c.hysteresis;
    ensures c.profile == OC_LS_TORCH ==> \result.hysteresis_tracker == s.hysteresis_tracker;
    ensures c.profile != OC_LS_MEGATRON_CONSTANT ==>
            \result.growth_tracker == (inf != 0 ? 0 :
                s.growth_tracker + 1 == c.growth_interval ? 0 : s.growth_tracker + 1);
    ensures c.profile == OC_LS_MEGATRON ==>
            \result.hysteresis_tracker == (inf != 0 ? s.hysteresis_tracker - 1 :
                s.growth_tracker + 1 == c.growth_interval ? c.hysteresis : s.hysteresis_tracker);
    ensures scale_kept: c.profile != OC_LS_MEGATRON_CONSTANT &&
            (inf == 0 ? s.growth_tracker + 1 != c.growth_interval
                      : c.profile == OC_LS_MEGATRON && \result.hysteresis_tracker > 0) ==>
            ls_same_scale(\result, s.scale);
    ensures scale_grown: c.profile != OC_LS_MEGATRON_CONSTANT &&
            inf == 0 && s.growth_tracker + 1 == c.growth_interval ==>
            ls_same_scale(\result, ls_grown(c, s.scale));
    ensures scale_backed_off: c.profile != OC_LS_MEGATRON_CONSTANT &&
            inf != 0 && (c.profile == OC_LS_TORCH || \result.hysteresis_tracker <= 0) ==>
            ls_same_scale(\result, ls_backed(c, s.scale));
*/
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
/*@ requires \valid_read(c) && \valid_read(s);
    assigns \nothing;
    ensures \result == OC_OK || \result == OC_ERR_BAD_STEP;
    ensures \result == OC_OK <==> ls_state_ok(*c, *s);
*/
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
/*@ requires c == \null || \valid_read(c);
    requires s == \null || \valid(s);
    assigns *s;
    ensures \result == OC_OK <==>
            c != \null && s != \null && \old(ls_cfg_ok(*c)) && \old(ls_state_ok(*c, *s));
    ensures \result != OC_OK && s != \null ==> *s == \old(*s);
*/
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
/*@ requires c == \null || \valid_read(c);
    requires n <= 4611686018427387904;
    requires found_inf == \null || \valid_read(found_inf + (0 .. n - 1));
    requires trajectory == \null || \valid(trajectory + (0 .. n - 1));
    requires found_inf != \null && trajectory != \null ==>
             \separated(found_inf + (0 .. n - 1), trajectory + (0 .. n - 1));
    assigns trajectory[0 .. n - 1];
    ensures run_trackers: \result == OC_OK ==>
            \forall integer k; 0 <= k < n ==>
                trajectory[k].growth_tracker == ls_growth(\old(*c), (unsigned char *)found_inf, k + 1) &&
                trajectory[k].hysteresis_tracker == ls_hyst(\old(*c), (unsigned char *)found_inf, k + 1);
    ensures run_scale: \result == OC_OK ==>
            \forall integer k; 0 <= k < n ==>
                ls_same(trajectory[k].scale, ls_scale(\old(*c), (unsigned char *)found_inf, k + 1));
    ensures \result != OC_OK ==> \forall integer k; 0 <= k < n ==> trajectory[k] == \old(trajectory[k]);
*/
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
