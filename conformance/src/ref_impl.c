/* The reference (and each of its mutants) exposed through the plugin ABI: the harness
 * judges the reference through the same path as any other implementation. */
#include <stdlib.h>
#include "algos.h"

#define MAX_MUTANTS 16

typedef struct ref_ctx {
    const oc_algo *algo; /* the algorithm whose mutant is selected; NULL: all correct */
    int mutant;
} ref_ctx;

static int mutant_for(const ref_ctx *c, const oc_algo *a) { return c->algo == a ? c->mutant : 0; }

static oc_status ref_adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n,
                          float *p, float *m, float *v, float *vmax, const float *g)
{
    return oc_ref_adam_step(hp, step, n, p, m, v, vmax, g,
                            (oc_adam_mutant)mutant_for(ctx, &oc_algo_adam));
}

static oc_status ref_sgd(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                         float *buf, const float *g)
{
    return oc_ref_sgd_step(hp, step, n, p, buf, g, (oc_sgd_mutant)mutant_for(ctx, &oc_algo_sgd));
}

static oc_status ref_lion(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                          float *m, const float *g)
{
    return oc_ref_lion_step(hp, step, n, p, m, g, (oc_lion_mutant)mutant_for(ctx, &oc_algo_lion));
}

static oc_status ref_schedule(void *ctx, const oc_schedule *s, int64_t samples, double *lr,
                              double *wd)
{
    return oc_ref_schedule_eval(s, samples, lr, wd,
                                (oc_schedule_mutant)mutant_for(ctx, &oc_algo_schedule));
}

static oc_status ref_ns(void *ctx, const oc_ns_hparams *hp, size_t rows, size_t cols,
                        const float *g, float *out)
{
    size_t len = oc_ns_work_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    if (!work)
        return OC_ERR_INTERNAL;
    oc_status st = oc_ref_newton_schulz(hp, rows, cols, g, out, work, len,
                                        (oc_ns_mutant)mutant_for(ctx, &oc_algo_newton_schulz));
    free(work);
    return st;
}

static oc_status ref_muon(void *ctx, const oc_muon_hparams *hp, size_t rows, size_t cols,
                          float *p, float *m, const float *g)
{
    size_t len = oc_muon_work_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((3 * rows * cols + 1) * sizeof *scratch);
    oc_status st = work && scratch
                       ? oc_ref_muon_step(hp, rows, cols, p, m, g, work, len, scratch,
                                          (oc_muon_mutant)mutant_for(ctx, &oc_algo_muon))
                       : OC_ERR_INTERNAL;
    free(work);
    free(scratch);
    return st;
}

#define ALL_CAPS                                                                              \
    (OC_CAP_ADAM_TORCH | OC_CAP_ADAM_OPTAX | OC_CAP_ADAM_PAPER | OC_CAP_ADAM_KERAS |          \
     OC_CAP_ADAM_AMSGRAD | OC_CAP_ADAM_MAXIMIZE | OC_CAP_SGD_TORCH | OC_CAP_SGD_EMA |         \
     OC_CAP_SGD_NESTEROV | OC_CAP_SGD_MAXIMIZE | OC_CAP_LION_TORCH | OC_CAP_SCHEDULE_MEGATRON |    \
     OC_CAP_NEWTON_SCHULZ | OC_CAP_MUON)

const oc_impl *oc_ref(void)
{
    static const ref_ctx correct = {NULL, 0};
    static const oc_impl table = {OC_IMPL_ABI_VERSION, "optcert-ref", "1", ALL_CAPS,
                                  (void *)&correct, ref_adam, ref_sgd, ref_lion, ref_schedule,
                                  ref_ns, ref_muon};
    return &table;
}

const oc_impl *oc_ref_mutant(const oc_algo *a, int mu)
{
    static ref_ctx ctx[OC_NALGOS][MAX_MUTANTS];
    static oc_impl tables[OC_NALGOS][MAX_MUTANTS];
    int k = 0;
    while (k < OC_NALGOS && oc_algos[k] != a)
        k++;
    if (k == OC_NALGOS || mu <= 0 || mu >= a->nmutants || mu >= MAX_MUTANTS)
        return NULL;
    ctx[k][mu] = (ref_ctx){a, mu};
    tables[k][mu] = (oc_impl){OC_IMPL_ABI_VERSION, a->mutant_name(mu), "1", ALL_CAPS,
                              &ctx[k][mu], a == &oc_algo_adam ? ref_adam : NULL,
                              a == &oc_algo_sgd ? ref_sgd : NULL,
                              a == &oc_algo_lion ? ref_lion : NULL,
                              a == &oc_algo_schedule ? ref_schedule : NULL,
                              a == &oc_algo_newton_schulz ? ref_ns : NULL,
                              a == &oc_algo_muon ? ref_muon : NULL};
    return &tables[k][mu];
}
