/* Eva driver for ref/formats.c: oc_narrow, oc_narrow_toward_zero and oc_widen on every input
 * value, both 16-bit formats, and the format names.
 *
 * Two runs (proofs/parts/formats.toml), with Eva's octagon domain (the shift amount of the narrowing is a
 * difference of two values computed from the same exponent, which intervals alone lose):
 *   finite       (-warn-special-float non-finite) every finite binary32 value, narrowed in
 *                both modes to both formats, and every finite 16-bit pattern of both formats,
 *                widened. "0 alarms": no shift out of range, no signed overflow, no invalid
 *                access, and no NaN or infinity read or produced, so every finite 16-bit value
 *                widens to a finite binary32 value (MP-CONV-2).
 *   non-finite   (-DOC_EVA_NONFINITE -warn-special-float none) every binary32 infinity and NaN
 *                pattern, narrowed, and every 16-bit infinity and NaN pattern, widened. These
 *                produce infinities and NaNs by design (MP-CONV-1), so only the integer and
 *                memory alarms are checked here.
 * Together the runs cover all 2^32 binary32 and all 2 x 2^16 16-bit patterns. Eva keeps the
 * binary32 <-> uint32 reinterpretation exact for an interval of one sign, so the inputs are
 * enumerated by sign and exponent (unrolled loops), each with every significand.
 */
#include <stddef.h>
#include "__fc_builtin.h"
#include "optcert/formats.h"

typedef union {
    float f;
    uint32_t u;
} bits32;

/* Every binary32 with this sign bit and biased exponent e (e = 0: the zero and subnormals). */
static float binade(uint32_t sign, uint32_t e)
{
    bits32 b;
    b.u = sign + (e << 23) + Frama_C_unsigned_int_interval(0, 0x7fffff);
    return b.f;
}

static volatile uint32_t sink; /* volatile: the results do not keep Eva's states apart */

static void narrow_binade(uint32_t sign, uint32_t e)
{
    float x = binade(sign, e);
    for (int f = OC_FMT_BF16; f <= OC_FMT_F16; f++)
        sink += oc_narrow((oc_format)f, x) + oc_narrow_toward_zero((oc_format)f, x);
}

/* Every 16-bit pattern of format f with this sign bit and biased exponent e. */
static void widen_exponent(oc_format f, uint16_t sign, uint16_t e)
{
    const int mbits = f == OC_FMT_BF16 ? 7 : 10;
    uint16_t h = (uint16_t)(sign + (e << mbits) + Frama_C_interval(0, (1 << mbits) - 1));
    float x = oc_widen(f, h);
    sink += x != 0.0f;
}

/* Every binary32 value of one sign (finite run) or its infinity and NaNs (non-finite run). */
static void narrow_sign(uint32_t sign)
{
#ifndef OC_EVA_NONFINITE
    /*@ loop unroll 255; */
    for (uint32_t e = 0; e < 255; e++)
        narrow_binade(sign, e);
#else
    narrow_binade(sign, 255);
#endif
}

/* Every finite (finite run) or non-finite 16-bit pattern of format f and one sign. */
static void widen_sign(oc_format f, uint16_t sign)
{
    const uint16_t emax = f == OC_FMT_BF16 ? 255 : 31;
#ifndef OC_EVA_NONFINITE
    /*@ loop unroll 255; */
    for (uint16_t e = 0; e < emax; e++)
        widen_exponent(f, sign, e);
#else
    widen_exponent(f, sign, emax);
#endif
}

int main(void)
{
    narrow_sign(0);
    narrow_sign(0x80000000u);
    widen_sign(OC_FMT_BF16, 0);
    widen_sign(OC_FMT_BF16, 0x8000);
    widen_sign(OC_FMT_F16, 0);
    widen_sign(OC_FMT_F16, 0x8000);
    /* Formats that are not 16-bit give 0; the names in and out of range; the parser. */
    oc_format other = Frama_C_nondet(0, 1) ? OC_FMT_F32 : OC_FMT_COUNT;
    sink += oc_narrow(other, 1.0f) + oc_narrow_toward_zero(other, 1.0f) +
            (oc_widen(other, 0x3f80) != 0.0f);
    oc_format parsed = OC_FMT_F32;
    const char *name = oc_format_name((oc_format)Frama_C_interval(0, OC_FMT_COUNT));
    oc_status st = oc_format_parse(Frama_C_nondet(0, 1) ? "bf16" : "f64", &parsed);
    oc_status st2 = oc_format_parse(NULL, &parsed);
    return (int)st + (int)st2 + (int)parsed + (name != 0);
}
