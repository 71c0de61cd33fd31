/* Hostile wrappers of the fast CPU backend (FAST_CPU_PLUGIN, loaded with dlopen; both are plugin
 * ABI v3 tables): the backend's table with the entry of each family a file of wrap/ wraps
 * replaced by that wrapper (hostile_wrap.h; the build lists them in hostile_wrap_registry.h).
 * hostile_run.sh reads the certificate lines each file expects from the file's comment. */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include "hostile_wrap_registry.h"

static const oc_impl_v3 *fast(void)
{
    static const oc_impl_v3 *impl;
    if (!impl) {
        void *h = dlopen(FAST_CPU_PLUGIN, RTLD_NOW | RTLD_LOCAL);
        oc_impl_v3_entry_fn entry = NULL;
        if (h)
            *(void **)&entry = dlsym(h, OC_IMPL_V3_ENTRY_SYMBOL);
        impl = entry ? entry() : NULL;
    }
    return impl;
}

oc_entry_point hostile_fast_entry(const char *family)
{
    for (size_t i = 0; i < fast()->nfamilies; i++)
        if (strcmp(fast()->families[i].family, family) == 0)
            return fast()->families[i].entry;
    return NULL;
}

int hostile_first(int *calls) { return (*calls)++ == 0; }

/* The backend's table with the wrapped families replaced. */
const oc_impl_v3 *optcert_impl_v3(void)
{
    static oc_family_entry families[64];
    static oc_impl_v3 table;
    if (!fast() || fast()->nfamilies > 64)
        return NULL;
    table = *fast();
    table.name = "hostile-wrap";
    memcpy(families, fast()->families, fast()->nfamilies * sizeof *families);
    for (size_t i = 0; i < table.nfamilies; i++)
        for (size_t k = 0; k < HOSTILE_NWRAPS; k++)
            if (strcmp(families[i].family, hostile_wraps[k]->family) == 0)
                families[i].entry = hostile_wraps[k]->entry;
    table.families = families;
    return &table;
}
