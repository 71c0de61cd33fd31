/* libFuzzer harness: a v2 implementation table (include/optcert/impl.h) with fuzzed fields, as
 * the plugin loader would get it from optcert_impl_v1() (no dlopen): ABI version, name and
 * version strings, capability word, which entry points are NULL, and what the entry points
 * return (any int, statuses outside oc_status included) and write into their first output.
 * The table goes through oc_impl_check and, if accepted, the frozen v2 translation
 * (VEC-ABI-4), with the families no v2 table can claim (added after ABI v3) listed as a v3
 * table lists them, then oc_certify_case on every case of the small families of
 * conformance/fuzz/families. The entry points are the stubs of stubs/ (fuzz_stub.h), found by
 * algorithm: a new algorithm adds its stub's file, nothing here.
 * Input: u64 capabilities, u32 abi_version, u32 entry-point mask (bits 0-12: the v2 slots
 * adam_step .. routed_step; bits 13-31: the v3-only families, the registry's k-th family on
 * bit 13 + k % 19), u8 flags (bit 0: name NULL, bit 1: version NULL, bit 2: stubs write their
 * first output), u8 family (which family of conformance/fuzz/families, in their sorted order,
 * the cases come from, modulo their number: a whole byte, so every family is reached), then
 * bytes the stubs consume in turn (returned status: the byte as a signed char; written
 * values). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "abi3.h"
#include "certify.h"
#include "fuzz_common.h"
#include "fuzz_stub_registry.h"

static const uint8_t *bytes;
static size_t nbytes, pos;
static int write_out;

uint8_t oc_fuzz_next(void) { return nbytes ? bytes[pos++ % nbytes] : 0; }
oc_status oc_fuzz_ret(void) { return (oc_status)(signed char)oc_fuzz_next(); }
int oc_fuzz_writes(void) { return write_out; }
void oc_fuzz_fill(float *p, size_t n)
{
    if (!write_out || !p)
        return;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)oc_fuzz_next() << 24 | (uint32_t)oc_fuzz_next() << 16 |
                     oc_fuzz_next();
        memcpy(&p[i], &u, sizeof u);
    }
}

/* The stub serving `algorithm` (or OC_FUZZ_MIXED, OC_FUZZ_RESUME); NULL if stubs/ has none. */
static oc_entry_point stub(const char *algorithm)
{
    for (size_t k = 0; k < OC_FUZZ_NSTUBS; k++)
        if (strcmp(oc_fuzz_stubs[k]->algorithm, algorithm) == 0)
            return oc_fuzz_stubs[k]->entry;
    return NULL;
}

/* A v2 table with the stubs in the slots whose bit of mask is set: the frozen v2 layout
 * (VEC-ABI-4), which no new algorithm extends. */
static oc_impl v2_table(uint32_t mask)
{
#define SLOT(bit, T, algorithm) (mask >> (bit) & 1 ? (T)stub(algorithm) : NULL)
    return (oc_impl){
        .adam_step = SLOT(0, oc_adam_step_fn, "adam"),
        .sgd_step = SLOT(1, oc_sgd_step_fn, "sgd"),
        .lion_step = SLOT(2, oc_lion_step_fn, "lion"),
        .schedule_eval = SLOT(3, oc_schedule_eval_fn, "schedule"),
        .mixed_step = SLOT(4, oc_mixed_step_fn, OC_FUZZ_MIXED),
        .loss_scale_update = SLOT(5, oc_loss_scale_update_fn, "loss-scale"),
        .clip_step = SLOT(6, oc_clip_step_fn, "clip"),
        .newton_schulz = SLOT(7, oc_newton_schulz_fn, "newton-schulz"),
        .muon_step = SLOT(8, oc_muon_step_fn, "muon"),
        .guarded_step = SLOT(9, oc_guarded_step_fn, "guarded-step"),
        .muon_clip = SLOT(10, oc_muon_clip_fn, "muonclip"),
        .muon_block_step = SLOT(11, oc_muon_block_step_fn, "muon-blocks"),
        .routed_step = SLOT(12, oc_routed_step_fn, "muon-route"),
    };
#undef SLOT
}

/* Whether a v2 table can claim the registry's k-th family: what a table with every slot and
 * every v2 capability claims (the families added after ABI v3 are v3-only). */
static int v2_claimable[OC_NKNOWN_FAMILIES];

static void find_v2_claimable(void)
{
    oc_impl full = v2_table(~0u);
    full.abi_version = OC_IMPL_ABI_VERSION;
    full.capabilities = ~(OC_CAP_TE_STORAGE | OC_CAP_RESUME | OC_CAP_ADAFACTOR);
    static oc_abi2_families t;
    oc_abi2_translate(&full, &t);
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++)
        for (size_t i = 0; i < t.table.nfamilies; i++)
            v2_claimable[k] |= strcmp(t.entries[i].family, oc_known_families[k].name) == 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    oc_fuzz_load_families();
    find_v2_claimable();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 18)
        return 0;
    uint64_t caps;
    uint32_t abi, mask;
    memcpy(&caps, data, 8);
    memcpy(&abi, data + 8, 4);
    memcpy(&mask, data + 12, 4);
    uint8_t flags = data[16], family = data[17];
    bytes = data + 18, nbytes = size - 18, pos = 0, write_out = flags & 4;
    char name[64], version[64];
    size_t k = nbytes < sizeof name - 1 ? nbytes : sizeof name - 1;
    memcpy(name, bytes, k), name[k] = '\0';
    memcpy(version, bytes, k), version[k] = '\0';
    oc_impl impl = v2_table(mask);
    impl.abi_version = abi;
    impl.name = flags & 1 ? NULL : name;
    impl.version = flags & 2 ? NULL : version;
    impl.capabilities = caps;
    oc_diag d;
    if (oc_impl_check(&impl, &d) != OC_OK)
        return 0;
    oc_abi2_families t;
    oc_abi2_translate(&impl, &t);
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++) { /* the v3-only families */
        const oc_known_family *f = &oc_known_families[k];
        char base[128];
        int resume, mixed;
        oc_family_base(f->name, base, sizeof base, &resume, &mixed);
        oc_entry_point e = stub(resume ? OC_FUZZ_RESUME : mixed ? OC_FUZZ_MIXED : f->algorithm);
        if (!v2_claimable[k] && e && (mask >> (13 + k % 19) & 1))
            t.entries[t.table.nfamilies++] = (oc_family_entry){f->name, NULL, e};
    }
    oc_family_report fr;
    {
        size_t f = family % oc_fuzz_nfams;
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
