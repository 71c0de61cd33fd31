/* Storage formats of mixed-precision training (spec/mixed.md): binary32, bfloat16, binary16,
 * and the exact conversions between them. 16-bit values travel as their bit patterns. */
#ifndef OPTCERT_FORMATS_H
#define OPTCERT_FORMATS_H

#include <stdint.h>
#include "optcert/status.h"

typedef enum oc_format {
    OC_FMT_F32 = 0, /* IEEE 754 binary32                                  MP-FMT-1 */
    OC_FMT_BF16,    /* bfloat16: binary32's exponent, 8-bit significand    MP-FMT-1 */
    OC_FMT_F16,     /* IEEE 754 binary16                                  MP-FMT-1 */
    OC_FMT_COUNT
} oc_format;

/* Where each value of an element-wise step is stored (MP-STORE-1..3). The fp32 master copy
 * exists iff param is a 16-bit format. */
typedef struct oc_storage {
    oc_format param; /* model parameter written back from the master */
    oc_format state; /* optimizer state tensors (m, v, buf, ...) */
} oc_storage;

/*@ predicate is_16bit(oc_format f) = f == OC_FMT_BF16 || f == OC_FMT_F16; */

/* "f32", "bf16", "f16"; NULL if out of range. */
const char *oc_format_name(oc_format f);
/* OC_ERR_BAD_PROFILE if name is not a format name. */
oc_status oc_format_parse(const char *name, oc_format *out);

/* Round-to-nearest-even narrowing of a binary32 value to a 16-bit format (MP-CONV-1):
 * overflow to infinity (binary16), subnormal results, NaN stays a quiet NaN with its sign.
 * f must be OC_FMT_BF16 or OC_FMT_F16 (anything else gives 0). */
/*@ assigns \result \from f, x;
    ensures not_16bit: !is_16bit(f) ==> \result == 0;
*/
uint16_t oc_narrow(oc_format f, float x);
/* The same narrowing by truncation toward zero: the catalogued mistake MP-CONV-1 names
 * (mutant truncating-write-back). */
/*@ assigns \result \from f, x;
    ensures not_16bit: !is_16bit(f) ==> \result == 0;
*/
uint16_t oc_narrow_toward_zero(oc_format f, float x);
/* Exact widening of a 16-bit value to binary32 (MP-CONV-2). */
/*@ assigns \result \from f, h;
    ensures not_16bit: !is_16bit(f) ==> \result == 0.0;
*/
float oc_widen(oc_format f, uint16_t h);

#endif
