/* Mixed-precision mutants (spec/mixed.md §5): each a change of one storage point around a
 * correct step of the reference; and the storage points around an algorithm's own mutant. */
#include <stdlib.h>
#include "adam.h"
#include "lion.h"
#include "mixed.h"
#include "sgd.h"

static const char *const names[OC_MIXED_MUTANT_COUNT] = {
    "correct", "truncating-write-back", "master-from-param", "state-in-bf16"};
static const char *const descriptions[OC_MIXED_MUTANT_COUNT] = {
    "no mistake",
    "the 16-bit parameter is written back from the master by truncation, not rounding",
    "the fp32 master is re-created from the 16-bit parameter every step",
    "optimizer state specified as fp32 is stored as bf16"};

const char *oc_mixed_mutant_name(oc_mixed_mutant mu)
{
    return (unsigned)mu < OC_MIXED_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_mixed_mutant_description(oc_mixed_mutant mu)
{
    return (unsigned)mu < OC_MIXED_MUTANT_COUNT ? descriptions[mu] : NULL;
}

oc_status oc_mixed_mutant_step(oc_mixed_mutant mu, oc_algorithm alg, const void *hp,
                               const oc_storage *s, int64_t step, size_t n, void *param,
                               float *master, void *const *state, const float *g)
{
    /* MP-MASTER-1 mistaken: the master widened from the 16-bit parameter before the step. */
    if (mu == OC_MIXED_MUT_MASTER_FROM_PARAM && master &&
        oc_mixed_check(alg, hp, s, step, n, param, master, state, g) == OC_OK)
        for (size_t i = 0; i < n; i++)
            master[i] = oc_widen(s->param, ((const uint16_t *)param)[i]);
    oc_status st = oc_ref_mixed_step(alg, hp, s, step, n, param, master, state, g);
    if (st != OC_OK)
        return st;
    /* MP-CONV-1 mistaken: the 16-bit parameter narrowed from the new master toward zero. */
    if (mu == OC_MIXED_MUT_TRUNCATING_WRITEBACK && master)
        for (size_t i = 0; i < n; i++)
            ((uint16_t *)param)[i] = oc_narrow_toward_zero(s->param, master[i]);
    /* MP-STORE-2 mistaken: the new fp32 state rounded to bf16. */
    const int nstate = s->state == OC_FMT_F32 ? oc_algorithm_state_count(alg, hp) : 0;
    for (int k = 0; mu == OC_MIXED_MUT_STATE_IN_BF16 && k < nstate; k++)
        for (size_t i = 0; i < n; i++) {
            float *x = (float *)state[k] + i;
            *x = oc_widen(OC_FMT_BF16, oc_narrow(OC_FMT_BF16, *x));
        }
    return OC_OK;
}

/* The fp32 step of algorithm alg with its own mutant mu; s: the state tensors. */
static oc_status own_step(int mu, oc_algorithm alg, const void *hp, int64_t step, size_t n,
                          float *p, float *const *s, const float *g)
{
    if (alg == OC_ALG_ADAM) {
        const oc_adam_hparams *h = hp;
        return oc_adam_mutant_step((oc_adam_mutant)mu, h, step, n, p, s[0], s[1],
                                   h->amsgrad ? s[2] : NULL, g);
    }
    if (alg == OC_ALG_SGD) {
        const oc_sgd_hparams *h = hp;
        return oc_sgd_mutant_step((oc_sgd_mutant)mu, h, step, n, p,
                                  h->momentum != 0.0 ? s[0] : NULL, g);
    }
    return oc_lion_mutant_step((oc_lion_mutant)mu, hp, step, n, p, s[0], g);
}

/* Value i of a tensor in format f, widened to fp32; x stored as value i, rounded to nearest
 * even (MP-CONV-1). */
static float widened(oc_format f, const void *t, size_t i)
{
    return f == OC_FMT_F32 ? ((const float *)t)[i] : oc_widen(f, ((const uint16_t *)t)[i]);
}

static void narrow_into(oc_format f, void *t, size_t i, float x)
{
    if (f == OC_FMT_F32)
        ((float *)t)[i] = x;
    else
        ((uint16_t *)t)[i] = oc_narrow(f, x);
}

oc_status oc_mixed_own_mutant_step(int mu, oc_algorithm alg, const void *hp, const oc_storage *s,
                                   int64_t step, size_t n, void *param, float *master,
                                   void *const *state, const float *g)
{
    if (mu == 0 || n == 0 || oc_mixed_check(alg, hp, s, step, n, param, master, state, g) != OC_OK)
        return oc_ref_mixed_step(alg, hp, s, step, n, param, master, state, g);
    /* MP-STORE-2: the step works on fp32 copies: the master (or the fp32 parameter), the state
     * widened; then the master exactly, param and state narrowed. */
    const int nstate = oc_algorithm_state_count(alg, hp);
    float *w = malloc((size_t)(1 + nstate) * n * sizeof *w);
    if (!w)
        return OC_ERR_INTERNAL;
    float *ws[OC_MIXED_MAX_STATE] = {NULL, NULL, NULL};
    for (int k = 0; k < nstate; k++)
        ws[k] = w + (size_t)(1 + k) * n;
    for (size_t i = 0; i < n; i++) {
        w[i] = master ? master[i] : ((const float *)param)[i];
        for (int k = 0; k < nstate; k++)
            ws[k][i] = widened(s->state, state[k], i);
    }
    oc_status st = own_step(mu, alg, hp, step, n, w, ws, g);
    for (size_t i = 0; i < n && st == OC_OK; i++) {
        if (master)
            master[i] = w[i];
        narrow_into(s->param, param, i, w[i]);
        for (int k = 0; k < nstate; k++)
            narrow_into(s->state, state[k], i, ws[k][i]);
    }
    free(w);
    return st;
}
