/* TransformerEngine FusedAdam's storage around the Adam kernel (spec/te_storage.md): the
 * master split into a bf16 parameter and a remainder, moments in fp32, bf16, or fp16 / FP8 E4M3
 * with a per-tensor scale. Every value is an exact function of its binary32 inputs
 * (TESTORE-TOL-1). */
#include <math.h>
#include "optcert/formats.h"
#include "optcert/te_storage.h"

/* TESTORE-SPLIT-1: the high half, plus one when the remainder is negative as an int16 (bit 15
 * set), modulo 2^16 (a NaN with high half 0xFFFF wraps to 0). Division and remainder by 2^16
 * rather than shifts: WP reasons on them as integers. */
uint16_t oc_te_split_param(uint32_t u)
{
    const uint32_t hi = u / 65536u, lo = u % 65536u;
    return (uint16_t)((hi + (lo >= 32768u ? 1u : 0u)) % 65536u);
}

/* TESTORE-SPLIT-2: the round-up undone (modulo 2^16), the remainder as the low half. */
uint32_t oc_te_join(uint16_t param, uint16_t rem)
{
    const uint32_t hi = ((uint32_t)param + 65536u - (rem >= 32768u ? 1u : 0u)) % 65536u;
    return hi * 65536u + rem;
}

/* TESTORE-SPLIT-2: the reconstruction inverts the split. */
uint32_t oc_te_roundtrip(uint32_t u)
{
    const uint16_t p = oc_te_split_param(u), r = (uint16_t)(u % 65536u);
    //@ assert halves: u == (u / 65536) * 65536 + u % 65536 && u / 65536 <= 65535;
    //@ assert low: r == u % 65536;
    //@ assert up: u % 65536 >= 32768 ==> p == (u / 65536 == 65535 ? 0 : u / 65536 + 1);
    //@ assert keep: u % 65536 < 32768 ==> p == u / 65536;
    return oc_te_join(p, r);
}

/* The binary32 encoding of x and back (the bytes reinterpreted, C11 6.5.2.3 footnote 95). */
typedef union f32u {
    float f;
    uint32_t u;
} f32u;
static uint32_t bits_of(float x) { return (f32u){.f = x}.u; }
static float float_of(uint32_t u) { return (f32u){.u = u}.f; }

/* TESTORE-FP8-1 (cuda_fp8.hpp __nv_cvt_double_to_fp8 with __NV_SATFINITE): above 464 (448 plus
 * half an ulp) saturates to 0x7E; NaN is 0x7F; below 2^-6 the
 * subnormal quantum 2^-9 applies; the sign is ORed in last. A magnitude keeps its top 4
 * significant bits (1 + 3 stored): the kept code counts quanta of the binade, and the encoding
 * is monotone, so a round-up carries into the exponent field by itself. */
/*@ assigns \nothing; */
uint8_t oc_fp8_e4m3_encode(float y)
{
    const uint32_t u = bits_of(y), a = u & 0x7fffffffu;
    const uint8_t sign = (uint8_t)((u / 0x80000000u) * 0x80u);
    if (a > 0x7f800000u)
        return (uint8_t)(sign | 0x7fu);
    if (a > 0x43e80000u) /* |y| > 464, infinity included */
        return (uint8_t)(sign | 0x7eu);
    if (a <= 0x3a800000u) /* |y| <= 2^-10: zero (2^-10 is the tie with 2^-9, to even) */
        return sign;
    const uint32_t e = a / 0x800000u; /* biased binary32 exponent, 117 .. 135 here */
    /*@ assert exponent: 117 <= e <= 135; */
    /* Quanta of the E4M3 grid: binade e keeps 4 bits (normal, e >= 121: 2^-6 and above); below
     * the grid is the subnormal one, 2^-9, which keeps e - 117 bits. */
    const uint32_t sig = (a % 0x800000u) + 0x800000u;
    const uint32_t drop = e >= 121u ? 20u : 20u + (121u - e); /* 20 .. 24 */
    const uint32_t q = sig >> drop, rem = sig & ((1u << drop) - 1u), half = 1u << (drop - 1u);
    const uint32_t up = rem > half || (rem == half && (q & 1u)) ? 1u : 0u;
    /* Normal: code = (e - 120) * 8 + (q - 8) = (e - 121) * 8 + q; subnormal: code = q. */
    /* At most 0x7E: |y| <= 464 rounds to at most 448 (464 itself is a tie, to even 448). */
    const uint32_t code = (e >= 121u ? (e - 121u) * 8u : 0u) + q + up;
    return (uint8_t)(sign | code);
}

/* TESTORE-FMT-1: E4M3 decoded exactly (every value is a binary32 one). */
/*@ assigns \nothing; */
float oc_fp8_e4m3_decode(uint8_t b)
{
    const uint32_t mag = b & 0x7fu, e = mag / 8u, m = mag % 8u;
    float x;
    if (mag == 0x7fu)
        x = float_of(0x7fc00000u);
    else if (e == 0)
        x = (float)m * float_of((127u - 9u) << 23); /* m quanta of 2^-9 */
    else
        x = (float)(8u + m) * float_of((127u + e - 10u) << 23); /* (8 + m) 2^(e - 10) */
    return b & 0x80u ? -x : x;
}

/* TESTORE-SCALE-1: R of a scaled format (fp16: finfo.max / 2). */
/*@ assigns \nothing; */
static float range_of(oc_te_moment f) { return f == OC_TE_MOM_FP8 ? 448.0f : 32752.0f; }

/* TESTORE-SCALE-1: max(-min, max) over x[0 .. n-1], NaN if an entry is NaN (aminmax). */
/*@ requires n >= 1 && \valid_read(x + (0 .. n - 1));
    assigns \nothing;
*/
float oc_te_absmax(size_t n, const float *x)
{
    float lo = x[0], hi = x[0];
    /*@ loop invariant 1 <= i <= n;
        loop assigns i, lo, hi;
        loop variant n - i;
    */
    for (size_t i = 1; i < n; i++) {
        if (isnan(x[i]) || isnan(lo))
            lo = hi = x[i] + lo; /* NaN, kept to the end */
        else {
            lo = x[i] < lo ? x[i] : lo;
            hi = x[i] > hi ? x[i] : hi;
        }
    }
    return -lo > hi ? -lo : hi; /* a NaN lo gives a NaN hi */
}

/* Reads stored moment i of format f at scale s into binary32 (TESTORE-MOM-1, TESTORE-Q16-1,
 * TESTORE-FP8-1). */
/*@ assigns \nothing; */
static float moment_read(oc_te_moment f, const void *buf, size_t i, float s)
{
    switch (f) {
    case OC_TE_MOM_F32:
        return ((const float *)buf)[i];
    case OC_TE_MOM_BF16:
        return oc_widen(OC_FMT_BF16, ((const uint16_t *)buf)[i]);
    case OC_TE_MOM_F16:
        return oc_widen(OC_FMT_F16, ((const uint16_t *)buf)[i]) * s;
    default: {
        const float q = 1.0f / s, scale_inv = 1.0f / q;
        return oc_fp8_e4m3_decode(((const uint8_t *)buf)[i]) * scale_inv;
    }
    }
}

/* Writes x as stored moment i of format f at the new scale s (TESTORE-MOM-1, TESTORE-Q16-1,
 * TESTORE-FP8-1). */
void oc_te_moment_write(oc_te_moment f, void *buf, size_t i, float x, float s)
{
    switch (f) {
    case OC_TE_MOM_F32:
        ((float *)buf)[i] = x;
        break;
    case OC_TE_MOM_BF16:
        ((uint16_t *)buf)[i] = oc_narrow(OC_FMT_BF16, x);
        break;
    case OC_TE_MOM_F16: { /* 1/s is infinite for s <= 2^-128 (TESTORE-TINY-1) */
        const float r = s > 0.0f ? 1.0f / s : 0.0f; /* where(scale > 0, reciprocal, 0) */
        ((uint16_t *)buf)[i] = oc_narrow(OC_FMT_F16, x * r);
        break;
    }
    default:
        ((uint8_t *)buf)[i] = oc_fp8_e4m3_encode(x * (1.0f / s));
    }
}

/* TESTORE-ERR-1: what a call needs. */
/*@ assigns \nothing; */
oc_status oc_te_storage_check(const oc_te_config *c, oc_te_direction dir, size_t n,
                              const oc_te_state *s, float *const *work)
{
    if (!c || !s || !work || !work[0] || !work[1] || !work[2] || !s->param ||
        !s->moment[0] || !s->moment[1])
        return OC_ERR_NULL_POINTER;
    if (n == 0 || (unsigned)c->master >= OC_TE_MASTER_COUNT || (unsigned)dir >= OC_TE_DIRECTION_COUNT ||
        (unsigned)c->moment[0] >= OC_TE_MOM_COUNT || (unsigned)c->moment[1] >= OC_TE_MOM_COUNT)
        return OC_ERR_BAD_HPARAM;
    if ((c->master == OC_TE_MASTER_REMAINDER && !s->remainder) ||
        (c->master == OC_TE_MASTER_F32 && !s->master))
        return OC_ERR_NULL_POINTER;
    for (int k = 0; k < 2; k++)
        if (c->moment[k] >= OC_TE_MOM_F16 && s->scale[k] < 0.0f)
            return OC_ERR_BAD_HPARAM;
    return OC_OK;
}

/* TESTORE-SPLIT-1 / TESTORE-MASTER-1 (store) of master x into element i. */
static void master_store(const oc_te_config *c, oc_te_state *s, size_t i, float x)
{
    const uint32_t u = bits_of(x);
    if (c->master != OC_TE_MASTER_REMAINDER) {
        s->param[i] = oc_narrow(OC_FMT_BF16, x); /* adam.cu L157, L374 */
        if (c->master == OC_TE_MASTER_F32)
            s->master[i] = x;
        return;
    }
    s->remainder[i] = (uint16_t)(u % 65536u);
    s->param[i] = oc_te_split_param(u);
}

/* TESTORE-SPLIT-2 / TESTORE-MASTER-1 (load) of element i. */
static float master_load(const oc_te_config *c, const oc_te_state *s, size_t i)
{
    switch (c->master) {
    case OC_TE_MASTER_OFF:
        return oc_widen(OC_FMT_BF16, s->param[i]);
    case OC_TE_MASTER_F32:
        return s->master[i];
    default:
        return float_of(oc_te_join(s->param[i], s->remainder[i]));
    }
}

oc_status oc_ref_te_storage(const oc_te_config *c, oc_te_direction dir, size_t n,
                            oc_te_state *s, float *const *work)
{
    oc_status st = oc_te_storage_check(c, dir, n, s, work);
    if (st != OC_OK)
        return st;
    if (dir == OC_TE_LOAD) {
        for (size_t i = 0; i < n; i++) {
            work[0][i] = master_load(c, s, i);
            for (int k = 0; k < 2; k++)
                work[1 + k][i] = moment_read(c->moment[k], s->moment[k], i, s->scale[k]);
        }
        return OC_OK;
    }
    for (size_t i = 0; i < n; i++)
        master_store(c, s, i, work[0][i]);
    for (int k = 0; k < 2; k++) { /* TESTORE-SCALE-2: the new tensor's absmax, then quantize */
        const oc_te_moment f = c->moment[k];
        if (f >= OC_TE_MOM_F16)
            s->scale[k] = oc_te_absmax(n, work[1 + k]) / range_of(f);
        for (size_t i = 0; i < n; i++)
            oc_te_moment_write(f, s->moment[k], i, work[1 + k][i], s->scale[k]);
    }
    return OC_OK;
}
