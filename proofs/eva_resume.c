/* Eva driver for ref/resume.c (spec/checkpoint.md RESUME-REF-1, RESUME-LS-1): oc_ref_state_io
 * with every operation (and one out of range), every algorithm (Adam with and without AMSGrad,
 * SGD with and without momentum, Lion, the loss scaler of every profile, and one out of range),
 * every storage combination, every buffer count a call can be given.
 *
 * Analysed with ref/resume.c, ref/mixed.c (oc_algorithm_state_count) and ref/loss_scale.c
 * (oc_loss_scaler_check, oc_ref_loss_scale_init): "0 alarms" means that for every input below no
 * access is out of bounds or uninitialised, no integer operation overflows and no pointer is
 * invalid: the save's size is computed without wrapping, every copy stays inside the save
 * buffer (whose capacity len the call is given, any value in [0, CAP]) and inside the state
 * buffers.
 *
 * Stated ranges:
 *   n              [0, N] (N = 4) elements per buffer; 1 for the loss scaler (and [0, 2])
 *   *len           [0, CAP], CAP = 40 + N * 18 (the largest save: bf16 Adam-AMSGrad)
 *   *steps_done    [-1, 2^40]
 *   save bytes     any value (a restore reads whatever the buffer holds)
 *   hyper-parameters: the fields the state count reads (amsgrad, momentum, profile) over their
 *                  ranges; the loss scaler's configuration over LS-CFG-1's boundaries
 */
#include <stdint.h>
#include "__fc_builtin.h"
#include "optcert/resume.h"

#define N 4
#define CAP (40 + N * 18)

static float f32[5][N];
static oc_loss_scale_state scaler;
static unsigned char bytes[CAP];
static volatile int sink;

static void call(oc_algorithm alg, const void *hp, const oc_storage *s, size_t n)
{
    void *state[5] = {f32[0], f32[1], f32[2], f32[3], f32[4]};
    if (alg == OC_STATE_LOSS_SCALER)
        state[0] = &scaler;
    for (int i = 0; i < CAP; i++)
        bytes[i] = (unsigned char)Frama_C_interval(0, 255);
    size_t len = Frama_C_size_t_interval(0, CAP);
    int64_t done = Frama_C_long_long_interval(-1, 1LL << 40);
    oc_state_op op = (oc_state_op)Frama_C_interval(OC_STATE_SIZE, OC_STATE_RESTORE + 1);
    sink = oc_ref_state_io(op, alg, hp, s, n, state, &done, bytes, &len);
    sink = oc_state_buffer_count(alg, hp, s);
}

static void elementwise(oc_algorithm alg, const void *hp)
{
    for (int p = OC_FMT_F32; p <= OC_FMT_F16; p++)
        for (int q = OC_FMT_F32; q <= OC_FMT_F16; q++) {
            oc_storage s = {(oc_format)p, (oc_format)q};
            call(alg, hp, &s, Frama_C_size_t_interval(0, N));
        }
}

int main(void)
{
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < N; j++)
            f32[i][j] = Frama_C_float_interval(-1.0f, 1.0f);
    scaler.scale = Frama_C_float_interval(0.0f, 0x1p64f);
    scaler.growth_tracker = Frama_C_long_long_interval(0, 1LL << 31);
    scaler.hysteresis_tracker = Frama_C_long_long_interval(INT64_MIN, INT64_MAX);
    oc_adam_hparams adam = {0};
    adam.amsgrad = Frama_C_interval(0, 1);
    elementwise(OC_ALG_ADAM, &adam);
    oc_sgd_hparams sgd = {0};
    sgd.momentum = Frama_C_nondet(0, 1) ? 0.0 : 0.9;
    elementwise(OC_ALG_SGD, &sgd);
    oc_lion_hparams lion = {0};
    elementwise(OC_ALG_LION, &lion);
    elementwise(OC_ALG_COUNT, &lion);
    for (int p = 0; p <= OC_LS_PROFILE_COUNT; p++) {
        oc_loss_scaler c;
        c.profile = (oc_loss_scale_profile)p;
        c.initial_scale = Frama_C_float_interval(0.0f, 0x1p64f);
        c.min_scale = Frama_C_float_interval(0.0f, 0x1p64f);
        c.growth_factor = Frama_C_float_interval(0.0f, 4.0f);
        c.backoff_factor = Frama_C_float_interval(-1.0f, 2.0f);
        c.growth_interval = Frama_C_long_long_interval(-1, 1LL << 32);
        c.hysteresis = Frama_C_long_long_interval(-1, 1LL << 32);
        call(OC_STATE_LOSS_SCALER, &c, NULL, Frama_C_size_t_interval(0, 2));
    }
    sink = oc_ref_state_io(OC_STATE_SIZE, OC_ALG_ADAM, NULL, NULL, 1, NULL, NULL, NULL, NULL);
    return 0;
}
