/* Plugin ABI v3 (VEC-ABI-1, VEC-ABI-2): the checks of a family list and the lookups the
 * harness runs a case by. The families are the registry's (families_registry.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "abi3.h"

#define MAX_FAMILIES 1024
#define MAX_OPTIONS_LEN 256

const oc_known_family *oc_known_family_find(const char *family)
{
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++)
        if (strcmp(oc_known_families[k].name, family) == 0)
            return &oc_known_families[k];
    return NULL;
}

/* VEC-NAME-1: the families renamed to follow the naming rule (2026-12-02), old name -> new. */
static const struct {
    const char *old, *now;
} renamed[] = {
    {"step-megatron", "guarded-step-megatron"},
    {"muon-split-qkv", "muon-blocks-megatron-qkv"},
    {"muon-tp-blockwise", "muon-blocks-megatron-tp"},
    {"muon-adamw-route", "muon-route-megatron"},
    {"ns-aol", "newton-schulz-aol"},
    {"ns-cans", "newton-schulz-cans"},
    {"ns-cubic5", "newton-schulz-cubic5"},
    {"ns-deepseekv4", "newton-schulz-deepseekv4"},
    {"ns-polar-express", "newton-schulz-polar-express"},
    {"ns-polar-express-safety", "newton-schulz-polar-express-safety"},
    {"ns-quintic", "newton-schulz-quintic"},
    {"ns-simple", "newton-schulz-simple"},
};

const char *oc_family_renamed(const char *family)
{
    for (size_t i = 0; i < sizeof renamed / sizeof *renamed; i++)
        if (strcmp(renamed[i].old, family) == 0)
            return renamed[i].now;
    return NULL;
}

const oc_family_entry *oc_abi3_find(const oc_impl_v3 *t, const char *family)
{
    for (size_t i = 0; i < t->nfamilies; i++)
        if (t->families[i].family && strcmp(t->families[i].family, family) == 0)
            return &t->families[i];
    return NULL;
}

void oc_family_base(const char *family, char *base, size_t len, int *resume, int *mixed)
{
    static const char prefix[] = "resume-", suffix[] = "-mixed";
    const size_t np = sizeof prefix - 1, ns = sizeof suffix - 1;
    *resume = strncmp(family, prefix, np) == 0;
    snprintf(base, len, "%s", family + (*resume ? np : 0));
    size_t n = strlen(base);
    *mixed = n > ns && strcmp(base + n - ns, suffix) == 0;
    if (*mixed)
        base[n - ns] = '\0';
}

const char *const *oc_family_options(const char *family)
{
    static const char *const none[OC_MAX_OPTIONS] = {NULL};
    /* the storage combinations of spec/mixed.md MP-COMB-1 */
    static const char *const storage[OC_MAX_OPTIONS] = {"bf16", "f16", "bf16-state"};
    const oc_known_family *k = oc_known_family_find(family);
    const oc_algo *a = k ? oc_algo_find(k->algorithm) : NULL;
    char base[128];
    int resume, mixed;
    oc_family_base(family, base, sizeof base, &resume, &mixed);
    if (resume || !a)
        return none;
    return mixed ? storage : a->options;
}

/* The length of the first option of `options` that `family` does not have (at *bad); 0 if
 * every one is the family's. */
static size_t unknown_option(const char *family, const char *options, const char **bad)
{
    const char *const *allowed = oc_family_options(family);
    for (const char *p = options ? options : ""; *p;) {
        size_t len = strcspn(p, " ");
        int found = len == 0;
        for (int o = 0; o < OC_MAX_OPTIONS && allowed[o] && !found; o++)
            found = strlen(allowed[o]) == len && strncmp(allowed[o], p, len) == 0;
        if (!found) {
            *bad = p;
            return len;
        }
        p += len + (p[len] == ' ');
    }
    return 0;
}

void oc_options_join(const char *const *options, uint64_t bits, char *out, size_t len)
{
    out[0] = '\0';
    for (int o = 0; o < OC_MAX_OPTIONS && options[o]; o++)
        if (bits & (1ull << o))
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", options[o]);
}

int oc_abi3_has_option(const char *options, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = options ? options : ""; *p;) {
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (p[len] == ' ');
    }
    return 0;
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
        const char *bad = NULL;
        size_t badlen;
        if (e->family && oc_family_renamed(e->family))
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table's family %zu is '%s': renamed '%s' "
                           "(VEC-NAME-1)", i, e->family, oc_family_renamed(e->family));
        if (!e->family || !oc_known_family_find(e->family))
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table's family %zu is %s%.64s%s: not a family "
                           "optcert knows (optcert families)", i, e->family ? "'" : "",
                           e->family ? e->family : "NULL", e->family ? "'" : "");
        if (oc_abi3_find(t, e->family) != e)
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table lists family '%s' twice", e->family);
        if (!e->entry)
            return oc_fail(d, OC_ERR_NULL_POINTER, "the v3 table's family '%s' has no entry point",
                           e->family);
        if (e->options && strnlen(e->options, MAX_OPTIONS_LEN + 1) > MAX_OPTIONS_LEN)
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table's family '%s' has options longer "
                           "than %d characters", e->family, MAX_OPTIONS_LEN);
        if ((badlen = unknown_option(e->family, e->options, &bad)) != 0)
            return oc_fail(d, OC_ERR_FORMAT, "the v3 table's family '%s' lists option '%.*s', "
                           "which it does not have (VEC-ABI-2)", e->family,
                           (int)(badlen > 64 ? 64 : badlen), bad);
    }
    return OC_OK;
}
