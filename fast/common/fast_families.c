/* The family list of a fast backend's ABI v3 table (fast_families.h). */
#include <string.h>
#include "fast_families.h"
#include "families_registry.h"

/* The family's entry in b's list; 0 if b does not claim it. */
static int family_entry(const oc_fast_backend *b, const oc_known_family *f, oc_family_entry *out)
{
    static const char resume[] = "resume-", mixed[] = "-mixed";
    size_t len = strlen(f->name), nm = sizeof mixed - 1;
    if (b->unclaimed && strcmp(f->name, b->unclaimed) == 0)
        return 0;
    for (size_t a = 0; a < b->nalgorithms; a++) {
        const oc_fast_algorithm *al = b->algorithms[a];
        if (strcmp(al->algorithm, f->algorithm) != 0)
            continue;
        *out = (oc_family_entry){f->name, al->options, al->entry};
        if (strncmp(f->name, resume, sizeof resume - 1) == 0)
            *out = (oc_family_entry){f->name, NULL, b->state_io};
        else if (len > nm && strcmp(f->name + len - nm, mixed) == 0)
            *out = (oc_family_entry){f->name, "bf16 f16 bf16-state", b->mixed};
        return out->entry != NULL;
    }
    return 0;
}

void oc_fast_list_families(const oc_fast_backend *b, oc_impl_v3 *table)
{
    static oc_family_entry claimed[OC_NKNOWN_FAMILIES];
    size_t n = 0;
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++)
        n += (size_t)family_entry(b, &oc_known_families[k], &claimed[n]);
    table->families = claimed;
    table->nfamilies = n;
}
