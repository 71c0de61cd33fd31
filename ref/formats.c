/* Storage formats and their conversions (spec/mixed.md MP-FMT-1, MP-CONV-1, MP-CONV-2). One
 * bit-level narrowing serves both 16-bit formats: they differ only in exponent width. */
#include <string.h>
#include "optcert/formats.h"

static const char *const format_names[OC_FMT_COUNT] = {"f32", "bf16", "f16"};

/* The contracts of the functions formats.h declares are there; these two stay here: the first
 * names the static table, the second needs valid_read_string (<string.h>, which formats.h
 * does not include). */
/*@ assigns \result \from f, format_names[0 .. OC_FMT_COUNT - 1]; */
const char *oc_format_name(oc_format f)
{
    return (unsigned)f < OC_FMT_COUNT ? format_names[f] : NULL;
}

/*@ requires name == \null || valid_read_string(name);
    requires \valid(out);
    assigns *out;
    ensures \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    ensures \result == OC_OK ==> 0 <= *out < OC_FMT_COUNT;
    ensures \result != OC_OK ==> *out == \old(*out);
*/
oc_status oc_format_parse(const char *name, oc_format *out)
{
    /* The names are valid strings: literals of 3, 4 and 3 characters (-wp-literals). */
    //@ assert name_0_len: \valid_read(format_names[0] + (0 .. 3)) && format_names[0][3] == '\0';
    //@ assert name_0_str: valid_read_string(format_names[0]);
    //@ assert name_1_len: \valid_read(format_names[1] + (0 .. 4)) && format_names[1][4] == '\0';
    //@ assert name_1_str: valid_read_string(format_names[1]);
    //@ assert name_2_len: \valid_read(format_names[2] + (0 .. 3)) && format_names[2][3] == '\0';
    //@ assert name_2_str: valid_read_string(format_names[2]);
    /*@ loop invariant 0 <= f <= OC_FMT_COUNT;
        loop assigns f;
        loop variant OC_FMT_COUNT - f;
    */
    for (int f = 0; f < OC_FMT_COUNT; f++)
        if (name && strcmp(name, format_names[f]) == 0) {
            *out = (oc_format)f;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/* A 16-bit format: exponent bits and stored significand bits (MP-FMT-1). */
typedef struct layout16 {
    int ebits, mbits;
} layout16;

/*@ assigns \nothing;
    ensures f == OC_FMT_BF16 ==> \result.ebits == 8 && \result.mbits == 7;
    ensures f != OC_FMT_BF16 ==> \result.ebits == 5 && \result.mbits == 10;
*/
static layout16 layout_of(oc_format f)
{
    return f == OC_FMT_BF16 ? (layout16){8, 7} : (layout16){5, 10};
}

/* The binary32 encoding of x and back, through a union (C11 6.5.2.3 footnote 95: the bytes
 * are reinterpreted). Not memcpy: WP's memory model cannot cast a float or uint32_t pointer
 * to the char pointer of memcpy's contract (proofs/STATUS.md). */
typedef union f32_bits {
    float f;
    uint32_t u;
} f32_bits;

/*@ assigns \nothing; */
static uint32_t bits_of(float x)
{
    const f32_bits b = {.f = x};
    return b.u;
}

/*@ assigns \nothing; */
static float float_of(uint32_t u)
{
    const f32_bits b = {.u = u};
    return b.f;
}

/* |x| = sig * 2^(e2) with sig < 2^24 exactly; the target's quantum there is
 * 2^(et - mbits) with et = max(floor(log2 |x|), emin). The encoding is monotone in the
 * magnitude, so ((et + bias - 1) << mbits) + q encodes q quanta, carries included. */
/*@ requires 0 <= round_to_nearest <= 1;
    assigns \nothing;
    ensures !is_16bit(f) ==> \result == 0;
*/
static uint16_t narrow(oc_format f, float x, int round_to_nearest)
{
    if (f != OC_FMT_BF16 && f != OC_FMT_F16)
        return 0;
    const layout16 l = layout_of(f);
    const int bias = (1 << (l.ebits - 1)) - 1, emin = 1 - bias;
    /*@ assert layout: (l.ebits == 8 && l.mbits == 7 && bias == 127) ||
                       (l.ebits == 5 && l.mbits == 10 && bias == 15); */
    const uint32_t u = bits_of(x), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    const uint32_t inf = (uint32_t)((1 << l.ebits) - 1) << l.mbits;
    if (a > 0x7f800000u) /* NaN: quiet, top payload bits kept */
        return (uint16_t)(sign | inf | (1u << (l.mbits - 1)) | ((a & 0x7fffffu) >> (23 - l.mbits)));
    if (a == 0x7f800000u)
        return (uint16_t)(sign | inf);
    /* For WP: the bounds that the shifts and the exponent arithmetic below need. */
    //@ assert finite_bits: a < 0x7f800000;
    const int e32 = (int)(a / 0x800000u); /* the biased exponent, a >> 23 (for WP: a division) */
    //@ assert exponent: 0 <= e32 <= 254;
    const uint32_t sig = e32 ? (a & 0x7fffffu) | 0x800000u : a;
    const int e2 = (e32 ? e32 : 1) - 150, flog = e32 - 127;
    const int et = flog > emin ? flog : emin;
    const int shift = et - l.mbits - e2; /* >= 23 - mbits > 0 */
    uint32_t q = 0;
    if (shift < 26) { /* else |x| < quantum / 2: q = 0 in both modes */
        q = sig >> shift;
        const uint32_t rem = sig & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (round_to_nearest && (rem > half || (rem == half && (q & 1u))))
            q++;
    }
    uint32_t mag = q == 0 ? 0 : ((uint32_t)(et + bias - 1) << l.mbits) + q;
    if (mag >= inf) /* overflow: infinity when rounding, the largest finite when truncating */
        mag = round_to_nearest ? inf : inf - 1;
    return (uint16_t)(sign | mag);
}

uint16_t oc_narrow(oc_format f, float x) { return narrow(f, x, 1); }

uint16_t oc_narrow_toward_zero(oc_format f, float x) { return narrow(f, x, 0); }

float oc_widen(oc_format f, uint16_t h)
{
    if (f != OC_FMT_BF16 && f != OC_FMT_F16)
        return 0.0f;
    const layout16 l = layout_of(f);
    const int bias = (1 << (l.ebits - 1)) - 1;
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, mmask = (1u << l.mbits) - 1;
    const uint32_t e = ((uint32_t)h & 0x7fffu) >> l.mbits, frac = h & mmask;
    if (e == (1u << l.ebits) - 1) /* infinity or NaN */
        return float_of(sign | 0x7f800000u | (frac << (23 - l.mbits)));
    float mag;
    if (e == 0) /* subnormal: frac quanta of 2^(1 - bias - mbits), exact in binary32 */
        mag = (float)frac * float_of((uint32_t)(127 - l.mbits) << 23) *
              float_of((uint32_t)(127 + 1 - bias) << 23);
    else /* normal: the exponent rebiased; the fields are disjoint, so + is | */
        mag = float_of(((e + (127u - (uint32_t)bias)) << 23) + (frac << (23 - l.mbits)));
    return sign ? -mag : mag; /* negation flips the sign bit only: exact */
}
