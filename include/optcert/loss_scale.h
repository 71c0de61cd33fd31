/* Dynamic loss scaling (spec/loss_scale.md): the scale and its trackers as a state machine
 * driven by the found_inf flag of each iteration. Profiles: Megatron's DynamicGradScaler
 * (hysteresis, min_scale), Megatron's ConstantGradScaler, torch.amp.GradScaler. */
#ifndef OPTCERT_LOSS_SCALE_H
#define OPTCERT_LOSS_SCALE_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"

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

oc_status oc_loss_scale_profile_parse(const char *name, oc_loss_scale_profile *out);

/* Checks a configuration against LS-CFG-1. */
oc_status oc_loss_scaler_check(const oc_loss_scaler *c);

/* The initial state (LS-INIT-1). On error nothing is written. */
oc_status oc_ref_loss_scale_init(const oc_loss_scaler *c, oc_loss_scale_state *s);

/* LS-STATE-1: whether s is a state configuration c can reach (OC_OK, else OC_ERR_BAD_STEP). */
oc_status oc_loss_scale_state_check(const oc_loss_scaler *c, const oc_loss_scale_state *s);

/* The state after one update of state s with found_inf (LS-GROW-1, LS-HYST-1, LS-BACKOFF-1),
 * for a valid configuration and state (the harness's mutant variants,
 * conformance/mutants/loss_scale.c, recombine it). */
oc_loss_scale_state oc_loss_scale_next(oc_loss_scaler c, oc_loss_scale_state s, int found_inf);

/* One update with this iteration's found_inf (0: all gradients finite; any other value: some
 * inf or NaN was found) (LS-GROW-1, LS-HYST-1, LS-BACKOFF-1). The state must be one the
 * configuration can reach (LS-STATE-1); on error nothing is written. */
oc_status oc_ref_loss_scale_update(const oc_loss_scaler *c, oc_loss_scale_state *s,
                                   int found_inf);

/* Runs n updates from the initial state with found_inf[0 .. n-1] and writes the state after
 * each update into trajectory[0 .. n-1] (n <= 2^62). On error nothing is written. Its contract
 * in ref/loss_scale.c states every written state as a function of the history (proved, WP). */
oc_status oc_ref_loss_scale_run(const oc_loss_scaler *c, const unsigned char *found_inf, size_t n,
                                oc_loss_scale_state *trajectory);

#endif
