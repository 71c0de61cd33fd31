/* The precision-aware optimizer's storage (spec/te_storage.md): TransformerEngine FusedAdam's
 * bf16 parameter plus int16 remainder in place of an fp32 master, and moments stored in fp32,
 * bf16, or fp16/FP8 E4M3 with a per-tensor scale. The Adam arithmetic between a load and a
 * store is the Adam family's; these functions are what surrounds it. */
#ifndef OPTCERT_TE_STORAGE_H
#define OPTCERT_TE_STORAGE_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"

/* How the fp32 master is held (TESTORE-MASTER-1). */
typedef enum oc_te_master {
    OC_TE_MASTER_OFF = 0,    /* master_weights=False: the bf16 parameter is stepped itself */
    OC_TE_MASTER_F32,        /* an fp32 master; the parameter is its RNE bf16 image */
    OC_TE_MASTER_REMAINDER,  /* store_param_remainders: bf16 parameter + 16-bit remainder */
    OC_TE_MASTER_COUNT
} oc_te_master;

/* Formats of exp_avg and exp_avg_sq (TESTORE-MOM-1, TESTORE-SCALE-1). */
typedef enum oc_te_moment {
    OC_TE_MOM_F32 = 0, /* float */
    OC_TE_MOM_BF16,    /* uint16_t bf16 bits, unscaled */
    OC_TE_MOM_F16,     /* uint16_t binary16 bits, scaled (R = 32752) */
    OC_TE_MOM_FP8,     /* uint8_t E4M3 bits, scaled (R = 448) */
    OC_TE_MOM_COUNT
} oc_te_moment;

typedef struct oc_te_config {
    oc_te_master master;
    oc_te_moment moment[2]; /* exp_avg, exp_avg_sq */
} oc_te_config;

/* store: after the kernel (fp32 values -> stored state); load: before it (stored -> fp32). */
typedef enum oc_te_direction { OC_TE_STORE = 0, OC_TE_LOAD, OC_TE_DIRECTION_COUNT } oc_te_direction;

/* The stored state of one parameter tensor of n elements. */
typedef struct oc_te_state {
    uint16_t *param;     /* bf16 bits [n] */
    uint16_t *remainder; /* [n]: TE's int16 as bits; OC_TE_MASTER_REMAINDER only, else NULL */
    float *master;       /* [n]: OC_TE_MASTER_F32 only, else NULL */
    void *moment[2];     /* [n] each: float, uint16_t or uint8_t by format */
    float scale[2];      /* per-tensor scales s; unchanged for unscaled formats */
} oc_te_state;

/* TESTORE-SPLIT-1: the bf16 parameter of the master whose bits are u (its remainder is the
 * low half, u % 65536). */
/*@ assigns \nothing;
    ensures \result == (u / 65536 + (u % 65536 >= 32768 ? 1 : 0)) % 65536;
*/
uint16_t oc_te_split_param(uint32_t u);

/* TESTORE-SPLIT-2: the master's bits from the parameter and the remainder. */
/*@ assigns \nothing;
    ensures \result == ((param + 65536 - (rem >= 32768 ? 1 : 0)) % 65536) * 65536 + rem;
*/
uint32_t oc_te_join(uint16_t param, uint16_t rem);

/* TESTORE-SPLIT-2: join(split(u)) for the proof that it is u (every one of the 2^32 u). */
/*@ assigns \nothing;
    ensures \result == u;
*/
uint32_t oc_te_roundtrip(uint32_t u);

/* TESTORE-FP8-1: E4M3 bits of y, rounded to nearest even, saturating; and the exact value of
 * E4M3 bits b. */
uint8_t oc_fp8_e4m3_encode(float y);
float oc_fp8_e4m3_decode(uint8_t b);

/* TESTORE-SCALE-1: max(-min, max) over x[0 .. n-1] (n >= 1), NaN if an entry is NaN. */
float oc_te_absmax(size_t n, const float *x);

/* TESTORE-MOM-1, TESTORE-Q16-1, TESTORE-FP8-1: x written as stored moment i of format f at the
 * scale s. (The harness's mutant variants, conformance/mutants/te_storage.c, recombine these
 * pieces.) */
void oc_te_moment_write(oc_te_moment f, void *buf, size_t i, float x, float s);

/* TESTORE-ERR-1: the status a call with these arguments must return before writing anything:
 * OC_OK, OC_ERR_NULL_POINTER or OC_ERR_BAD_HPARAM. */
oc_status oc_te_storage_check(const oc_te_config *c, oc_te_direction dir, size_t n,
                              const oc_te_state *s, float *const *work);

/* One direction of TE's storage for one tensor of n elements under configuration c:
 *   store: work[0] master, work[1] exp_avg, work[2] exp_avg_sq (fp32 [n], read) are written
 *          into s (parameter, remainder or master, both moments, their new scales: the
 *          incoming scales are read first, TESTORE-SCALE-2);
 *   load:  s is read and work[0..2] written.
 * Errors (TESTORE-ERR-1): nothing written. */
oc_status oc_ref_te_storage(const oc_te_config *c, oc_te_direction dir, size_t n,
                            oc_te_state *s, float *const *work);

#endif
