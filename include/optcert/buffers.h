/* Checks on caller-supplied buffers shared by every entry point. */
#ifndef OPTCERT_BUFFERS_H
#define OPTCERT_BUFFERS_H

#include <stddef.h>
#include "optcert/status.h"

/* OC_ERR_NULL_POINTER if n > 0 and buf is NULL, OC_ERR_MISALIGNED if buf is not aligned
 * to `align` bytes, else OC_OK.  Pure: reads no memory through buf. */
/*@ assigns \nothing; */
oc_status oc_buffer_check(const void *buf, size_t n, size_t align);

/* OC_ERR_ALIASING if the byte ranges [a, a+bytes_a) and [b, b+bytes_b) overlap. */
/*@ assigns \nothing; */
oc_status oc_buffer_disjoint(const void *a, size_t bytes_a, const void *b, size_t bytes_b);

#endif
