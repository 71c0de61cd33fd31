/* MuonClip (Kimi K2 QK-clip) reference (spec/muon.md, rules MUONCLIP-*). Scalar C11, no
 * allocation, no I/O, no globals. Binary64 arithmetic from the fp32 inputs; every clipped weight
 * is rounded once to binary32 (MUONCLIP-STORE-1). */
#include <math.h>
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/muon_clip.h"

#define QK_CLIP_MAX_DIM ((size_t)1 << 20) /* MUONCLIP-LAYOUT-1: each size at most 2^20 */

static const char *const mutant_names[OC_QK_CLIP_MUTANT_COUNT] = {
    "correct", "gamma-on-both", "all-heads-clipped", "logit-not-divided-by-sqrt-d"};
static const char *const profile_names[OC_QK_CLIP_PROFILE_COUNT] = {"kimi", "megatron"};

const char *oc_qk_clip_mutant_name(oc_qk_clip_mutant mu)
{
    return (unsigned)mu < OC_QK_CLIP_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

const char *oc_qk_clip_profile_name(oc_qk_clip_profile pr)
{
    return (unsigned)pr < OC_QK_CLIP_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_qk_clip_profile_parse(const char *name, oc_qk_clip_profile *out)
{
    for (int i = 0; i < OC_QK_CLIP_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_qk_clip_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/*@ requires \valid_read(c);
    requires c->groups >= 1 && c->groups <= QK_CLIP_MAX_DIM && c->heads <= QK_CLIP_MAX_DIM;
    requires c->head_dim <= QK_CLIP_MAX_DIM && c->heads % c->groups == 0;
    assigns \nothing; */
static size_t rows_of(const oc_qk_clip_config *c)
{
    return c->groups * (c->heads / c->groups + 2) * c->head_dim;
}

size_t oc_qk_clip_rows(const oc_qk_clip_config *c) { return rows_of(c); }

/* MUONCLIP-CFG-1, MUONCLIP-LAYOUT-1 */
oc_status oc_qk_clip_check(const oc_qk_clip_config *c)
{
    if ((unsigned)c->profile >= OC_QK_CLIP_PROFILE_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (!(c->tau >= 0x1p-20 && c->tau <= 0x1p20) || !(c->alpha >= 0 && c->alpha <= 1))
        return OC_ERR_BAD_HPARAM;
    if (c->groups < 1 || c->heads > QK_CLIP_MAX_DIM || c->groups > c->heads ||
        c->heads % c->groups != 0 || c->head_dim < 1 || c->head_dim > QK_CLIP_MAX_DIM ||
        c->hidden < 1 || c->hidden > QK_CLIP_MAX_DIM ||
        (c->profile == OC_QK_CLIP_KIMI && c->groups != c->heads))
        return OC_ERR_BAD_SHAPE;
    /* the whole weight at most 2^28 elements */
    return (double)rows_of(c) * (double)c->hidden <= 0x1p28 ? OC_OK : OC_ERR_BAD_SHAPE;
}

/* MUONCLIP-LOGIT-1: S_h = max_dot[h] / sqrt(d). */
static double logit(const oc_qk_clip_config *c, float max_dot, oc_qk_clip_mutant mutant)
{
    return mutant == OC_QK_CLIP_MUT_NO_SQRT_D ? (double)max_dot
                                               : (double)max_dot / sqrt((double)c->head_dim);
}

/* MUONCLIP-GROUP-1: the largest logit of heads first .. first + count - 1 (count >= 1). */
static double max_logit(const oc_qk_clip_config *c, const float *max_dot, size_t first,
                        size_t count, oc_qk_clip_mutant mutant)
{
    double s = logit(c, max_dot[first], mutant);
    for (size_t j = 1; j < count; j++)
        s = fmax(s, logit(c, max_dot[first + j], mutant));
    return s;
}

/*@ requires \valid(w + (0 .. len - 1)) && len <= 0x10000000;
    requires 0 <= f <= 1;
    assigns w[0 .. len - 1]; */
static void scale_rows(float *w, size_t len, double f)
{
    /*@ loop invariant 0 <= i <= len;
        loop assigns i, w[0 .. len - 1]; */
    for (size_t i = 0; i < len; i++)
        w[i] = (float)(w[i] * f); /* MUONCLIP-STORE-1 */
}

oc_status oc_ref_qk_clip(const oc_qk_clip_config *c, const float *max_dot, float *w,
                         oc_qk_clip_mutant mutant)
{
    if (c == NULL)
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mutant >= OC_QK_CLIP_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    oc_status st = oc_qk_clip_check(c);
    if (st != OC_OK)
        return st;
    size_t rows = rows_of(c), n = rows * c->hidden, per = c->heads / c->groups;
    if ((st = oc_buffer_check(max_dot, c->heads, sizeof(float))) ||
        (st = oc_buffer_check(w, n, sizeof(float))) ||
        (st = oc_buffer_disjoint(max_dot, c->heads * sizeof(float), w, n * sizeof(float))))
        return st;
    for (size_t h = 0; h < c->heads; h++) /* MUONCLIP-ERR-1: checked before any write */
        if (!isfinite(max_dot[h]))
            return OC_ERR_NONFINITE;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i]))
            return OC_ERR_NONFINITE;
    size_t dh = c->head_dim * c->hidden; /* elements of one head's rows */
    double layer_max = max_logit(c, max_dot, 0, c->heads, mutant);
    for (size_t g = 0; g < c->groups; g++) {
        double s = mutant == OC_QK_CLIP_MUT_ALL_HEADS ? layer_max
                                                      : max_logit(c, max_dot, g * per, per, mutant);
        if (!(s > c->tau))                /* MUONCLIP-GAMMA-1: only above tau */
            continue;
        double ratio = c->tau / s, gamma = ratio < 1 ? ratio : 1.0; /* min(1, tau / S) */
        double fq = pow(gamma, c->alpha), fk = pow(gamma, 1.0 - c->alpha); /* MUONCLIP-SCALE-1 */
        if (mutant == OC_QK_CLIP_MUT_GAMMA_ON_BOTH)
            fq = fk = gamma;
        float *block = w + g * (per + 2) * dh; /* [q heads; k; v] of group g (LAYOUT-1) */
        scale_rows(block, per * dh, fq);
        scale_rows(block + per * dh, dh, fk); /* v rows untouched (MUONCLIP-SCALE-1) */
    }
    return OC_OK;
}
