/* libFuzzer harness: the vector loader (conformance/src/vectors.c and the algorithms' parsers)
 * on a family JSON and its tensors file, then the reference certified on every case loaded.
 * Input: a 4-byte little-endian length L, L bytes of family JSON, the rest the tensors file
 * (written as t.safetensors next to the JSON; make_corpus.py writes the seeds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "judge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    size_t len = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 |
                 (size_t)data[3] << 24;
    if (len > size - 4)
        len = size - 4;
    if (!oc_fuzz_write("t.safetensors", data + 4 + len, size - 4 - len))
        abort();
    const char *path = oc_fuzz_write("family.json", data + 4, len);
    if (!path)
        abort();
    oc_family fam;
    oc_diag d;
    if (oc_family_load(path, &fam, &d) != OC_OK)
        return 0;
    oc_fuzz_keep_mutant_runs(&fam); /* both classes' diagnoses of a case share its mutants' runs */
    for (size_t i = 0; i < fam.ncases; i++)
        for (int cls = OC_CLASS_EXACT; cls <= OC_CLASS_BF16; cls += 3) {
            oc_case_result r;
            oc_certify_case(oc_ref(), &fam.cases[i], (oc_class)cls, &r);
        }
    oc_family_free(&fam);
    return 0;
}
