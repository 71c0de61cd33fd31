/* The entry-point stubs of fuzz_impl_table.c: each file of stubs/ defines the stub of one
 * algorithm's entry point (or of the "-mixed" or "resume-" families' entry), which returns
 * what the input says (any int, statuses outside oc_status included) and, when the input says
 * so, writes into its first output; it declares it with a descriptor
 * `const oc_fuzz_stub NAME = {...};` at the start of a line, which the build lists
 * (cmake/registry.cmake: fuzz_stub_registry.h). */
#ifndef OPTCERT_FUZZ_STUB_H
#define OPTCERT_FUZZ_STUB_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/impl.h"

/* The stubs' names for the entries of the two kinds of family every element-wise algorithm
 * has, in place of an algorithm. */
#define OC_FUZZ_MIXED "-mixed"
#define OC_FUZZ_RESUME "resume-"

typedef struct oc_fuzz_stub {
    const char *algorithm; /* the vector files' "algorithm", OC_FUZZ_MIXED or OC_FUZZ_RESUME */
    oc_entry_point entry;  /* of the type include/optcert/impl.h gives it, cast */
} oc_fuzz_stub;

/* The input's next byte (cycling; 0 for an empty input). */
uint8_t oc_fuzz_next(void);
/* A status from the input: the next byte as a signed char. */
oc_status oc_fuzz_ret(void);
/* p[0 .. n-1] from the input's bytes, if the input asks the stubs to write (else nothing). */
void oc_fuzz_fill(float *p, size_t n);
/* Whether the input asks the stubs to write their first output. */
int oc_fuzz_writes(void);

#endif
