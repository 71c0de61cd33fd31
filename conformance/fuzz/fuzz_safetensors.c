/* libFuzzer harness: the safetensors reader (conformance/src/safetensors.c) on any bytes:
 * open, then read every entry the header names in each dtype and in the shapes it claims. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    oc_st_file f;
    oc_diag d;
    if (oc_st_open_mem("fuzz.safetensors", data, size, &f, &d) != OC_OK)
        return 0;
    const char *key;
    json_t *e;
    (void)oc_st_metadata(&f, "impl");
    json_object_foreach(f.header, key, e) {
        json_t *shape = json_object_get(e, "shape");
        size_t nd = json_array_size(shape);
        json_int_t r = nd == 2 ? json_integer_value(json_array_get(shape, 0)) : 1;
        json_int_t c = json_integer_value(json_array_get(shape, nd == 2 ? 1 : 0));
        for (int dt = OC_F32; dt <= OC_F16; dt++) {
            void *out = NULL;
            if (oc_st_tensor(&f, key, (oc_dtype)dt, (size_t)r, (size_t)c, &out, &d) == OC_OK)
                free(out);
        }
        static const oc_format fmts[] = {OC_FMT_F32, OC_FMT_BF16, OC_FMT_F16};
        for (int k = 0; k < 3; k++) {
            double *w = NULL;
            if (oc_st_tensor_widened(&f, key, fmts[k], (size_t)r, (size_t)c, &w, &d) == OC_OK)
                free(w);
        }
        /* a shape the entry does not have */
        void *out = NULL;
        if (oc_st_tensor(&f, key, OC_F32, 1, (size_t)c + 1, &out, &d) == OC_OK)
            free(out);
    }
    oc_st_close(&f);
    return 0;
}
