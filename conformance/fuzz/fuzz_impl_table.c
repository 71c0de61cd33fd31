/* libFuzzer harness: a v2 implementation table (include/optcert/impl.h) with fuzzed fields, as
 * the plugin loader would get it from optcert_impl_v1() (no dlopen): ABI version, name and
 * version strings, capability word, which entry points are NULL, and what the entry points
 * return (any int, statuses outside oc_status included) and write into their first output.
 * The table goes through oc_impl_check and, if accepted, the frozen v2 translation
 * (VEC-ABI-4), with the entries of the v3-only families (te-storage, resume-*, adafactor) added
 * as a v3 table lists them, then oc_certify_case on every case of the small families of
 * conformance/fuzz/families.
 * Input: u64 capabilities, u32 abi_version, u32 entry-point mask, u8 flags (bit 0: name NULL,
 * bit 1: version NULL, bit 2: stubs write their first output, bits 3-7: which family the
 * cases come from, modulo their number), then bytes the stubs consume
 * in turn (returned status: the byte as a signed char; written values). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "abi3.h"
#include "certify.h"
#include "fuzz_common.h"

static const uint8_t *bytes;
static size_t nbytes, pos;
static int write_out;

static uint8_t next(void) { return nbytes ? bytes[pos++ % nbytes] : 0; }
static oc_status ret(void) { return (oc_status)(signed char)next(); }
static void fill(float *p, size_t n)
{
    if (!write_out || !p)
        return;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)next() << 24 | (uint32_t)next() << 16 | next();
        memcpy(&p[i], &u, sizeof u);
    }
}

static oc_status adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n, float *p,
                      float *m, float *v, float *vmax, const float *g)
{
    (void)ctx, (void)hp, (void)step, (void)m, (void)v, (void)vmax, (void)g;
    fill(p, n);
    return ret();
}
static oc_status sgd(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                     float *buf, const float *g)
{
    (void)ctx, (void)hp, (void)step, (void)buf, (void)g;
    fill(p, n);
    return ret();
}
static oc_status lion(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                      float *m, const float *g)
{
    (void)ctx, (void)hp, (void)step, (void)m, (void)g;
    fill(p, n);
    return ret();
}
static oc_status sched(void *ctx, const oc_schedule *s, int64_t samples, double *lr, double *wd)
{
    (void)ctx, (void)s, (void)samples;
    *lr = (double)next() - 3.0;
    *wd = (double)next() / 7.0;
    return ret();
}
static oc_status mixed(void *ctx, oc_algorithm alg, const void *hp, const oc_storage *s,
                       int64_t step, size_t n, void *param, float *master, void *const *state,
                       const float *g)
{
    (void)ctx, (void)alg, (void)hp, (void)s, (void)step, (void)param, (void)state, (void)g;
    fill(master, n);
    return ret();
}
static oc_status loss_scale(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                            int found_inf)
{
    (void)ctx, (void)c, (void)found_inf;
    if (write_out)
        s->scale = (float)next() - 1.0f;
    return ret();
}
static oc_status clip(void *ctx, const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                      float *total_norm, int *skipped)
{
    (void)ctx, (void)c, (void)nviews, (void)views;
    *total_norm = (float)next() / 3.0f;
    *skipped = next() & 1;
    return ret();
}
static oc_status ns(void *ctx, const oc_ns_hparams *hp, size_t rows, size_t cols,
                    const float *g, float *out)
{
    (void)ctx, (void)hp, (void)g;
    fill(out, rows * cols);
    return ret();
}
static oc_status muon(void *ctx, const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                      float *m, const float *g)
{
    (void)ctx, (void)hp, (void)m, (void)g;
    fill(p, rows * cols);
    return ret();
}
static oc_status guarded(void *ctx, const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                         oc_loss_scale_state *scaler_state, size_t nsub, oc_sub_optimizer *subs,
                         int64_t *position, int64_t increment, float *grad_norm,
                         oc_step_outcome *outcome)
{
    (void)ctx, (void)cfg, (void)scaler, (void)scaler_state, (void)nsub, (void)subs;
    (void)position, (void)increment;
    *grad_norm = (float)next();
    *outcome = (oc_step_outcome)(signed char)next(); /* in range or not */
    return ret();
}
static oc_status qk(void *ctx, const oc_qk_clip_config *c, const float *max_dot, float *w)
{
    (void)ctx, (void)c, (void)max_dot, (void)w;
    return ret();
}
static oc_status blocks(void *ctx, const oc_muon_hparams *hp, const oc_muon_partition *part,
                        size_t rows, size_t cols, float *p, float *m, const float *g)
{
    (void)ctx, (void)hp, (void)part, (void)m, (void)g;
    fill(p, rows * cols);
    return ret();
}
static oc_status routed(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                        int64_t step, float *p, float *m, float *v, const float *g,
                        oc_route *route)
{
    (void)ctx, (void)hp, (void)info, (void)step, (void)p, (void)m, (void)v, (void)g;
    *route = (oc_route)(signed char)next(); /* in range or not */
    return ret();
}

static oc_status te(void *ctx, const oc_te_config *c, oc_te_direction dir, size_t n,
                    oc_te_state *s, float *const *work)
{
    (void)ctx, (void)c, (void)s;
    if (dir == OC_TE_LOAD)
        fill(work[0], n);
    return ret();
}

/* The resume families' state entry (VEC-RESUME-1): any size asked, a save filled with one byte
 * and any length reported, any step count restored. */
static oc_status state_io(void *ctx, oc_state_op op, oc_algorithm alg, const void *hp,
                          const oc_storage *s, size_t n, void *const *state, int64_t *steps_done,
                          void *b, size_t *len)
{
    (void)ctx, (void)alg, (void)hp, (void)s, (void)n, (void)state;
    if (op == OC_STATE_SIZE)
        *len = next();
    else if (op == OC_STATE_SAVE) {
        if (write_out)
            memset(b, next(), *len);
        *len = next();
    } else
        *steps_done = (int64_t)(signed char)next();
    return ret();
}

static oc_status adafactor(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                           int64_t step, oc_adafactor_state *s, const float *g)
{
    (void)ctx, (void)hp, (void)step, (void)g;
    fill(s->p, sh.rows * sh.cols);
    return ret();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    oc_fuzz_load_families();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 17)
        return 0;
    uint64_t caps;
    uint32_t abi, mask;
    memcpy(&caps, data, 8);
    memcpy(&abi, data + 8, 4);
    memcpy(&mask, data + 12, 4);
    uint8_t flags = data[16];
    bytes = data + 17, nbytes = size - 17, pos = 0, write_out = flags & 4;
    char name[64], version[64];
    size_t k = nbytes < sizeof name - 1 ? nbytes : sizeof name - 1;
    memcpy(name, bytes, k), name[k] = '\0';
    memcpy(version, bytes, k), version[k] = '\0';
    oc_impl impl = {
        .abi_version = abi,
        .name = flags & 1 ? NULL : name,
        .version = flags & 2 ? NULL : version,
        .capabilities = caps,
        .adam_step = mask & 1 ? adam : NULL,
        .sgd_step = mask & 2 ? sgd : NULL,
        .lion_step = mask & 4 ? lion : NULL,
        .schedule_eval = mask & 8 ? sched : NULL,
        .mixed_step = mask & 16 ? mixed : NULL,
        .loss_scale_update = mask & 32 ? loss_scale : NULL,
        .clip_step = mask & 64 ? clip : NULL,
        .newton_schulz = mask & 128 ? ns : NULL,
        .muon_step = mask & 256 ? muon : NULL,
        .guarded_step = mask & 512 ? guarded : NULL,
        .qk_clip = mask & 1024 ? qk : NULL,
        .muon_block_step = mask & 2048 ? blocks : NULL,
        .routed_step = mask & 4096 ? routed : NULL,
        .te_storage = mask & 8192 ? te : NULL,
        .state_io = mask & 16384 ? state_io : NULL,
        .adafactor_step = mask & 32768 ? adafactor : NULL,
    };
    oc_diag d;
    if (oc_impl_check(&impl, &d) != OC_OK)
        return 0;
    oc_abi2_families t;
    oc_abi2_translate(&impl, &t);
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++) { /* the v3-only families */
        const oc_known_family *f = &oc_known_families[k];
        oc_entry_point e = strncmp(f->name, "resume-", 7) == 0 ? (oc_entry_point)impl.state_io
                           : strcmp(f->algorithm, "te-storage") == 0
                               ? (oc_entry_point)impl.te_storage
                           : strcmp(f->algorithm, "adafactor") == 0
                               ? (oc_entry_point)impl.adafactor_step
                               : NULL;
        if (e)
            t.entries[t.table.nfamilies++] = (oc_family_entry){f->name, NULL, e};
    }
    oc_family_report fr;
    {
        size_t f = (size_t)(flags >> 3) % oc_fuzz_nfams;
        memset(&fr, 0, sizeof fr);
        fr.cases = calloc(oc_fuzz_fams[f].ncases + 1, sizeof *fr.cases);
        for (size_t i = 0; i < oc_fuzz_fams[f].ncases; i++) {
            oc_case_result r;
            oc_certify_case(&t.table, &oc_fuzz_fams[f].cases[i], OC_CLASS_FP32, &r);
            oc_family_add_result(&fr, &r);
        }
        free(fr.cases);
    }
    return 0;
}
