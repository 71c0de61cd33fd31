/* Eva driver for ref/te_storage.c (spec/te_storage.md): the split and the reconstruction of
 * every one of the 2^32 masters (TESTORE-SPLIT-1/2), the E4M3 encoding of every binary32 value
 * and the decoding of every byte (TESTORE-FP8-1), and
 * oc_ref_te_storage in both directions, every configuration and every error path
 * on tensors of one to three elements holding any binary32 value, any stored bit pattern and
 * any scale (one call per master mode, each with the buffers that mode needs; a last call
 * per missing or out-of-range argument). oc_narrow and oc_widen are taken by their contracts
 * in optcert/formats.h (what they read and return), not analysed again (ref/formats.c is not
 * an input of this part: proofs/eva_formats.c shows them free of alarms on every input, binade
 * by binade, which the arbitrary values here cannot be split into).
 *
 * One run, with -warn-special-float none: the storage produces infinities and NaNs by design
 * (TESTORE-TINY-1, NaN moments), so the alarms checked are the integer and memory ones (no
 * shift out of range, no signed overflow, no invalid access, no uninitialized read) and the
 * user assertion `exponent` of oc_fp8_e4m3_encode. The contracts of the split and the
 * reconstruction and the four assertions of oc_te_roundtrip relate a value to itself, which
 * Eva's intervals cannot; they stay unknown here and WP proves them (part split_wp). */
#include <stddef.h>
#include "__fc_builtin.h"
#include "optcert/formats.h"
#include "optcert/te_storage.h"

typedef union {
    float f;
    uint32_t u;
} bits32;

static volatile uint32_t sink; /* volatile: the results do not keep Eva's states apart */

static float any_float(void)
{
    bits32 b;
    b.u = Frama_C_unsigned_int_interval(0, 0xffffffffu);
    return b.f;
}

#define N 3

int main(void)
{
    const uint32_t u = Frama_C_unsigned_int_interval(0, 0xffffffffu);
    sink += oc_te_split_param(u) + oc_te_join((uint16_t)Frama_C_interval(0, 65535),
                                              (uint16_t)Frama_C_interval(0, 65535));
    sink += oc_te_roundtrip(Frama_C_unsigned_int_interval(0, 0xffffffffu));
    sink += oc_fp8_e4m3_encode(any_float());
    sink += oc_fp8_e4m3_decode((uint8_t)Frama_C_interval(0, 255)) != 0.0f;

    static uint16_t param[N], rem[N];
    static float master[N], w0[N], w1[N], w2[N];
    static float mom_f[2][N]; /* the widest element: every format fits */
    for (int i = 0; i < N; i++) {
        param[i] = (uint16_t)Frama_C_interval(0, 65535);
        rem[i] = (uint16_t)Frama_C_interval(0, 65535);
        master[i] = any_float();
        w0[i] = any_float();
        w1[i] = any_float();
        w2[i] = any_float();
        mom_f[0][i] = any_float();
        mom_f[1][i] = any_float();
    }
    float *work[3] = {w0, w1, w2};
    int st = 0;
    /* One call per master mode (each with the buffers it needs), any direction, format, length
     * and scale. */
    /*@ loop unroll 3; */
    for (int mode = 0; mode < OC_TE_MASTER_COUNT; mode++) {
        oc_te_config c;
        c.master = (oc_te_master)mode;
        c.moment[0] = (oc_te_moment)Frama_C_interval(0, OC_TE_MOM_COUNT - 1);
        c.moment[1] = (oc_te_moment)Frama_C_interval(0, OC_TE_MOM_COUNT - 1);
        oc_te_state s;
        s.param = param;
        s.remainder = mode == OC_TE_MASTER_REMAINDER ? rem : NULL;
        s.master = mode == OC_TE_MASTER_F32 ? master : NULL;
        s.moment[0] = mom_f[0];
        s.moment[1] = mom_f[1];
        s.scale[0] = any_float();
        s.scale[1] = any_float();
        st += (int)oc_ref_te_storage(&c, (oc_te_direction)Frama_C_interval(0, 1),
                                     (size_t)Frama_C_interval(1, N), &s, work);
    }
    /* The error paths (TESTORE-ERR-1), one missing or out-of-range argument per call. */
    static const struct {
        int master, m0, m1, dir, n, param, moment, rem, mast;
        float scale;
    } bad[] = {
        {OC_TE_MASTER_REMAINDER, 0, 0, 0, 1, 1, 1, 0, 1, 1.0f}, /* no remainder */
        {OC_TE_MASTER_F32, 0, 0, 1, 1, 1, 1, 1, 0, 1.0f},       /* no master */
        {OC_TE_MASTER_COUNT, 0, 0, 0, 1, 1, 1, 1, 1, 1.0f},     /* master mode */
        {OC_TE_MASTER_OFF, OC_TE_MOM_COUNT, 0, 0, 1, 1, 1, 1, 1, 1.0f},
        {OC_TE_MASTER_OFF, 0, 0, OC_TE_DIRECTION_COUNT, 1, 1, 1, 1, 1, 1.0f},
        {OC_TE_MASTER_OFF, 0, 0, 0, 0, 1, 1, 1, 1, 1.0f},       /* n = 0 */
        {OC_TE_MASTER_OFF, OC_TE_MOM_F16, 0, 1, 1, 1, 1, 1, 1, -1.0f}, /* negative scale */
        {OC_TE_MASTER_OFF, 0, 0, 0, 1, 0, 1, 1, 1, 1.0f},       /* no parameter */
        {OC_TE_MASTER_OFF, 0, 0, 0, 1, 1, 0, 1, 1, 1.0f},       /* no moment */
    };
    /*@ loop unroll 9; */
    for (int k = 0; k < 9; k++) {
        oc_te_config c;
        c.master = (oc_te_master)bad[k].master;
        c.moment[0] = (oc_te_moment)bad[k].m0;
        c.moment[1] = (oc_te_moment)bad[k].m1;
        oc_te_state s;
        s.param = bad[k].param ? param : NULL;
        s.remainder = bad[k].rem ? rem : NULL;
        s.master = bad[k].mast ? master : NULL;
        s.moment[0] = bad[k].moment ? mom_f[0] : NULL;
        s.moment[1] = mom_f[1];
        s.scale[0] = bad[k].scale;
        s.scale[1] = 1.0f;
        st += (int)oc_ref_te_storage(&c, (oc_te_direction)bad[k].dir, (size_t)bad[k].n, &s, work);
    }
    oc_te_state s0 = {param, rem, master, {mom_f[0], mom_f[1]}, {1.0f, 1.0f}};
    oc_status st0 = oc_ref_te_storage(NULL, OC_TE_LOAD, 1, &s0, work);
    return st + (int)st0;
}
