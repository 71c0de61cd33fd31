/* Eva driver for oc_ref_schedule_eval (ref/schedule.c with the primitives of
 * ref/schedule_exact.c), on the styles that use no libm call.
 *
 * Analysed together with ref/schedule.c, ref/schedule_exact.c and ref/buffers.c, with
 * -warn-special-float non-finite. Frama-C 25's Eva cannot analyse the long double libm calls of
 * ref/schedule_exact.c (see proofs/STATUS.md, "long double"): the results of sinl and sqrtl are
 * not bounded by their libc contracts, expm1l has no contract, and any long double operation on
 * such an unbounded value aborts the analysis ("unimplemented feature: Builtins for long double
 * type"). So the driver only selects the styles that call no libm function:
 *   lr decay style     constant, linear, WSD with the linear anneal
 *                      (not cosine, inverse-sqrt, WSD cosine / exponential / 1-sqrt)
 *   wd increment style constant, linear (not cosine)
 * Out-of-range enum values are not analysed either: oc_schedule_check rejects them, but Eva
 * does not carry that reduction of *s back to the caller, so sched_lr would reach the libm
 * branches with them.
 *
 * Part 1, absence of run-time errors ("0 alarms": no NaN or infinite double or long double
 * value, no invalid access, no integer overflow), every combination of:
 *   init_lr, max_lr, min_lr    [0, 1]
 *   warmup_steps               [0, 10^9]
 *   decay_steps, wsd_decay_steps, wd_incr_steps   [1, 10^12] (wsd_decay_steps also 0)
 *   start_wd, end_wd           [0, 1]
 *   wd_mult                    [0, 10]
 *   samples                    [-1, 2*10^12]  (-1 is rejected)
 * Combinations that oc_schedule_check rejects (min_lr > max_lr, warmup_steps >= decay_steps,
 * ...) are part of the analysed ranges.
 *
 * (The wider arguments the harness's mutants pass to the exported pieces, n = W + 1,
 * den = D, a = D - S + 1, are within the pieces' contracts, which WP proves with -wp-rte.)
 *
 * Part 2, SCHED-RANGE-1: Eva is non-relational, so it cannot relate
 * lr to min_lr and max_lr when these are intervals. Part 2 fixes the lr hyper-parameters to
 * each of the configurations below (every lr style above, and the wd styles) and lets samples
 * range over [0, 3 D]; the assertion `range` then states min(min_lr, init_lr) <= lr <= max_lr
 * with the configuration's values.
 */
#include <stddef.h>
#include "__fc_builtin.h"
#include "optcert/schedule.h"

static oc_schedule ranges(void)
{
    oc_schedule s;
    s.init_lr = Frama_C_double_interval(0.0, 1.0);
    s.max_lr = Frama_C_double_interval(0.0, 1.0);
    s.min_lr = Frama_C_double_interval(0.0, 1.0);
    s.warmup_steps = Frama_C_long_long_interval(0, 1000000000);
    s.decay_steps = Frama_C_long_long_interval(1, 1000000000000);
    s.decay_style = (oc_lr_decay_style)Frama_C_nondet(Frama_C_nondet(OC_LR_CONSTANT, OC_LR_LINEAR),
                                                      OC_LR_WSD);
    s.wsd_decay_steps = Frama_C_long_long_interval(0, 1000000000000);
    s.wsd_style = OC_WSD_LINEAR;
    s.start_wd = Frama_C_double_interval(0.0, 1.0);
    s.end_wd = Frama_C_double_interval(0.0, 1.0);
    s.wd_incr_steps = Frama_C_long_long_interval(1, 1000000000000);
    s.wd_style = (oc_wd_incr_style)Frama_C_nondet(OC_WD_CONSTANT, OC_WD_LINEAR);
    s.wd_mult = Frama_C_double_interval(0.0, 10.0);
    return s;
}

/* SCHED-RANGE-1 for one configuration, over every sample position in [0, 3 D]. */
static int range(double init_lr, double max_lr, double min_lr, int64_t W, int64_t D,
                 oc_lr_decay_style style, int64_t L)
{
    oc_schedule s = {
        .init_lr = init_lr, .max_lr = max_lr, .min_lr = min_lr,
        .warmup_steps = W, .decay_steps = D, .decay_style = style,
        .wsd_decay_steps = L, .wsd_style = OC_WSD_LINEAR,
        .start_wd = 0.0, .end_wd = 0.1, .wd_incr_steps = D,
        .wd_style = (oc_wd_incr_style)Frama_C_interval(OC_WD_LINEAR, OC_WD_LINEAR),
        .wd_mult = 1.0,
    };
    /* lr starts in the range: Eva joins the OC_OK state with the error states (the pointer
     * checks of ref/buffers.c are imprecise), where lr is not written. */
    double lr = max_lr, wd = 0.0;
    oc_status st = oc_ref_schedule_eval(&s, Frama_C_long_long_interval(0, 3 * D), &lr, &wd);
    /*@ assert range: \min(min_lr, init_lr) <= lr <= max_lr; */
    return (int)st;
}

int main(void)
{
    /* Part 1 */
    oc_schedule s = ranges();
    double lr = 0.0, wd = 0.0;
    int64_t n = Frama_C_long_long_interval(-1, 2000000000000);
    int r = (int)oc_ref_schedule_eval(&s, n, &lr, &wd);
    r += (int)oc_ref_schedule_eval(&s, n, Frama_C_nondet(0, 1) ? &lr : NULL, &wd);

    /* Part 2: Megatron-like configurations (lr 3e-4 -> 3e-5, warmup from 0 or from above). */
    for (oc_lr_decay_style st = OC_LR_CONSTANT; st <= OC_LR_WSD; st++) {
        if (st == OC_LR_COSINE || st == OC_LR_INVERSE_SQRT)
            continue;
        r += range(0.0, 3e-4, 3e-5, 2000, 100000, st, 20000);
        r += range(1e-3, 1e-3, 0.0, 0, 1000000000, st, 1000000000);
        r += range(5e-4, 6e-4, 6e-4, 10, 11, st, 1);
    }
    return r;
}
