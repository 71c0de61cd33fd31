/* Dynamic loss scaling (spec/loss_scale.md): the scale and its trackers as a state machine
 * driven by the found_inf flag of each iteration. Profiles: Megatron's DynamicGradScaler
 * (hysteresis, min_scale), Megatron's ConstantGradScaler, torch.amp.GradScaler. */
#ifndef OPTCERT_LOSS_SCALE_H
#define OPTCERT_LOSS_SCALE_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"
#include <string.h> /* for the ACSL below (valid_read_string) */

typedef enum oc_loss_scale_profile {
    OC_LS_MEGATRON = 0,      /* DynamicGradScaler                     LS-PROF-MEGATRON */
    OC_LS_MEGATRON_CONSTANT, /* ConstantGradScaler: the scale never moves  LS-PROF-CONSTANT */
    OC_LS_TORCH,             /* torch.amp.GradScaler (_amp_update_scale_)  LS-PROF-TORCH */
    OC_LS_PROFILE_COUNT
} oc_loss_scale_profile;

/* The scaler's configuration (LS-CFG-1). The factors and scales are binary32 values (both
 * libraries keep the scale in a float32 tensor). Fields a profile does not read are ignored:
 * min_scale and hysteresis by torch, everything but initial_scale by the constant scaler. */
typedef struct oc_loss_scaler {
    oc_loss_scale_profile profile;
    float initial_scale;     /* > 0, finite */
    float min_scale;         /* megatron: 0 < min_scale <= initial_scale */
    float growth_factor;     /* > 1, finite */
    float backoff_factor;    /* in (0, 1) */
    int64_t growth_interval; /* 1 .. OC_LS_MAX_INTERVAL */
    int64_t hysteresis;      /* megatron: 1 .. OC_LS_MAX_INTERVAL */
} oc_loss_scaler;

/* torch keeps the growth tracker in an int32 tensor; one bound for both counters. */
#define OC_LS_MAX_INTERVAL 2147483647

/* The state after some number of updates (LS-STATE-1). The hysteresis tracker is Megatron's:
 * it keeps decreasing below 0 while infs continue (LS-HYST-1); a state is valid while it is at
 * least OC_LS_MIN_HYSTERESIS_TRACKER (2^62 updates). */
#define OC_LS_MIN_HYSTERESIS_TRACKER (-(INT64_C(1) << 62))

typedef struct oc_loss_scale_state {
    float scale;
    int64_t growth_tracker;
    int64_t hysteresis_tracker;
} oc_loss_scale_state;

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

/*@ requires name_ok: name == \null || valid_read_string(name);
    requires out_ok: out == \null || \valid(out);
    assigns *out;
    ensures known: \result == OC_OK ==> 0 <= *out < OC_LS_PROFILE_COUNT; */
oc_status oc_loss_scale_profile_parse(const char *name, oc_loss_scale_profile *out);

/* Checks a configuration against LS-CFG-1. */
/*@ requires c_readable: c == \null || \valid_read(c);
    assigns \nothing;
    ensures null_c: c == \null ==> \result == OC_ERR_NULL_POINTER;
    ensures ok_iff_cfg: \result == OC_OK <==> c != \null && ls_cfg_ok(*c);
*/
oc_status oc_loss_scaler_check(const oc_loss_scaler *c);

/* The initial state (LS-INIT-1). On error nothing is written. */
/*@ requires c_readable: c == \null || \valid_read(c);
    requires s_writable: s == \null || \valid(s);
    assigns *s;
    ensures ok_iff_cfg: \result == OC_OK <==> c != \null && s != \null && \old(ls_cfg_ok(*c));
    ensures initial: \result == OC_OK ==> s->scale == \old(c->initial_scale) && s->growth_tracker == 0 &&
                                 s->hysteresis_tracker == \old(c->hysteresis);
    ensures unchanged_on_error: \result != OC_OK && s != \null ==> *s == \old(*s);
*/
oc_status oc_ref_loss_scale_init(const oc_loss_scaler *c, oc_loss_scale_state *s);

/* LS-STATE-1: whether s is a state configuration c can reach (OC_OK, else OC_ERR_BAD_STEP). */
/*@ requires readable: \valid_read(c) && \valid_read(s);
    assigns \nothing;
    ensures status: \result == OC_OK || \result == OC_ERR_BAD_STEP;
    ensures ok_iff_state: \result == OC_OK <==> ls_state_ok(*c, *s);
*/
oc_status oc_loss_scale_state_check(const oc_loss_scaler *c, const oc_loss_scale_state *s);

/* The state after one update of state s with found_inf (LS-GROW-1, LS-HYST-1, LS-BACKOFF-1),
 * for a valid configuration and state (the harness's mutant variants,
 * conformance/mutants/loss_scale.c, recombine it). */
/*@ requires cfg_ok: ls_cfg_ok(c);
    requires state_ok: ls_state_ok(c, s);
    assigns \nothing;
    ensures scale_nonneg: \le_float((float)0.0, \result.scale);
    ensures growth_range: c.profile != OC_LS_MEGATRON_CONSTANT ==>
            0 <= \result.growth_tracker < c.growth_interval;
    ensures constant_kept: c.profile == OC_LS_MEGATRON_CONSTANT ==> \result == s;
    ensures hysteresis_range: c.profile == OC_LS_MEGATRON ==>
            s.hysteresis_tracker - 1 <= \result.hysteresis_tracker <= c.hysteresis;
    ensures torch_hysteresis: c.profile == OC_LS_TORCH ==>
            \result.hysteresis_tracker == s.hysteresis_tracker;
    ensures growth_next: c.profile != OC_LS_MEGATRON_CONSTANT ==>
            \result.growth_tracker == (found_inf != 0 ? 0 :
                s.growth_tracker + 1 == c.growth_interval ? 0 : s.growth_tracker + 1);
    ensures hysteresis_next: c.profile == OC_LS_MEGATRON ==>
            \result.hysteresis_tracker == (found_inf != 0 ? s.hysteresis_tracker - 1 :
                s.growth_tracker + 1 == c.growth_interval ? c.hysteresis : s.hysteresis_tracker);
    ensures scale_kept: c.profile != OC_LS_MEGATRON_CONSTANT &&
            (found_inf == 0 ? s.growth_tracker + 1 != c.growth_interval
                      : c.profile == OC_LS_MEGATRON && \result.hysteresis_tracker > 0) ==>
            ls_same_scale(\result, s.scale);
    ensures scale_grown: c.profile != OC_LS_MEGATRON_CONSTANT &&
            found_inf == 0 && s.growth_tracker + 1 == c.growth_interval ==>
            ls_same_scale(\result, ls_grown(c, s.scale));
    ensures scale_backed_off: c.profile != OC_LS_MEGATRON_CONSTANT &&
            found_inf != 0 && (c.profile == OC_LS_TORCH || \result.hysteresis_tracker <= 0) ==>
            ls_same_scale(\result, ls_backed(c, s.scale));
*/
oc_loss_scale_state oc_loss_scale_next(oc_loss_scaler c, oc_loss_scale_state s, int found_inf);

/* One update with this iteration's found_inf (0: all gradients finite; any other value: some
 * inf or NaN was found) (LS-GROW-1, LS-HYST-1, LS-BACKOFF-1). The state must be one the
 * configuration can reach (LS-STATE-1); on error nothing is written. */
/*@ requires c_readable: c == \null || \valid_read(c);
    requires s_writable: s == \null || \valid(s);
    assigns *s;
    ensures ok_iff_valid: \result == OC_OK <==>
            c != \null && s != \null && \old(ls_cfg_ok(*c)) && \old(ls_state_ok(*c, *s));
    ensures unchanged_on_error: \result != OC_OK && s != \null ==> *s == \old(*s);
*/
oc_status oc_ref_loss_scale_update(const oc_loss_scaler *c, oc_loss_scale_state *s,
                                   int found_inf);

/* Runs n updates from the initial state with found_inf[0 .. n-1] and writes the state after
 * each update into trajectory[0 .. n-1] (n <= 2^62). On error nothing is written. Its contract
 * states every written state as a function of the history (proved, WP). */
/*@ requires c_readable: c == \null || \valid_read(c);
    requires n_bound: n <= 4611686018427387904;
    requires history_readable: found_inf == \null || \valid_read(found_inf + (0 .. n - 1));
    requires states_writable: trajectory == \null || \valid(trajectory + (0 .. n - 1));
    requires separated: found_inf != \null && trajectory != \null ==>
             \separated(found_inf + (0 .. n - 1), trajectory + (0 .. n - 1));
    assigns trajectory[0 .. n - 1];
    ensures run_trackers: \result == OC_OK ==>
            \forall integer k; 0 <= k < n ==>
                trajectory[k].growth_tracker == ls_growth(\old(*c), (unsigned char *)found_inf, k + 1) &&
                trajectory[k].hysteresis_tracker == ls_hyst(\old(*c), (unsigned char *)found_inf, k + 1);
    ensures run_scale: \result == OC_OK ==>
            \forall integer k; 0 <= k < n ==>
                ls_same(trajectory[k].scale, ls_scale(\old(*c), (unsigned char *)found_inf, k + 1));
    ensures unchanged_on_error: \result != OC_OK ==>
            \forall integer k; 0 <= k < n ==> trajectory[k] == \old(trajectory[k]);
*/
oc_status oc_ref_loss_scale_run(const oc_loss_scaler *c, const unsigned char *found_inf, size_t n,
                                oc_loss_scale_state *trajectory);

#endif
