/* The fast CPU backend behind the implementation ABI (include/optcert/impl.h), so that
 * `optcert certify --impl fast-cpu` judges it against every vector family: each entry point
 * is the multi-tensor step with a list of one tensor. The schedule is a handful of binary64
 * operations per step on the host; the backend uses the reference's (spec/fast.md §4). */
#include <stdio.h>
#include <string.h>
#include "optcert/fast.h"
#include "families_registry.h"
#include "optcert/impl.h"

static oc_status fast_adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n, float *p,
                           float *m, float *v, float *vmax, const float *g)
{
    (void)ctx;
    oc_fast_tensor t = {n, p, g, {m, v, hp && hp->amsgrad ? vmax : NULL}, NULL};
    return oc_fast_adam_step(hp, step, NULL, 1, &t, NULL);
}

static oc_status fast_sgd(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                          float *buf, const float *g)
{
    (void)ctx;
    oc_fast_tensor t = {n, p, g, {hp && hp->momentum != 0.0 ? buf : NULL, NULL, NULL}, NULL};
    return oc_fast_sgd_step(hp, step, NULL, 1, &t, NULL);
}

static oc_status fast_lion(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                           float *m, const float *g)
{
    (void)ctx;
    oc_fast_tensor t = {n, p, g, {m, NULL, NULL}, NULL};
    return oc_fast_lion_step(hp, step, NULL, 1, &t, NULL);
}

static oc_status fast_schedule(void *ctx, const oc_schedule *s, int64_t samples, double *lr,
                               double *wd)
{
    (void)ctx;
    return oc_ref_schedule_eval(s, samples, lr, wd);
}

static oc_status fast_mixed(void *ctx, oc_algorithm alg, const void *hp, const oc_storage *s,
                            int64_t step, size_t n, void *param, float *master,
                            void *const *state, const float *g)
{
    (void)ctx;
    return oc_fast_mixed_step(alg, hp, s, step, n, param, master, state, g);
}

static oc_status fast_loss_scale(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                                 int found_inf)
{
    (void)ctx;
    return oc_fast_loss_scale_update(c, s, found_inf);
}

static oc_status fast_te_storage(void *ctx, const oc_te_config *c, oc_te_direction dir,
                                 size_t n, oc_te_state *s, float *const *work)
{
    (void)ctx;
    return oc_fast_te_storage(c, dir, n, s, work);
}

static oc_status fast_adafactor(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                int64_t step, oc_adafactor_state *s, const float *g)
{
    (void)ctx;
    return oc_fast_adafactor_step(hp, sh, step, s, g);
}

static oc_status fast_clip(void *ctx, const oc_clip_config *c, size_t nviews,
                           oc_clip_view *views, float *total_norm, int *skipped)
{
    (void)ctx;
    return oc_fast_clip_step(c, nviews, views, total_norm, skipped);
}

/* The Newton-Schulz precision of the plugin: OPTCERT_FAST_NS (FAST-NS-2), read once at load. */
static oc_fast_ns_precision ns_precision;

static oc_status fast_newton_schulz(void *ctx, const oc_ns_hparams *hp, size_t rows, size_t cols,
                                    const float *g, float *out)
{
    (void)ctx;
    return oc_fast_newton_schulz(hp, ns_precision, rows, cols, g, out, NULL, 0);
}

static oc_status fast_muon(void *ctx, const oc_muon_hparams *hp, size_t rows, size_t cols,
                           float *p, float *m, const float *g)
{
    (void)ctx;
    return oc_fast_muon_step(hp, ns_precision, rows, cols, p, m, g);
}

static oc_status fast_muon_blocks(void *ctx, const oc_muon_hparams *hp,
                                  const oc_muon_partition *part, size_t rows, size_t cols,
                                  float *p, float *m, const float *g)
{
    (void)ctx;
    return oc_fast_muon_block_step(hp, ns_precision, part, rows, cols, p, m, g);
}

static oc_status fast_routed(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                             int64_t step, float *p, float *m, float *v, const float *g,
                             oc_route *route)
{
    (void)ctx;
    return oc_fast_routed_step(hp, ns_precision, info, step, p, m, v, g, route);
}

static oc_status fast_guarded(void *ctx, const oc_guard_config *cfg,
                              const oc_loss_scaler *scaler, oc_loss_scale_state *scaler_state,
                              size_t nsub, oc_sub_optimizer *subs, int64_t *position,
                              int64_t increment, float *grad_norm, oc_step_outcome *outcome)
{
    (void)ctx;
    return oc_fast_guarded_step(cfg, scaler, scaler_state, nsub, subs, position, increment,
                                grad_norm, outcome);
}

static oc_status fast_qk_clip(void *ctx, const oc_qk_clip_config *c, const float *max_dot,
                              float *w)
{
    (void)ctx;
    return oc_fast_qk_clip(c, max_dot, w);
}

/* VEC-ABI-3: the backend's state is the harness's buffers; it serialises them as the
 * reference does (FAST-RESUME-1). */
static oc_status fast_state_io(void *ctx, oc_state_op op, oc_algorithm alg, const void *hp,
                               const oc_storage *s, size_t n, void *const *state,
                               int64_t *steps_done, void *bytes, size_t *len)
{
    (void)ctx;
    return oc_ref_state_io(op, alg, hp, s, n, state, steps_done, bytes, len);
}

#define ENTRY(fn) ((oc_entry_point)(fn))

/* Plugin ABI v3 (include/optcert/impl.h): the entry point of each algorithm the backend
 * implements, with the options of its families (VEC-ABI-2: every one). */
static const struct {
    const char *algorithm, *options;
    oc_entry_point entry;
} algorithms[] = {
    {"adam", "amsgrad maximize", ENTRY(fast_adam)},
    {"sgd", "nesterov maximize", ENTRY(fast_sgd)},
    {"lion", NULL, ENTRY(fast_lion)},
    {"schedule", NULL, ENTRY(fast_schedule)},
    {"loss-scale", NULL, ENTRY(fast_loss_scale)},
    {"clip", NULL, ENTRY(fast_clip)},
    {"newton-schulz", NULL, ENTRY(fast_newton_schulz)},
    {"muon", NULL, ENTRY(fast_muon)},
    {"muon-blocks", NULL, ENTRY(fast_muon_blocks)},
    {"muon-route", NULL, ENTRY(fast_routed)},
    {"muonclip", NULL, ENTRY(fast_qk_clip)},
    {"guarded-step", "scaled unchecked checked", ENTRY(fast_guarded)},
    {"te-storage", NULL, ENTRY(fast_te_storage)},
    {"adafactor", NULL, ENTRY(fast_adafactor)},
};

#define NALGORITHMS (sizeof algorithms / sizeof *algorithms)

static oc_impl_v3 fast_cpu = {
    .abi_version = OC_IMPL_ABI_V3,
    .name = "optcert-fast-cpu",
};

/* The family's entry in the backend's list (VEC-ABI-1, -3: a "resume-" family's is the state
 * entry, a "-mixed" family's the mixed step, any other its algorithm's); 0 if the backend does
 * not implement its algorithm. */
static int family_entry(const oc_known_family *f, oc_family_entry *out)
{
    static const char resume[] = "resume-", mixed[] = "-mixed";
    size_t len = strlen(f->name), nm = sizeof mixed - 1;
    for (size_t a = 0; a < NALGORITHMS; a++)
        if (strcmp(algorithms[a].algorithm, f->algorithm) == 0) {
            *out = (oc_family_entry){f->name, algorithms[a].options, algorithms[a].entry};
            if (strncmp(f->name, resume, sizeof resume - 1) == 0)
                *out = (oc_family_entry){f->name, NULL, ENTRY(fast_state_io)};
            else if (len > nm && strcmp(f->name + len - nm, mixed) == 0)
                *out = (oc_family_entry){f->name, "bf16 f16 bf16-state", ENTRY(fast_mixed)};
            return 1;
        }
    return 0;
}

/* Every family of the vector set (families_registry.h, generated from vectors/) whose algorithm
 * the backend implements. NS-PROF-CANS: a bf16 Newton-Schulz diverges on ns-cans (its tuples
 * amplify anything past 2), so the bf16 mode does not claim that family; the fp32 mode claims
 * every family. */
static void claim_families(void)
{
    static oc_family_entry claimed[OC_NKNOWN_FAMILIES];
    size_t n = 0;
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++)
        if ((ns_precision != OC_FAST_NS_BF16 ||
             strcmp(oc_known_families[k].name, "ns-cans") != 0) &&
            family_entry(&oc_known_families[k], &claimed[n]))
            n++;
    fast_cpu.families = claimed;
    fast_cpu.nfamilies = n;
}

/* The certificate names the kernels that ran (FAST-ISA-1) and the Newton-Schulz precision. */
const oc_impl_v3 *optcert_impl_v3(void)
{
    static char version[96];
    ns_precision = oc_fast_ns_precision_active();
    claim_families();
    snprintf(version, sizeof version, "1 (multi-tensor, OpenMP, %s kernels, %s Newton-Schulz)",
             oc_fast_isa_name(oc_fast_isa_active()), oc_fast_ns_precision_name(ns_precision));
    fast_cpu.version = version;
    return &fast_cpu;
}
