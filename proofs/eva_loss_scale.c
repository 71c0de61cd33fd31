/* Eva driver for ref/loss_scale.c: oc_ref_loss_scale_update, _init and _run, every profile (and
 * one out of range).
 *
 * Analysed with ref/loss_scale.c and -warn-special-float non-finite: "0 alarms" means that for
 * every input in the ranges below no float operation yields NaN or an infinity (the one the
 * spec asks for, Megatron's growth past FLT_MAX to +inf, LS-OVF-1, is outside them), no
 * access is out of bounds and no integer operation overflows (the trackers' +1 and -1 included).
 *
 * Stated ranges (each independently; every combination is analysed):
 *   profile                each value in its own call, and one past the last (rejected)
 *   initial_scale, scale   binary32 in [0, 2^64]
 *   min_scale              binary32 in [-1, 2^64]
 *   growth_factor          binary32 in [0, 2^15]
 *   backoff_factor         binary32 in [-1, 2]
 *   growth_interval        [-1, 2^31]    hysteresis [-1, 2^31]
 *   growth_tracker         [-1, 2^31]    hysteresis_tracker [INT64_MIN, INT64_MAX]
 *   found_inf              {0, 1} per update; run: n in [0, 4] updates
 * The bounds on the scale and the growth factor keep every product of N = 4 updates below
 * 2^124: they leave
 * out the one place where the reference produces a non-finite value by specification,
 * Megatron's growth past FLT_MAX to +inf (LS-OVF-1), and the +inf state after it. Those are
 * covered by the unit tests (test_ref_loss_scale.c, test_overflow) and the vectors
 * (GrowthToLargeScales), which run them under UBSan too.
 */
#include <float.h>
#include <stdint.h>
#include "__fc_builtin.h"
#include "optcert/loss_scale.h"

#define N 4

static oc_loss_scaler config(oc_loss_scale_profile profile)
{
    oc_loss_scaler c;
    c.profile = profile;
    c.initial_scale = Frama_C_float_interval(0.0f, 0x1p64f);
    c.min_scale = Frama_C_float_interval(-1.0f, 0x1p64f);
    c.growth_factor = Frama_C_float_interval(0.0f, 0x1p15f);
    c.backoff_factor = Frama_C_float_interval(-1.0f, 2.0f);
    c.growth_interval = Frama_C_long_long_interval(-1, 2147483648LL);
    c.hysteresis = Frama_C_long_long_interval(-1, 2147483648LL);
    return c;
}

/* Every entry point with one profile (a constant, so that Eva keeps the checks of each). */
static int run_profile(oc_loss_scale_profile profile)
{
    oc_loss_scaler c = config(profile);
    oc_loss_scale_state s;
    s.scale = Frama_C_float_interval(0.0f, 0x1p64f);
    s.growth_tracker = Frama_C_long_long_interval(-1, 2147483648LL);
    s.hysteresis_tracker = Frama_C_long_long_interval(INT64_MIN, INT64_MAX);
    oc_status st = oc_ref_loss_scale_update(&c, &s, Frama_C_interval(0, 1));

    oc_loss_scale_state init;
    oc_status st2 = oc_ref_loss_scale_init(&c, &init);

    unsigned char h[N];
    oc_loss_scale_state traj[N];
    for (int i = 0; i < N; i++)
        h[i] = (unsigned char)Frama_C_interval(0, 1);
    size_t n = Frama_C_size_t_interval(0, N);
    oc_status st3 = oc_ref_loss_scale_run(&c, h, n, traj);
    return (int)st + (int)st2 + (int)st3;
}

int main(void)
{
    int r = 0;
    for (int p = 0; p <= OC_LS_PROFILE_COUNT; p++)
        r += run_profile((oc_loss_scale_profile)p);
    oc_loss_scale_profile parsed = OC_LS_MEGATRON;
    oc_status st = oc_loss_scale_profile_parse(Frama_C_nondet(0, 1) ? "torch" : "apex", &parsed);
    return r + (int)st + (int)parsed;
}
