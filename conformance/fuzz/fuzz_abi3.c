/* libFuzzer harness: a plugin ABI v3 table (include/optcert/impl.h, VEC-ABI-1, -2) built from
 * the input, as the loader would get it from optcert_impl_v3() (no dlopen), through
 * oc_abi3_check and, if accepted, oc_impl_runner (the entries a case runs on) for every case of
 * the small families of conformance/fuzz/families.
 * Input: u8 abi_version, u8 flags (bit 0: name NULL, bit 1: version NULL, bit 2: families NULL),
 * u8 entry count (0 .. 255), then per entry: u8 flags (bit 0: family NULL, bit 1: family name
 * from the input, else names[selector], bit 2: options NULL, bit 3: entry NULL), u8 selector,
 * u8 family length, u8 options length, then the family name and options bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "abi3.h"
#include "fuzz_common.h"
#include "judge.h"

static const char *const names[] = {"adam-torch", "adam-torch-mixed", "sgd-ema",
                                    "guarded-step-megatron", "clip-torch", "muonclip-kimi-mla"};

static void stub(void) {}

/* n bytes of the input as a NUL-terminated string (NULs inside kept: they end it early). */
static char *take(const uint8_t **p, const uint8_t *end, size_t n)
{
    size_t k = (size_t)(end - *p) < n ? (size_t)(end - *p) : n;
    char *s = malloc(k + 1);
    memcpy(s, *p, k);
    s[k] = '\0';
    *p += k;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    const uint8_t *p = data + 3, *end = data + size;
    size_t n = data[2];
    oc_family_entry *e = calloc(n + 1, sizeof *e);
    char **owned = calloc(2 * n + 1, sizeof *owned);
    for (size_t i = 0; i < n && end - p >= 4; i++) {
        uint8_t f = p[0], sel = p[1], flen = p[2], olen = p[3];
        p += 4;
        owned[2 * i] = take(&p, end, flen);
        owned[2 * i + 1] = take(&p, end, olen);
        e[i].family = f & 1 ? NULL : f & 2 ? owned[2 * i] : names[sel % (sizeof names / sizeof *names)];
        e[i].options = f & 4 ? NULL : owned[2 * i + 1];
        e[i].entry = f & 8 ? NULL : stub;
    }
    oc_impl_v3 t = {data[0], data[1] & 1 ? NULL : "fuzz", data[1] & 2 ? NULL : "0", NULL, n,
                    data[1] & 4 ? NULL : e};
    oc_diag d;
    if (oc_abi3_check(&t, &d) == OC_OK) {
        oc_runner r;
        for (size_t f = 0; f < oc_fuzz_nfams; f++)
            for (size_t i = 0; i < oc_fuzz_fams[f].ncases; i++)
                oc_impl_runner(&t, &oc_fuzz_fams[f].cases[i], &r);
    }
    for (size_t i = 0; i < 2 * n; i++)
        free(owned[i]);
    free(owned);
    free(e);
    return 0;
}
