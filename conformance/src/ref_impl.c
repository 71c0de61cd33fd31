/* The reference (and each of its mutants) exposed through the plugin ABI: the harness
 * judges the reference through the same path as any other implementation. */
#include "judge.h"

static oc_status ref_adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n,
                          float *p, float *m, float *v, float *vmax, const float *g)
{
    return oc_ref_adam_step(hp, step, n, p, m, v, vmax, g, *(const oc_adam_mutant *)ctx);
}

#define ALL_CAPS                                                                              \
    (OC_CAP_ADAM_TORCH | OC_CAP_ADAM_OPTAX | OC_CAP_ADAM_PAPER | OC_CAP_ADAM_KERAS |          \
     OC_CAP_ADAM_AMSGRAD | OC_CAP_ADAM_MAXIMIZE)

static const oc_adam_mutant mutant_ids[OC_ADAM_MUTANT_COUNT] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
_Static_assert(OC_ADAM_MUTANT_COUNT == 12, "extend mutant_ids");

const oc_impl *oc_ref_impl(oc_adam_mutant mu)
{
    static oc_impl tables[OC_ADAM_MUTANT_COUNT];
    if ((unsigned)mu >= OC_ADAM_MUTANT_COUNT)
        return NULL;
    tables[mu] = (oc_impl){OC_IMPL_ABI_VERSION,
                           mu == OC_ADAM_CORRECT ? "optcert-ref" : oc_adam_mutant_name(mu),
                           "1", ALL_CAPS, (void *)&mutant_ids[mu], ref_adam};
    return &tables[mu];
}
