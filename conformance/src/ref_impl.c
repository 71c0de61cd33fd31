/* The reference (and each of its mutants) exposed through the plugin ABI: the harness
 * judges the reference through the same path as any other implementation. */
#include <stdlib.h>
#include "abi3.h"
#include "algos.h"
#include "../mutants/adafactor.h"
#include "../mutants/adam.h"
#include "../mutants/clip.h"
#include "../mutants/guarded_step.h"
#include "../mutants/lion.h"
#include "../mutants/loss_scale.h"
#include "../mutants/mixed.h"
#include "../mutants/muon.h"
#include "../mutants/muon_clip.h"
#include "../mutants/muon_route.h"
#include "../mutants/newton_schulz.h"
#include "../mutants/resume.h"
#include "../mutants/schedule.h"
#include "../mutants/sgd.h"
#include "../mutants/te_storage.h"

#define MAX_MUTANTS 24

typedef struct ref_ctx {
    const oc_algo *algo; /* the algorithm whose mutant is selected; NULL: all correct */
    int mutant;
} ref_ctx;

/* The selected mutant of algorithm a (0 if another algorithm's mutant is selected). */
static int mutant_for(const ref_ctx *c, const oc_algo *a) { return c->algo == a ? c->mutant : 0; }

/* The selected mutant of element-wise algorithm a split into its own part and its
 * mixed-precision part. */
static int own_mutant(const ref_ctx *c, const oc_algo *a)
{
    return c->algo == a && c->mutant < a->own_mutants ? c->mutant : 0;
}

static oc_mixed_mutant mixed_mutant(const ref_ctx *c, const oc_algo *a)
{
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

static oc_status ref_mixed(void *ctx, oc_algorithm alg, const void *hp, const oc_storage *s,
                           int64_t step, size_t n, void *param, float *master,
                           void *const *state, const float *g)
{
    static const oc_algo *const by_alg[OC_ALG_COUNT] = {&oc_algo_adam, &oc_algo_sgd,
                                                         &oc_algo_lion};
    const oc_algo *a = (unsigned)alg < OC_ALG_COUNT ? by_alg[alg] : NULL;
    if (!a)
        return OC_ERR_BAD_PROFILE;
    if (own_mutant(ctx, a))
        return oc_mixed_own_mutant_step(own_mutant(ctx, a), alg, hp, s, step, n, param, master,
                                        state, g);
    return oc_mixed_mutant_step(mixed_mutant(ctx, a), alg, hp, s, step, n, param, master, state,
                                g);
}

/* The fp32 entry points run the algorithm's own step, or, with a mixed-precision mutant
 * selected, the mixed step with everything in fp32 (where only state-in-bf16 changes
 * anything). */
static oc_status fp32_step(const ref_ctx *c, oc_algorithm alg, const oc_algo *a, const void *hp,
                           int64_t step, size_t n, float *p, void *const *state, const float *g)
{
    static const oc_storage fp32 = {OC_FMT_F32, OC_FMT_F32};
    return oc_mixed_mutant_step(mixed_mutant(c, a), alg, hp, &fp32, step, n, p, NULL, state, g);
}

static oc_status ref_adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n,
                          float *p, float *m, float *v, float *vmax, const float *g)
{
    if (mixed_mutant(ctx, &oc_algo_adam) != OC_MIXED_CORRECT) {
        void *const state[] = {m, v, vmax};
        return fp32_step(ctx, OC_ALG_ADAM, &oc_algo_adam, hp, step, n, p, state, g);
    }
    return oc_adam_mutant_step((oc_adam_mutant)own_mutant(ctx, &oc_algo_adam), hp, step, n, p, m,
                               v, vmax, g);
}

static oc_status ref_sgd(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                         float *buf, const float *g)
{
    if (mixed_mutant(ctx, &oc_algo_sgd) != OC_MIXED_CORRECT) {
        void *const state[] = {buf};
        return fp32_step(ctx, OC_ALG_SGD, &oc_algo_sgd, hp, step, n, p, state, g);
    }
    return oc_sgd_mutant_step((oc_sgd_mutant)own_mutant(ctx, &oc_algo_sgd), hp, step, n, p, buf,
                              g);
}

static oc_status ref_lion(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                          float *m, const float *g)
{
    if (mixed_mutant(ctx, &oc_algo_lion) != OC_MIXED_CORRECT) {
        void *const state[] = {m};
        return fp32_step(ctx, OC_ALG_LION, &oc_algo_lion, hp, step, n, p, state, g);
    }
    return oc_lion_mutant_step((oc_lion_mutant)own_mutant(ctx, &oc_algo_lion), hp, step, n, p, m,
                               g);
}

static oc_status ref_schedule(void *ctx, const oc_schedule *s, int64_t samples, double *lr,
                              double *wd)
{
    return oc_schedule_mutant_eval((oc_schedule_mutant)mutant_for(ctx, &oc_algo_schedule), s,
                                   samples, lr, wd);
}

static oc_status ref_loss_scale(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                                int found_inf)
{
    int mu = mutant_for(ctx, &oc_algo_loss_scale); /* the restore mistakes come after LS's */
    return oc_loss_scale_mutant_update((oc_loss_scale_mutant)(mu < OC_LS_MUTANT_COUNT ? mu : 0), c,
                                       s, found_inf);
}

static oc_status ref_clip(void *ctx, const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                          float *total_norm, int *skipped)
{
    return oc_clip_mutant_step((oc_clip_mutant)mutant_for(ctx, &oc_algo_clip), c, nviews, views,
                               total_norm, skipped);
}

static oc_status ref_ns(void *ctx, const oc_ns_hparams *hp, size_t rows, size_t cols,
                        const float *g, float *out)
{
    size_t len = oc_ns_work_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    if (!work)
        return OC_ERR_INTERNAL;
    oc_status st = oc_ns_mutant_orthogonalise(
        (oc_ns_mutant)mutant_for(ctx, &oc_algo_newton_schulz), hp, rows, cols, g, out, work, len);
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
                       ? oc_muon_mutant_step((oc_muon_mutant)mutant_for(ctx, &oc_algo_muon), hp,
                                             rows, cols, p, m, g, work, len, scratch)
                       : OC_ERR_INTERNAL;
    free(work);
    free(scratch);
    return st;
}

static oc_status ref_muon_blocks(void *ctx, const oc_muon_hparams *hp,
                                 const oc_muon_partition *part, size_t rows, size_t cols,
                                 float *p, float *m, const float *g)
{
    size_t len = oc_muon_work_len(rows, cols), slen = oc_muon_block_scratch_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((slen + 1) * sizeof *scratch);
    oc_status st = work && scratch
                       ? oc_muon_block_mutant_step(
                             (oc_muon_block_mutant)mutant_for(ctx, &oc_algo_muon_blocks), hp,
                             part, rows, cols, p, m, g, work, len, scratch, slen)
                       : OC_ERR_INTERNAL;
    free(work);
    free(scratch);
    return st;
}

static oc_status ref_routed(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                            int64_t step, float *p, float *m, float *v, const float *g,
                            oc_route *route)
{
    if (oc_param_check(info) != OC_OK)
        return oc_ref_routed_step(hp, info, step, p, m, v, g, route, NULL, 0, NULL,
                                  0); /* the reference's status, nothing written */
    size_t len = oc_routed_work_len(info), slen = oc_routed_scratch_len(info);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((slen + 1) * sizeof *scratch);
    oc_status st = work && scratch
                       ? oc_route_mutant_step((oc_route_mutant)mutant_for(ctx, &oc_algo_muon_route),
                                              hp, info, step, p, m, v, g, route, work, len,
                                              scratch, slen)
                       : OC_ERR_INTERNAL;
    free(work);
    free(scratch);
    return st;
}
static oc_status ref_guarded(void *ctx, const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                             oc_loss_scale_state *scaler_state, size_t nsub,
                             oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                             float *grad_norm, oc_step_outcome *outcome)
{
    return oc_guard_mutant_step((oc_guard_mutant)mutant_for(ctx, &oc_algo_step), cfg, scaler,
                                scaler_state, nsub, subs, position, increment, grad_norm,
                                outcome);
}

static oc_status ref_qk_clip(void *ctx, const oc_qk_clip_config *c, const float *max_dot,
                            float *w)
{
    return oc_qk_clip_mutant_clip((oc_qk_clip_mutant)mutant_for(ctx, &oc_algo_qk_clip), c, max_dot,
                                  w);
}

static oc_status ref_te_storage(void *ctx, const oc_te_config *c, oc_te_direction dir, size_t n,
                                oc_te_state *s, float *const *work)
{
    return oc_te_mutant_storage((oc_te_mutant)mutant_for(ctx, &oc_algo_te_storage), c, dir, n, s,
                                work);
}

static oc_status ref_adafactor(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                               int64_t step, oc_adafactor_state *s, const float *g)
{
    if (oc_adafactor_check(hp, sh, step) != OC_OK) /* the reference's status, nothing written */
        return oc_ref_adafactor_step(hp, sh, step, s, g, NULL, 0);
    size_t len = oc_adafactor_work_len(sh);
    double *work = malloc(len * sizeof *work);
    oc_status st = work ? oc_adafactor_mutant_step(
                              (oc_adafactor_mutant)mutant_for(ctx, &oc_algo_adafactor), hp, sh,
                              step, s, g, work, len)
                        : OC_ERR_INTERNAL;
    free(work);
    return st;
}

/* The reference's entry point for the families of algorithm a (VEC-ABI-1: the type
 * include/optcert/impl.h gives them); NULL if it has none. */
static oc_entry_point algo_entry(const oc_algo *a)
{
    static const struct {
        const oc_algo *algo;
        oc_entry_point entry;
    } entries[] = {
        {&oc_algo_adam, (oc_entry_point)ref_adam},
        {&oc_algo_sgd, (oc_entry_point)ref_sgd},
        {&oc_algo_lion, (oc_entry_point)ref_lion},
        {&oc_algo_schedule, (oc_entry_point)ref_schedule},
        {&oc_algo_loss_scale, (oc_entry_point)ref_loss_scale},
        {&oc_algo_clip, (oc_entry_point)ref_clip},
        {&oc_algo_newton_schulz, (oc_entry_point)ref_ns},
        {&oc_algo_muon, (oc_entry_point)ref_muon},
        {&oc_algo_step, (oc_entry_point)ref_guarded},
        {&oc_algo_qk_clip, (oc_entry_point)ref_qk_clip},
        {&oc_algo_muon_blocks, (oc_entry_point)ref_muon_blocks},
        {&oc_algo_muon_route, (oc_entry_point)ref_routed},
        {&oc_algo_te_storage, (oc_entry_point)ref_te_storage},
        {&oc_algo_adafactor, (oc_entry_point)ref_adafactor},
    };
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++)
        if (entries[i].algo == a)
            return entries[i].entry;
    return NULL;
}

/* The reference's family list (VEC-ABI-1..3): every family of the registry whose algorithm is
 * `only` (NULL: of every algorithm), with every option it may list; out has
 * OC_NKNOWN_FAMILIES entries. Returns how many it lists. */
static size_t ref_families(const oc_algo *only, oc_family_entry *out)
{
    static char options[OC_NKNOWN_FAMILIES][32];
    size_t n = 0;
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++) {
        const oc_known_family *f = &oc_known_families[k];
        const oc_algo *a = oc_algo_find(f->algorithm);
        char base[128];
        int resume, mixed;
        oc_family_base(f->name, base, sizeof base, &resume, &mixed);
        oc_entry_point entry = resume  ? (oc_entry_point)ref_state_io
                               : mixed ? (oc_entry_point)ref_mixed
                                       : algo_entry(a);
        if (!a || !entry || (only && a != only))
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
