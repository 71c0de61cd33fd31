/* The fast CPU backend behind the implementation ABI (include/optcert/impl.h), so that
 * `optcert certify --impl fast-cpu` judges it against every vector family. Each algorithm's
 * entry point is declared in the backend's file of that algorithm (`const oc_fast_algorithm`,
 * listed by cmake/registry.cmake in fast_cpu_registry.h); here are the entries of the mixed
 * precision and resume families, which every element-wise algorithm has. */
#include <stdio.h>
#include "optcert/fast.h"
#include "fast_cpu_registry.h"
#include "internal.h"

static oc_status fast_mixed(void *ctx, oc_algorithm alg, const void *hp, const oc_storage *s,
                            int64_t step, size_t n, void *param, float *master,
                            void *const *state, const float *g)
{
    (void)ctx;
    return oc_fast_mixed_step(alg, hp, s, step, n, param, master, state, g);
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

/* The Newton-Schulz precision of the plugin: OPTCERT_FAST_NS (FAST-NS-2), read once at load;
 * the table's ctx, which the Newton-Schulz and Muon entry points read. */
static oc_fast_ns_precision ns_precision;

static oc_impl_v3 fast_cpu = {
    .abi_version = OC_IMPL_ABI_V3,
    .name = "optcert-fast-cpu",
    .ctx = &ns_precision,
};

/* The certificate names the kernels that ran (FAST-ISA-1) and the Newton-Schulz precision.
 * Every family of the vector set whose algorithm the backend implements is claimed but, in the
 * bf16 mode, newton-schulz-cans (NS-PROF-CANS: a bf16 Newton-Schulz diverges on it, its tuples
 * amplify anything past 2); the fp32 mode claims every family. */
const oc_impl_v3 *optcert_impl_v3(void)
{
    static char version[160];
    ns_precision = oc_fast_ns_precision_active();
    oc_fast_backend cpu = {
        .algorithms = oc_fast_cpu_algorithms,
        .nalgorithms = OC_FAST_CPU_NALGORITHMS,
        .mixed = (oc_entry_point)fast_mixed,
        .state_io = (oc_entry_point)fast_state_io,
        .unclaimed = ns_precision == OC_FAST_NS_BF16 ? "newton-schulz-cans" : NULL,
    };
    oc_fast_list_families(&cpu, &fast_cpu);
    const char *bf16_products = oc_fast_bf16_matmul_native(); /* FAST-NS-6 */
    snprintf(version, sizeof version, "1 (multi-tensor, OpenMP, %s kernels, %s Newton-Schulz%s%s)",
             oc_fast_isa_name(oc_fast_isa_active()), oc_fast_ns_precision_name(ns_precision),
             ns_precision != OC_FAST_NS_BF16 ? "" : bf16_products ? " on oneDNN " : " on SGEMM",
             ns_precision == OC_FAST_NS_BF16 && bf16_products ? bf16_products : "");
    fast_cpu.version = version;
    return &fast_cpu;
}
