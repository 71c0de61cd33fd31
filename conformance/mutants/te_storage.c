/* TE-storage mutants (spec/te_storage.md §6): the reference's load or store, then the one
 * stage the mistake concerns done again the mistaken way, from the reference's pieces. */
#include <math.h>
#include "optcert/formats.h"
#include "te_storage.h"

static const char *const names[OC_TE_MUTANT_COUNT] = {
    "correct",           "split-truncate",   "split-ties-even",     "join-no-undo",
    "scale-from-old-absmax", "f16-full-range", "fp8-no-saturation", "fp8-read-with-scale"};

static const char *const descriptions[OC_TE_MUTANT_COUNT] = {
    "TE's storage as spec/te_storage.md states it",
    "the bf16 parameter is the master's high half, not rounded up (TESTORE-SPLIT-1)",
    "the bf16 parameter rounded to nearest even, the remainder the low half (TESTORE-SPLIT-1)",
    "reconstruction without undoing the round-up of a negative remainder (TESTORE-SPLIT-2)",
    "moments quantized with the scale from before the kernel (TESTORE-SCALE-2)",
    "fp16 scale absmax / 65504, without TE's factor 2 of headroom (TESTORE-SCALE-1)",
    "E4M3 conversion without saturation: overflow becomes NaN (TESTORE-FP8-1)",
    "FP8 moments read back with s instead of scale_inv = 1/(1/s) (TESTORE-FP8-1)"};

const char *oc_te_mutant_name(oc_te_mutant mu)
{
    return (unsigned)mu < OC_TE_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_te_mutant_description(oc_te_mutant mu)
{
    return (unsigned)mu < OC_TE_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* The binary32 value of bits u (the bytes reinterpreted, C11 6.5.2.3 footnote 95). */
static float float_of(uint32_t u) { return (union { uint32_t u; float f; }){.u = u}.f; }

/* TESTORE-SPLIT-2 mistaken: the master's bits are the parameter's and the remainder's, the
 * round-up of a negative remainder not undone. */
static void join_no_undo(const oc_te_config *c, size_t n, const oc_te_state *s, float *master)
{
    if (c->master == OC_TE_MASTER_REMAINDER)
        for (size_t i = 0; i < n; i++)
            master[i] = float_of((uint32_t)s->param[i] * 65536u + s->remainder[i]);
}

/* TESTORE-FP8-1 mistaken: FP8 moments read back with s instead of scale_inv. */
static void fp8_read_with_scale(const oc_te_config *c, size_t n, const oc_te_state *s,
                                float *const *work)
{
    for (int k = 0; k < 2; k++)
        if (c->moment[k] == OC_TE_MOM_FP8)
            for (size_t i = 0; i < n; i++)
                work[1 + k][i] = oc_fp8_e4m3_decode(((const uint8_t *)s->moment[k])[i]) *
                                 s->scale[k];
}

/* TESTORE-SPLIT-1 mistaken: the bf16 parameter truncated (the high half of the master, which
 * the reference's split reconstructs) or rounded to nearest even; the remainder is the low
 * half either way. */
static void split(oc_te_mutant mu, const oc_te_config *c, size_t n, oc_te_state *s,
                  const float *master)
{
    if (c->master == OC_TE_MASTER_REMAINDER)
        for (size_t i = 0; i < n; i++)
            s->param[i] = mu == OC_TE_MUT_SPLIT_TRUNCATE
                              ? (uint16_t)(oc_te_join(s->param[i], s->remainder[i]) / 65536u)
                              : oc_narrow(OC_FMT_BF16, master[i]);
}

/* TESTORE-SCALE-2 mistaken: the moments quantized with (and keeping) the scale from before the
 * kernel, old[k]; TESTORE-SCALE-1 mistaken: the fp16 scale absmax / 65504. */
static void requantize(oc_te_mutant mu, const oc_te_config *c, size_t n, oc_te_state *s,
                       float *const *work, const float *old)
{
    for (int k = 0; k < 2; k++) {
        const oc_te_moment f = c->moment[k];
        if (mu == OC_TE_MUT_SCALE_FROM_OLD_ABSMAX && f >= OC_TE_MOM_F16)
            s->scale[k] = old[k];
        else if (mu == OC_TE_MUT_F16_FULL_RANGE && f == OC_TE_MOM_F16)
            s->scale[k] = oc_te_absmax(n, work[1 + k]) / 65504.0f;
        else
            continue;
        for (size_t i = 0; i < n; i++)
            oc_te_moment_write(f, s->moment[k], i, work[1 + k][i], s->scale[k]);
    }
}

/* TESTORE-FP8-1 mistaken: E4M3 without saturation, |y| > 464 (infinity included) is NaN. */
static void fp8_no_saturation(const oc_te_config *c, size_t n, oc_te_state *s,
                              float *const *work)
{
    for (int k = 0; k < 2; k++)
        if (c->moment[k] == OC_TE_MOM_FP8)
            for (size_t i = 0; i < n; i++) {
                const float y = work[1 + k][i] * (1.0f / s->scale[k]);
                if (fabsf(y) > 464.0f)
                    ((uint8_t *)s->moment[k])[i] = (uint8_t)(signbit(y) ? 0xffu : 0x7fu);
            }
}

oc_status oc_te_mutant_storage(oc_te_mutant mu, const oc_te_config *c, oc_te_direction dir,
                               size_t n, oc_te_state *s, float *const *work)
{
    if ((unsigned)mu >= OC_TE_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    oc_status st = oc_te_storage_check(c, dir, n, s, work);
    if (st != OC_OK)
        return st;
    const float old[2] = {s->scale[0], s->scale[1]}; /* the scales before the store */
    if ((st = oc_ref_te_storage(c, dir, n, s, work)) != OC_OK || mu == OC_TE_CORRECT)
        return st;
    if (dir == OC_TE_LOAD) {
        if (mu == OC_TE_MUT_JOIN_NO_UNDO)
            join_no_undo(c, n, s, work[0]);
        else if (mu == OC_TE_MUT_FP8_READ_WITH_SCALE)
            fp8_read_with_scale(c, n, s, work);
        return OC_OK;
    }
    if (mu == OC_TE_MUT_SPLIT_TRUNCATE || mu == OC_TE_MUT_SPLIT_TIES_EVEN)
        split(mu, c, n, s, work[0]);
    else if (mu == OC_TE_MUT_FP8_NO_SATURATION)
        fp8_no_saturation(c, n, s, work);
    else
        requantize(mu, c, n, s, work, old);
    return OC_OK;
}
