/* Buffer checks (null, alignment, overlap) used before any state is touched (ADAM-ERR-1).
 * Kept apart from the algorithm files: pointer-to-integer arithmetic is outside the
 * proofs' memory model, so proofs/ use the contracts in buffers.h. */
#include <stdint.h>
#include "optcert/buffers.h"

oc_status oc_buffer_check(const void *buf, size_t n, size_t align)
{
    if (n == 0)
        return OC_OK;
    if (buf == NULL)
        return OC_ERR_NULL_POINTER;
    if (align > 1 && (uintptr_t)buf % align != 0)
        return OC_ERR_MISALIGNED;
    return OC_OK;
}

oc_status oc_buffer_disjoint(const void *a, size_t bytes_a, const void *b, size_t bytes_b)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    if (bytes_a == 0 || bytes_b == 0)
        return OC_OK;
    if (a0 < b0 + bytes_b && b0 < a0 + bytes_a)
        return OC_ERR_ALIASING;
    return OC_OK;
}
