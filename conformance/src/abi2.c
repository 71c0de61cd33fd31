/* Plugin ABI v2 (include/optcert/impl.h: oc_impl, positional slots plus capability bits) as the
 * family list the harness runs (VEC-ABI-4). v2 is frozen: its layout stopped at routed_step
 * when v3 came, and no slot or bit is ever added, so the table below, of what each slot and
 * bit claimed in v2, is closed. A family added since is a v3 family only, except where a v2
 * bit claimed a whole algorithm ("every coefficient schedule"): those rows take every family
 * of that algorithm from the registry, as v2 did. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "abi3.h"

typedef struct v2_row {
    size_t slot;           /* offsetof(oc_impl, <entry point>) */
    const char *family;    /* the family the slot's entry serves, or NULL: */
    const char *algorithm; /* every family of this algorithm */
    uint64_t caps;         /* the bits the family needs */
    const char *options[OC_MAX_OPTIONS]; /* its options (VEC-ABI-2), each claimed by */
    uint64_t option_caps[OC_MAX_OPTIONS]; /* this bit */
} v2_row;

#define ADAM(profile, cap)                                                                      \
    {offsetof(oc_impl, adam_step), "adam-" profile, NULL, cap, {"amsgrad", "maximize"},         \
     {OC_CAP_ADAM_AMSGRAD, OC_CAP_ADAM_MAXIMIZE}}
#define SGD(profile, cap)                                                                       \
    {offsetof(oc_impl, sgd_step), "sgd-" profile, NULL, cap, {"nesterov", "maximize"},          \
     {OC_CAP_SGD_NESTEROV, OC_CAP_SGD_MAXIMIZE}}
#define MIXED(base)                                                                             \
    {offsetof(oc_impl, mixed_step), base "-mixed", NULL, 0, {"bf16", "f16", "bf16-state"},      \
     {OC_CAP_MIXED_BF16, OC_CAP_MIXED_F16, OC_CAP_MIXED_STATE_BF16}}
#define PLAIN(name, field, cap) {offsetof(oc_impl, field), name, NULL, cap, {NULL}, {0}}
#define EVERY(algorithm, field, cap) {offsetof(oc_impl, field), NULL, algorithm, cap, {NULL}, {0}}

static const v2_row v2_rows[] = {
    ADAM("torch", OC_CAP_ADAM_TORCH),
    ADAM("optax", OC_CAP_ADAM_OPTAX),
    ADAM("paper", OC_CAP_ADAM_PAPER),
    ADAM("keras", OC_CAP_ADAM_KERAS),
    SGD("torch", OC_CAP_SGD_TORCH),
    SGD("ema", OC_CAP_SGD_EMA),
    PLAIN("lion-torch", lion_step, OC_CAP_LION_TORCH),
    MIXED("adam-torch"),
    MIXED("sgd-torch"),
    MIXED("lion-torch"),
    PLAIN("schedule-megatron", schedule_eval, OC_CAP_SCHEDULE_MEGATRON),
    PLAIN("loss-scale-megatron", loss_scale_update, OC_CAP_LOSS_SCALE_MEGATRON),
    PLAIN("loss-scale-megatron-constant", loss_scale_update, OC_CAP_LOSS_SCALE_MEGATRON_CONSTANT),
    PLAIN("loss-scale-torch", loss_scale_update, OC_CAP_LOSS_SCALE_TORCH),
    PLAIN("clip-megatron", clip_step, OC_CAP_CLIP_MEGATRON),
    PLAIN("clip-torch", clip_step, OC_CAP_CLIP_TORCH),
    EVERY("newton-schulz", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    EVERY("muon", muon_step, OC_CAP_MUON),
    EVERY("muon-blocks", muon_block_step, OC_CAP_MUON_BLOCKS),
    EVERY("muon-route", routed_step, OC_CAP_MUON_ROUTE),
    PLAIN("muonclip-kimi", muon_clip, OC_CAP_MUON_CLIP),
    PLAIN("muonclip-megatron", muon_clip, OC_CAP_MUON_CLIP),
    PLAIN("muonclip-kimi-mla", muon_clip, OC_CAP_MUON_CLIP | OC_CAP_MUON_CLIP_MLA),
    {offsetof(oc_impl, guarded_step), "guarded-step-megatron", NULL, 0,
     {"scaled", "unchecked", "checked"},
     {OC_CAP_STEP_SCALED, OC_CAP_STEP_UNCHECKED, OC_CAP_STEP_CHECKED}},
};

uint64_t oc_abi2_later_caps(const oc_impl *v2)
{
    return v2->capabilities & (OC_CAP_TE_STORAGE | OC_CAP_RESUME | OC_CAP_ADAFACTOR);
}

/* Lists `family` with the row's entry and the options v2's bits claim. */
static void add(const oc_impl *v2, const v2_row *row, const char *family, oc_abi2_families *out)
{
    size_t i = out->table.nfamilies++;
    uint64_t bits = 0;
    for (int o = 0; o < OC_MAX_OPTIONS; o++)
        bits |= (v2->capabilities & row->option_caps[o]) ? 1ull << o : 0;
    oc_options_join(row->options, bits, out->options[i], sizeof out->options[i]);
    out->entries[i].family = family;
    out->entries[i].options = out->options[i];
    memcpy(&out->entries[i].entry, (const char *)v2 + row->slot, sizeof out->entries[i].entry);
}

void oc_abi2_translate(const oc_impl *v2, oc_abi2_families *out)
{
    memset(out, 0, sizeof *out);
    out->table = (oc_impl_v3){.abi_version = v2->abi_version, .name = v2->name,
                              .version = v2->version, .ctx = v2->ctx,
                              .families = out->entries};
    for (size_t r = 0; r < sizeof v2_rows / sizeof *v2_rows; r++) {
        const v2_row *row = &v2_rows[r];
        oc_entry_point entry;
        memcpy(&entry, (const char *)v2 + row->slot, sizeof entry);
        if (!entry || (v2->capabilities & row->caps) != row->caps)
            continue;
        for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++) {
            const oc_known_family *f = &oc_known_families[k];
            if (row->family ? strcmp(f->name, row->family) == 0
                            : strcmp(f->algorithm, row->algorithm) == 0)
                add(v2, row, f->name, out);
        }
    }
}
