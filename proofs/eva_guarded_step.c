/* Eva driver for ref/guarded_step.c: oc_ref_guarded_step over a chained optimizer of an Adam,
 * an SGD and a Lion sub-optimizer (one parameter of up to N elements each), every mode (and
 * one out of range), clipping on and off, with the real sub-optimizer
 * steps, the clipping (ref/clip.c) and the loss scaler (ref/loss_scale.c) analysed inside it.
 *
 * Analysed with ref/guarded_step.c, ref/adam.c, ref/sgd.c, ref/lion.c, ref/clip.c,
 * ref/loss_scale.c, ref/buffers.c, proofs/fmax.c, proofs/fma.c and -warn-special-float
 * non-finite: "0 alarms" means that for every input in the ranges below no float/double
 * operation yields NaN or an infinity, no access is out of bounds or uninitialised and no
 * integer operation overflows, along the whole step (validation, unscaling, the found_inf
 * check, the scaler update, the global norm and the clipping, the three updates).
 *
 * Stated ranges (each independently):
 *   mode                      every value and one out of range
 *   clip_grad                 [-4, 4] (<= 0 disables clipping); inf_norm in {0, 1, 2}
 *   skip_threshold            [2^-20, 2^100] (Megatron's default +inf is not built: Eva flags
 *                             the construction of a non-finite value itself; it is only compared)
 *   scaler                    megatron, initial and current scale in [1, 2^32], min 1,
 *                             growth 2, backoff 0.5, interval 1000 and hysteresis 2 (the
 *                             defaults: Eva does not relate the trackers to them, and
 *                             eva_loss_scale.c covers the scaler's own ranges), growth
 *                             tracker in [0, 999], hysteresis tracker in [-5, 2]; one
 *                             state for the chain or one per sub-optimizer (sub_scalers
 *                             0, 1 and one out of range)
 *   position, increment       [0, 2^40]; step counters [0, 10^9]
 *   Adam, SGD, Lion           the hyper-parameter ranges of proofs/eva_{adam,sgd,lion}.c
 *                             reduced to the defaults' neighbourhood (lr [0, 1], betas
 *                             [0, 0.9999], eps [1e-12, 1e-3], weight decay [0, 1], momentum
 *                             and dampening [0, 0.99]), torch profiles, SGD without
 *                             Nesterov (its momentum/dampening constraint is a relation Eva
 *                             does not carry from the check to the step; eva_sgd.c covers it)
 *   p, state, g               fp32 in [-1e4, 1e4] (v, vmax in [0, 1e8]); the gradients are
 *                             finite (the found_inf branches and STEP-NONFINITE-1 are covered
 *                             by test_ref_guarded_step.c): unscaling by 1/scale <= 1 and
 *                             clipping by a coefficient < 1 keep them inside the ranges of the
 *                             sub-optimizers' drivers.
 */
#include "__fc_builtin.h"
#include "optcert/guarded_step.h"

#define N 2

static float p[3][N], s[3][3][N], g[3][N];

static void fill(float *a, float lo, float hi)
{
    for (int i = 0; i < N; i++)
        a[i] = Frama_C_float_interval(lo, hi);
}

int main(void)
{
    oc_guarded_param params[3];
    oc_sub_optimizer subs[3];
    for (int k = 0; k < 3; k++) {
        fill(p[k], -1e4f, 1e4f);
        fill(s[k][0], -1e4f, 1e4f);
        fill(s[k][1], 0.0f, 1e8f);
        fill(s[k][2], 0.0f, 1e8f);
        fill(g[k], -1e4f, 1e4f);
        params[k] = (oc_guarded_param){(size_t)Frama_C_interval(0, N), p[k],
                                       {s[k][0], s[k][1], s[k][2]}, g[k]};
        subs[k] = (oc_sub_optimizer){.kind = (oc_algorithm)k,
                                     .step = Frama_C_long_long_interval(0, 1000000000LL),
                                     .nparams = 1, .params = &params[k]};
    }
    subs[0].hp.adam = (oc_adam_hparams){OC_ADAM_TORCH, Frama_C_double_interval(0.0, 1.0),
                                        Frama_C_double_interval(0.0, 0.9999),
                                        Frama_C_double_interval(0.0, 0.9999),
                                        Frama_C_double_interval(1e-12, 1e-3),
                                        Frama_C_double_interval(0.0, 1.0), 0.0, 1.0,
                                        Frama_C_interval(0, 1), Frama_C_interval(0, 1),
                                        Frama_C_interval(0, 1)};
    subs[1].hp.sgd = (oc_sgd_hparams){OC_SGD_TORCH, Frama_C_double_interval(0.0, 1.0),
                                      Frama_C_double_interval(0.0, 0.99),
                                      Frama_C_double_interval(0.0, 0.99),
                                      Frama_C_double_interval(0.0, 1.0), 0,
                                      Frama_C_interval(0, 1)};
    subs[2].hp.lion = (oc_lion_hparams){OC_LION_TORCH, Frama_C_double_interval(0.0, 1.0),
                                        Frama_C_double_interval(0.0, 0.9999),
                                        Frama_C_double_interval(0.0, 0.9999),
                                        Frama_C_double_interval(0.0, 1.0)};
    oc_guard_config cfg = {.mode = (oc_guard_mode)Frama_C_interval(0, OC_GUARD_MODE_COUNT),
                           .clip_grad = Frama_C_double_interval(-4.0, 4.0),
                           .inf_norm = Frama_C_interval(0, 2),
                           .skip_threshold = Frama_C_double_interval(0x1p-20, 0x1p100),
                           .per_sub = Frama_C_interval(0, 2),
                           .mtp_params = (uint64_t)Frama_C_interval(0, 15),
                           .sub_scalers = Frama_C_interval(0, 2)};
    for (int k = 0; k < OC_GUARD_MAX_SUBS; k++) {  /* STEP-CLIP-2: each sub-optimizer's own */
        cfg.sub_clip_grad[k] = Frama_C_double_interval(-4.0, 4.0);
        cfg.sub_skip_threshold[k] = Frama_C_double_interval(0x1p-20, 0x1p100);
    }
    oc_loss_scaler scaler = {OC_LS_MEGATRON, Frama_C_float_interval(1.0f, 0x1p32f), 1.0f, 2.0f,
                             0.5f, 1000, 2};
    oc_loss_scale_state state[3];        /* one per sub-optimizer (STEP-SCALER-2) */
    for (int k = 0; k < 3; k++)
        state[k] = (oc_loss_scale_state){Frama_C_float_interval(1.0f, 0x1p32f),
                                         Frama_C_long_long_interval(0, 999),
                                         Frama_C_long_long_interval(-5, 2)};
    int64_t position = Frama_C_long_long_interval(0, 1LL << 40);
    float norm;
    oc_step_outcome outcome;
    /* one state per value of nsub: the step's inverse scales (written for k < nsub) are read
     * for k < nsub, a relation Eva keeps only when nsub is one value */
    size_t nsub = (size_t)Frama_C_interval(0, 3);
    oc_status st;
    //@ split nsub;
    st = oc_ref_guarded_step(&cfg, &scaler, state, nsub, subs, &position,
                             Frama_C_long_long_interval(0, 1LL << 40), &norm, &outcome);
    return (int)st;
}
