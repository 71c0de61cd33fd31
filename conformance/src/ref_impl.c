/* The reference (and each of its mutants) exposed through the plugin ABI: the harness
 * judges the reference through the same path as any other implementation. Each algorithm's
 * entry point is its descriptor's .reference (in the algorithm's file); here are the context
 * that selects a mutant (ref_impl.h) and the entries of the mixed-precision and resume
 * families. */
#include "abi3.h"
#include "algos.h"
#include "ref_impl.h"
#include "../mutants/adam.h"
#include "../mutants/loss_scale.h"
#include "../mutants/resume.h"

#define MAX_MUTANTS 24

typedef struct ref_ctx {
    const oc_algo *algo; /* the algorithm whose mutant is selected; NULL: all correct */
    int mutant;
} ref_ctx;

int oc_ref_mutant_of(const void *ctx, const oc_algo *a)
{
    const ref_ctx *c = ctx;
    return c->algo == a ? c->mutant : 0;
}

int oc_ref_own_mutant(const void *ctx, const oc_algo *a)
{
    const ref_ctx *c = ctx;
    return c->algo == a && c->mutant < a->own_mutants ? c->mutant : 0;
}

oc_mixed_mutant oc_ref_mixed_mutant(const void *ctx, const oc_algo *a)
{
    const ref_ctx *c = ctx;
    return c->algo == a && c->mutant >= a->own_mutants &&
                   c->mutant < a->own_mutants + OC_MIXED_MUTANT_COUNT - 1
               ? (oc_mixed_mutant)(c->mutant - a->own_mutants + 1)
               : OC_MIXED_CORRECT;
}

/* The selected restore mistake (RESUME-MUT-1): Adam's mutants after the mixed-precision ones,
 * the loss scaler's after its own. */
static oc_resume_mutant resume_mutant(const ref_ctx *c)
{
    int first = OC_ADAM_MUTANT_COUNT + OC_MIXED_MUTANT_COUNT - 1;
    if (c->algo == &oc_algo_loss_scale && c->mutant >= OC_LS_MUTANT_COUNT)
        return (oc_resume_mutant)(c->mutant - OC_LS_MUTANT_COUNT + OC_RESUME_FIRST_SCALER);
    return c->algo == &oc_algo_adam && c->mutant >= first
               ? (oc_resume_mutant)(c->mutant - first + 1)
               : OC_RESUME_CORRECT;
}

static oc_status ref_state_io(void *ctx, oc_state_op op, oc_algorithm alg, const void *hp,
                              const oc_storage *s, size_t n, void *const *state,
                              int64_t *steps_done, void *bytes, size_t *len)
{
    return oc_resume_mutant_state_io(resume_mutant(ctx), op, alg, hp, s, n, state, steps_done,
                                     bytes, len);
}

/* The element-wise algorithm whose oc_algorithm is alg, or NULL. */
static const oc_algo *elementwise(oc_algorithm alg)
{
    for (int k = 0; k < OC_NALGOS; k++)
        if (oc_algos[k]->own_mutants && oc_algos[k]->alg == alg)
            return oc_algos[k];
    return NULL;
}

static oc_status ref_mixed(void *ctx, oc_algorithm alg, const void *hp, const oc_storage *s,
                           int64_t step, size_t n, void *param, float *master,
                           void *const *state, const float *g)
{
    const oc_algo *a = elementwise(alg);
    if (!a)
        return OC_ERR_BAD_PROFILE;
    if (oc_ref_own_mutant(ctx, a))
        return oc_mixed_own_mutant_step(oc_ref_own_mutant(ctx, a), alg, hp, s, step, n, param,
                                        master, state, g);
    return oc_mixed_mutant_step(oc_ref_mixed_mutant(ctx, a), alg, hp, s, step, n, param, master,
                                state, g);
}

oc_status oc_ref_fp32_step(const void *ctx, const oc_algo *a, const void *hp, int64_t step,
                           size_t n, float *p, void *const *state, const float *g)
{
    static const oc_storage fp32 = {OC_FMT_F32, OC_FMT_F32};
    return oc_mixed_mutant_step(oc_ref_mixed_mutant(ctx, a), a->alg, hp, &fp32, step, n, p, NULL,
                                state, g);
}

/* The reference's family list (VEC-ABI-1..3): every family of the registry whose algorithm is
 * `only` (NULL: of every algorithm), with every option it may list; out has
 * OC_NKNOWN_FAMILIES entries. Returns how many it lists. */
static size_t ref_families(const oc_algo *only, oc_family_entry *out)
{
    static char options[OC_NKNOWN_FAMILIES][OC_OPTIONS_TEXT];
    size_t n = 0;
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++) {
        const oc_known_family *f = &oc_known_families[k];
        const oc_algo *a = oc_algo_find(f->algorithm);
        char base[128];
        int resume, mixed;
        oc_family_base(f->name, base, sizeof base, &resume, &mixed);
        if (!a || (only && a != only))
            continue;
        oc_entry_point entry = resume  ? (oc_entry_point)ref_state_io
                               : mixed ? (oc_entry_point)ref_mixed
                                       : a->reference;
        if (!entry)
            continue;
        oc_options_join(oc_family_options(f->name), ~0ull, options[k], sizeof options[k]);
        out[n++] = (oc_family_entry){f->name, options[k], entry};
    }
    return n;
}

const oc_impl_v3 *oc_ref(void)
{
    static const ref_ctx correct = {NULL, 0};
    static oc_family_entry families[OC_NKNOWN_FAMILIES];
    static oc_impl_v3 table = {OC_IMPL_ABI_V3, "optcert-ref", "1", (void *)&correct, 0, families};
    if (!table.nfamilies)
        table.nfamilies = ref_families(NULL, families);
    return &table;
}

const oc_impl_v3 *oc_ref_mutant(const oc_algo *a, int mu)
{
    static ref_ctx ctx[OC_NALGOS][MAX_MUTANTS];
    static oc_impl_v3 tables[OC_NALGOS][MAX_MUTANTS];
    static oc_family_entry families[OC_NALGOS][OC_NKNOWN_FAMILIES];
    int k = 0;
    while (k < OC_NALGOS && oc_algos[k] != a)
        k++;
    if (k == OC_NALGOS || mu <= 0 || mu >= a->nmutants || mu >= MAX_MUTANTS)
        return NULL;
    ctx[k][mu] = (ref_ctx){a, mu};
    tables[k][mu] = (oc_impl_v3){OC_IMPL_ABI_V3, a->mutant_name(mu), "1", &ctx[k][mu],
                                 ref_families(a, families[k]), families[k]};
    return &tables[k][mu];
}
