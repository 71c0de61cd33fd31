/* TE FusedAdam's storage on the fast CPU backend (spec/fast.md FAST-TESTORE-1,
 * spec/te_storage.md): whole-tensor passes, branch-free per element so that they vectorize,
 * OpenMP across the tensor; the absmax a reduction. Every value is the rules' exact one
 * (TESTORE-TOL-1): integer bit operations, single binary32 operations, and the kernels'
 * nearest-even conversions (FAST-MODEL-1). */
#include <math.h>
#include "optcert/fast.h"
#include "../common/elementwise.h"
#include "../common/fast_families.h"

static float f32_of(uint32_t u)
{
    union { uint32_t u; float f; } b = {u};
    return b.f;
}

/* TESTORE-SPLIT-1: high half plus the remainder's sign bit, modulo 2^16. */
static uint16_t split_param(uint32_t u) { return (uint16_t)((u >> 16) + ((u >> 15) & 1u)); }

/* TESTORE-SPLIT-2: the round-up undone. */
static uint32_t join(uint16_t param, uint16_t rem)
{
    return (uint32_t)(uint16_t)(param - (rem >> 15)) << 16 | rem;
}

/* TESTORE-FP8-1: E4M3, nearest even, saturating. Normal magnitudes (>= 2^-6) keep 3 fraction
 * bits by the bias-and-shift rounding on the binary32 bits (a carry moves the exponent); below
 * 2^-6 one addition to 2^14, whose ulp is E4M3's quantum 2^-9, rounds in the FPU. */
static uint8_t to_e4m3(float y)
{
    const uint32_t u = oc_fast_f32_bits(y), a = u & 0x7fffffffu;
    const uint32_t normal = ((a + 0x7ffffu + ((a >> 20) & 1u)) >> 20) - 960u; /* (127-7) << 3 */
    const uint32_t sub = oc_fast_f32_bits(f32_of(a) + 0x1p14f) - 0x46800000u;
    uint32_t code = oc_fast_select(a < 0x3c800000u, sub, normal);
    code = oc_fast_select(a > 0x43e80000u, 0x7eu, code); /* above 464, infinity: saturate */
    code = oc_fast_select(a > 0x7f800000u, 0x7fu, code); /* NaN */
    return (uint8_t)((u >> 24 & 0x80u) | code);
}

/* TESTORE-FMT-1: E4M3 bits to binary32, exactly. */
static float from_e4m3(uint8_t b)
{
    const uint32_t mag = b & 0x7fu, sign = (uint32_t)(b & 0x80u) << 24;
    const float sub = (float)mag * 0x1p-9f;
    const uint32_t normal = ((mag >> 3) + 120u) << 23 | (mag & 7u) << 20;
    const uint32_t bits = oc_fast_select(mag == 0x7fu, 0x7fc00000u,
                                         oc_fast_select(mag < 8u, oc_fast_f32_bits(sub), normal));
    return f32_of(sign | bits);
}

/* MP-CONV-2: binary16 bits to binary32, exactly. */
static float from_f16(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    const float sub = (float)m * 0x1p-24f;
    const uint32_t normal = (e + 112u) << 23 | m << 13;
    const uint32_t bits = oc_fast_select(e == 0x1fu, 0x7f800000u | m << 13,
                                         oc_fast_select(e == 0, oc_fast_f32_bits(sub), normal));
    return f32_of(sign | bits);
}

/* TESTORE-SCALE-1: max |x|, NaN if an entry is (the absmax max(-min, max)). */
static float absmax(size_t n, const float *x)
{
    float m = 0.0f;
    int nan = 0;
#pragma omp parallel for reduction(max : m) reduction(| : nan) if (n > OC_FAST_CHUNK)
    for (size_t i = 0; i < n; i++) {
        const float a = fabsf(x[i]);
        m = a > m ? a : m;
        nan |= a != a;
    }
    return nan ? NAN : m;
}

static void load_moment(oc_te_moment f, const void *buf, float s, size_t n, float *out)
{
    const float scale_inv = 1.0f / (1.0f / s); /* FP8: the quantizer's scale_inv */
#pragma omp parallel for if (n > OC_FAST_CHUNK)
    for (size_t i = 0; i < n; i++) {
        switch (f) {
        case OC_TE_MOM_F32: out[i] = ((const float *)buf)[i]; break;
        case OC_TE_MOM_BF16: out[i] = f32_of((uint32_t)((const uint16_t *)buf)[i] << 16); break;
        case OC_TE_MOM_F16: out[i] = from_f16(((const uint16_t *)buf)[i]) * s; break;
        default: out[i] = from_e4m3(((const uint8_t *)buf)[i]) * scale_inv;
        }
    }
}

static void store_moment(oc_te_moment f, const float *x, size_t n, void *buf, float *s)
{
    float r = 0.0f;
    if (f == OC_TE_MOM_F16 || f == OC_TE_MOM_FP8) { /* TESTORE-SCALE-2: the new absmax */
        *s = absmax(n, x) / (f == OC_TE_MOM_F16 ? 32752.0f : 448.0f);
        r = f == OC_TE_MOM_FP8 ? 1.0f / *s : *s > 0.0f ? 1.0f / *s : 0.0f;
    }
#pragma omp parallel for if (n > OC_FAST_CHUNK)
    for (size_t i = 0; i < n; i++) {
        switch (f) {
        case OC_TE_MOM_F32: ((float *)buf)[i] = x[i]; break;
        case OC_TE_MOM_BF16: ((uint16_t *)buf)[i] = oc_fast_to_bf16(x[i]); break;
        case OC_TE_MOM_F16: ((uint16_t *)buf)[i] = oc_fast_to_fp16(x[i] * r); break;
        default: ((uint8_t *)buf)[i] = to_e4m3(x[i] * r);
        }
    }
}

oc_status oc_fast_te_storage(const oc_te_config *c, oc_te_direction dir, size_t n,
                             oc_te_state *s, float *const *work)
{
    const oc_status st = oc_te_storage_check(c, dir, n, s, work); /* TESTORE-ERR-1 */
    if (st != OC_OK)
        return st;
    float *master = work[0];
    if (dir == OC_TE_LOAD) {
#pragma omp parallel for if (n > OC_FAST_CHUNK)
        for (size_t i = 0; i < n; i++)
            master[i] = c->master == OC_TE_MASTER_F32 ? s->master[i]
                        : c->master == OC_TE_MASTER_OFF
                            ? f32_of((uint32_t)s->param[i] << 16)
                            : f32_of(join(s->param[i], s->remainder[i]));
        for (int k = 0; k < 2; k++)
            load_moment(c->moment[k], s->moment[k], s->scale[k], n, work[1 + k]);
        return OC_OK;
    }
#pragma omp parallel for if (n > OC_FAST_CHUNK)
    for (size_t i = 0; i < n; i++) {
        const uint32_t u = oc_fast_f32_bits(master[i]);
        if (c->master == OC_TE_MASTER_REMAINDER) {
            s->param[i] = split_param(u);
            s->remainder[i] = (uint16_t)u;
        } else {
            s->param[i] = oc_fast_to_bf16(master[i]);
            if (c->master == OC_TE_MASTER_F32)
                s->master[i] = master[i];
        }
    }
    for (int k = 0; k < 2; k++)
        store_moment(c->moment[k], work[1 + k], n, s->moment[k], &s->scale[k]);
    return OC_OK;
}

/* Plugin ABI v3 (VEC-ABI-1): te-storage-fusedadam's entry point. */
static oc_status te_storage_entry(void *ctx, const oc_te_config *c, oc_te_direction dir, size_t n,
                                  oc_te_state *s, float *const *work)
{
    (void)ctx;
    return oc_fast_te_storage(c, dir, n, s, work);
}

const oc_fast_algorithm oc_fast_cpu_te_storage = {
    .algorithm = "te-storage",
    .entry = (oc_entry_point)te_storage_entry,
};
