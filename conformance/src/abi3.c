/* Plugin ABI v3 (VEC-ABI-1, VEC-ABI-2): family names and options to the v2 table. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "abi3.h"

typedef struct option {
    const char *name;
    uint64_t cap;
} option;

/* What listing a family claims: the v2 slot its entry fills, the capabilities its name claims,
 * and the options it may list. */
typedef struct known_family {
    const char *name;
    size_t slot; /* offsetof(oc_impl, <entry point>) */
    uint64_t caps;
    option options[3];
} known_family;

#define ADAM(profile, cap)                                                                      \
    {"adam-" profile, offsetof(oc_impl, adam_step), cap,                                        \
     {{"amsgrad", OC_CAP_ADAM_AMSGRAD}, {"maximize", OC_CAP_ADAM_MAXIMIZE}}}
#define SGD(profile, cap)                                                                       \
    {"sgd-" profile, offsetof(oc_impl, sgd_step), cap,                                          \
     {{"nesterov", OC_CAP_SGD_NESTEROV}, {"maximize", OC_CAP_SGD_MAXIMIZE}}}
#define MIXED(base)                                                                             \
    {base "-mixed", offsetof(oc_impl, mixed_step), 0,                                          \
     {{"bf16", OC_CAP_MIXED_BF16}, {"f16", OC_CAP_MIXED_F16}, {"bf16-state", OC_CAP_MIXED_STATE_BF16}}}
#define PLAIN(name, field, cap) {name, offsetof(oc_impl, field), cap, {{NULL, 0}}}

static const known_family known[] = {
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
    PLAIN("ns-simple", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    PLAIN("ns-quintic", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    PLAIN("ns-polar-express", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    PLAIN("ns-polar-express-safety", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    PLAIN("ns-aol", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    PLAIN("ns-cans", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    PLAIN("ns-deepseekv4", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    PLAIN("ns-cubic5", newton_schulz, OC_CAP_NEWTON_SCHULZ),
    PLAIN("muon-keller", muon_step, OC_CAP_MUON),
    PLAIN("muon-megatron", muon_step, OC_CAP_MUON),
    PLAIN("muon-moonlight", muon_step, OC_CAP_MUON),
    PLAIN("muon-split-qkv", muon_block_step, OC_CAP_MUON_BLOCKS),
    PLAIN("muon-tp-blockwise", muon_block_step, OC_CAP_MUON_BLOCKS),
    PLAIN("muon-adamw-route", routed_step, OC_CAP_MUON_ROUTE),
    PLAIN("muonclip-kimi", qk_clip, OC_CAP_QK_CLIP),
    PLAIN("te-storage-fusedadam", te_storage, OC_CAP_TE_STORAGE),
    PLAIN("adafactor-paper", adafactor_step, OC_CAP_ADAFACTOR),
    PLAIN("adafactor-torch", adafactor_step, OC_CAP_ADAFACTOR),
    PLAIN("adafactor-transformers", adafactor_step, OC_CAP_ADAFACTOR),
    PLAIN("adafactor-optax", adafactor_step, OC_CAP_ADAFACTOR),
    PLAIN("muonclip-megatron", qk_clip, OC_CAP_QK_CLIP),
    PLAIN("muonclip-kimi-mla", qk_clip, OC_CAP_QK_CLIP | OC_CAP_QK_CLIP_MLA),
    PLAIN("resume-adam-torch", state_io, OC_CAP_RESUME),
    PLAIN("resume-adam-torch-mixed", state_io, OC_CAP_RESUME),
    PLAIN("resume-sgd-torch", state_io, OC_CAP_RESUME),
    PLAIN("resume-loss-scale-megatron", state_io, OC_CAP_RESUME),
    PLAIN("resume-loss-scale-megatron-constant", state_io, OC_CAP_RESUME),
    PLAIN("resume-loss-scale-torch", state_io, OC_CAP_RESUME),
    {"step-megatron", offsetof(oc_impl, guarded_step), 0,
     {{"scaled", OC_CAP_STEP_SCALED}, {"unchecked", OC_CAP_STEP_UNCHECKED},
      {"checked", OC_CAP_STEP_CHECKED}}},
};

#define NKNOWN (sizeof known / sizeof *known)
#define MAX_FAMILIES 1024
#define MAX_OPTIONS_LEN 256

static const known_family *find_known(const char *name)
{
    for (size_t k = 0; k < NKNOWN; k++)
        if (strcmp(known[k].name, name) == 0)
            return &known[k];
    return NULL;
}

static const oc_family_entry *find_entry(const oc_impl_v3 *t, const char *name)
{
    for (size_t i = 0; i < t->nfamilies; i++)
        if (strcmp(t->families[i].family, name) == 0)
            return &t->families[i];
    return NULL;
}

/* The capabilities the options string claims; 0 with the unknown option in *bad (its length in
 * *badlen) if one is not the family's. */
static uint64_t option_caps(const known_family *k, const char *options, const char **bad,
                            size_t *badlen)
{
    uint64_t caps = 0;
    *bad = NULL;
    for (const char *p = options ? options : ""; *p;) {
        size_t len = strcspn(p, " ");
        int found = 0;
        for (int o = 0; o < 3 && k->options[o].name && len; o++)
            if (strlen(k->options[o].name) == len && strncmp(k->options[o].name, p, len) == 0) {
                caps |= k->options[o].cap;
                found = 1;
            }
        if (len && !found) {
            *bad = p;
            *badlen = len;
            return 0;
        }
        p += len + (p[len] == ' ');
    }
    return caps;
}

oc_status oc_abi3_check(const oc_impl_v3 *t, oc_diag *d)
{
    if (t->abi_version != OC_IMPL_ABI_V3)
        return oc_fail(d, OC_ERR_UNSUPPORTED, "%s() gave a table of ABI version %u, not %u",
                       OC_IMPL_V3_ENTRY_SYMBOL, t->abi_version, OC_IMPL_ABI_V3);
    if (!t->name || !t->version)
        return oc_fail(d, OC_ERR_FORMAT, "the v3 table has no name or no version");
    if (t->nfamilies < 1 || t->nfamilies > MAX_FAMILIES || !t->families)
        return oc_fail(d, OC_ERR_FORMAT, "the v3 table lists %zu families (1 to %d, in a list)",
                       t->nfamilies, MAX_FAMILIES);
    for (size_t i = 0; i < t->nfamilies; i++) {
        const oc_family_entry *e = &t->families[i];
        const known_family *k = e->family ? find_known(e->family) : NULL;
        const char *bad;
        size_t badlen = 0;
        if (!k)
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table's family %zu is %s%.64s%s: not a family "
                           "optcert knows (optcert families)", i, e->family ? "'" : "",
                           e->family ? e->family : "NULL", e->family ? "'" : "");
        if (find_entry(t, e->family) != e)
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table lists family '%s' twice", e->family);
        if (!e->entry)
            return oc_fail(d, OC_ERR_NULL_POINTER, "the v3 table's family '%s' has no entry point",
                           e->family);
        if (e->options && strnlen(e->options, MAX_OPTIONS_LEN + 1) > MAX_OPTIONS_LEN)
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table's family '%s' has options longer "
                           "than %d characters", e->family, MAX_OPTIONS_LEN);
        option_caps(k, e->options, &bad, &badlen);
        if (bad)
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table's family '%s' lists option '%.*s', "
                           "which it does not have (VEC-ABI-2)", e->family, (int)(badlen > 64 ? 64 : badlen),
                           bad);
    }
    return OC_OK;
}

/* Fills the slot and capabilities one listed family gives. */
static void add_family(const oc_family_entry *e, oc_impl *out)
{
    const known_family *k = find_known(e->family);
    const char *bad;
    size_t badlen;
    memcpy((char *)out + k->slot, &e->entry, sizeof e->entry); /* the entry's own type */
    out->capabilities |= k->caps | option_caps(k, e->options, &bad, &badlen);
}

/* Adds the listed family `family` and the families it runs on: a "resume-" family's steps
 * use the family without the prefix (VEC-ABI-3), a "-mixed" family's fp32 cases the family
 * without the suffix (VEC-ABI-1). */
static void add_with_bases(const oc_impl_v3 *t, const char *family, oc_impl *out)
{
    static const char resume[] = "resume-";
    const oc_family_entry *e = find_entry(t, family);
    if (!e)
        return;
    add_family(e, out);
    size_t len = strlen(family);
    char base[128];
    if (strncmp(family, resume, sizeof resume - 1) == 0)
        add_with_bases(t, family + sizeof resume - 1, out);
    else if (len > 6 && strcmp(family + len - 6, "-mixed") == 0) {
        snprintf(base, sizeof base, "%.*s", (int)(len - 6), family);
        add_with_bases(t, base, out);
    }
}

void oc_abi3_table(const oc_impl_v3 *t, const char *family, oc_impl *out)
{
    *out = (oc_impl){.abi_version = OC_IMPL_ABI_VERSION, .name = t->name,
                     .version = t->version, .ctx = t->ctx};
    add_with_bases(t, family, out);
}
