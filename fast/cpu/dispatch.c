/* FAST-ISA-1: the kernels of the best instruction set the CPU supports, chosen once at run
 * time (or forced by OPTCERT_FAST_ISA / oc_fast_isa_select for tests and benchmarks). */
#include <stdlib.h>
#include <string.h>
#include "optcert/fast.h"
#include "internal.h"

static const char *const isa_names[OC_FAST_ISA_COUNT] = {"portable", "avx2", "avx512"};
static const oc_fast_kernels *const tables[OC_FAST_ISA_COUNT] = {
    &oc_fast_kernels_portable, &oc_fast_kernels_avx2, &oc_fast_kernels_avx512};
static int selected = -1; /* -1: not chosen yet */

const char *oc_fast_isa_name(oc_fast_isa isa)
{
    return (unsigned)isa < OC_FAST_ISA_COUNT ? isa_names[isa] : NULL;
}

static int supported(oc_fast_isa isa)
{
    __builtin_cpu_init();
    switch (isa) {
    case OC_FAST_ISA_PORTABLE:
        return 1;
    case OC_FAST_ISA_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("f16c");
    case OC_FAST_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    default:
        return 0;
    }
}

oc_status oc_fast_isa_select(oc_fast_isa isa)
{
    if (!supported(isa))
        return OC_ERR_UNSUPPORTED;
    selected = (int)isa;
    return OC_OK;
}

oc_fast_isa oc_fast_isa_active(void)
{
    if (selected < 0) {
        const char *want = getenv("OPTCERT_FAST_ISA");
        int best = OC_FAST_ISA_PORTABLE;
        for (int i = OC_FAST_ISA_COUNT - 1; i > 0 && best == OC_FAST_ISA_PORTABLE; i--)
            if (supported((oc_fast_isa)i))
                best = i;
        for (int i = 0; want && i < OC_FAST_ISA_COUNT; i++)
            if (strcmp(want, isa_names[i]) == 0 && supported((oc_fast_isa)i))
                best = i;
        selected = best;
    }
    return (oc_fast_isa)selected;
}

const oc_fast_kernels *oc_fast_kernels_active(void) { return tables[oc_fast_isa_active()]; }
