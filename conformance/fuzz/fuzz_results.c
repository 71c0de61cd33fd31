/* libFuzzer harness: the results-file reader (what `optcert judge --results` reads): the
 * bytes as a results safetensors file, judged against the small families of
 * conformance/fuzz/families (oc_judge_results' per-case judgement). */
#include <stdint.h>
#include <stdlib.h>
#include "certify.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    oc_fuzz_load_families();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    oc_st_file st;
    oc_diag d;
    if (oc_st_open_mem("results.safetensors", data, size, &st, &d) != OC_OK)
        return 0;
    if (oc_st_metadata(&st, "impl") && oc_st_metadata(&st, "implVersion"))
        for (size_t f = 0; f < oc_fuzz_nfams; f++)
            for (size_t i = 0; i < oc_fuzz_fams[f].ncases; i++) {
                oc_case_result r;
                oc_judge_results_case(&st, &oc_fuzz_fams[f], &oc_fuzz_fams[f].cases[i],
                                      OC_CLASS_FP32, &r);
            }
    oc_st_close(&st);
    return 0;
}
