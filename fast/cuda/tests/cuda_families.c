/* FAST-CUDA-ABI-1 without a device: the CUDA plugin's ABI v3 family list is the one its v2 table
 * claimed before the port, plus every Newton-Schulz family (the entry added since, which the v2
 * bit OC_CAP_NEWTON_SCHULZ with the newton_schulz slot claims). The plugin's own descriptors (oc_fast_cuda_algorithms, read from the
 * built plugin with dlsym, as many as fast_cuda_registry.h counts) are listed by
 * oc_fast_list_families as the plugin's optcert_impl_v3 lists them (no mixed or resume entry);
 * the v2 table (capabilities and slots as fast/cuda/plugin.c exported them) goes through the
 * frozen translation of VEC-ABI-4. Every family must appear in both with the same options.
 * Exit 0 when they agree, 1 (naming the difference) when not, 2 when the plugin cannot be read.
 *   cuda_families PLUGIN.so */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "abi3.h"
#include "fast_cuda_registry.h"

static void stub(void) {}

/* The entry of t listing `family`, or NULL. */
static const oc_family_entry *find(const oc_impl_v3 *t, const char *family)
{
    for (size_t i = 0; i < t->nfamilies; i++)
        if (strcmp(t->families[i].family, family) == 0)
            return &t->families[i];
    return NULL;
}

/* Whether every family of a is in b with the same options; the differences printed. */
static int included(const oc_impl_v3 *a, const char *an, const oc_impl_v3 *b, const char *bn)
{
    int ok = 1;
    for (size_t i = 0; i < a->nfamilies; i++) {
        const oc_family_entry *e = &a->families[i], *f = find(b, e->family);
        const char *ao = e->options ? e->options : "", *bo = f && f->options ? f->options : "";
        if (!f || strcmp(ao, bo) != 0) {
            printf("%s lists %s (options '%s'), %s %s\n", an, e->family, ao, bn,
                   f ? "with other options" : "does not");
            ok = 0;
        }
    }
    return ok;
}

int main(int argc, char **argv)
{
    void *h = argc == 2 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    const oc_fast_algorithm *const *algorithms = h ? dlsym(h, "oc_fast_cuda_algorithms") : NULL;
    if (!algorithms) {
        fprintf(stderr, "usage: cuda_families PLUGIN.so (a plugin with oc_fast_cuda_algorithms)\n");
        return 2;
    }
    oc_fast_backend cuda = {.algorithms = algorithms, .nalgorithms = OC_FAST_CUDA_NALGORITHMS};
    oc_impl_v3 v3 = {0};
    oc_fast_list_families(&cuda, &v3);
    oc_impl v2 = {
        .abi_version = OC_IMPL_ABI_VERSION,
        .capabilities = OC_CAP_ADAM_TORCH | OC_CAP_ADAM_OPTAX | OC_CAP_ADAM_PAPER |
                        OC_CAP_ADAM_KERAS | OC_CAP_ADAM_AMSGRAD | OC_CAP_ADAM_MAXIMIZE |
                        OC_CAP_SGD_TORCH | OC_CAP_SGD_EMA | OC_CAP_SGD_NESTEROV |
                        OC_CAP_SGD_MAXIMIZE | OC_CAP_LION_TORCH | OC_CAP_SCHEDULE_MEGATRON |
                        OC_CAP_NEWTON_SCHULZ,
        .adam_step = (oc_adam_step_fn)stub,
        .sgd_step = (oc_sgd_step_fn)stub,
        .lion_step = (oc_lion_step_fn)stub,
        .schedule_eval = (oc_schedule_eval_fn)stub,
        .newton_schulz = (oc_newton_schulz_fn)stub,
    };
    static oc_abi2_families before;
    oc_abi2_translate(&v2, &before);
    int ok = included(&v3, "v3", &before.table, "v2") & included(&before.table, "v2", &v3, "v3");
    printf("%zu families in the v3 list, %zu in the v2 translation: %s\n", v3.nfamilies,
           before.table.nfamilies, ok ? "the same" : "DIFFERENT");
    size_t ns = 0, listed = 0; /* the entry added since: every newton-schulz-* family on it */
    for (size_t i = 0; i < OC_NKNOWN_FAMILIES; i++)
        if (strcmp(oc_known_families[i].algorithm, "newton-schulz") == 0) {
            const oc_family_entry *e = find(&v3, oc_known_families[i].name);
            ns++;
            listed += e && e->entry;
        }
    printf("%zu of the %zu newton-schulz families listed with an entry point\n", listed, ns);
    ok &= ns > 0 && listed == ns;
    return ok && v3.nfamilies > 0 ? 0 : 1;
}
