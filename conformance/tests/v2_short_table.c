/* A v2 plugin whose table ends where ABI v3 froze the v2 layout (after routed_step), placed so
 * that the next byte is an inaccessible page: the naive example plugin's table, copied. A
 * harness that read any later field of a v2 table would fault on it (VEC-ABI-4). The same
 * table with a capability of a family added after ABI v3 must be refused
 * (V2_SHORT_CLAIMS_LATER). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#define optcert_impl_v1 naive_table
#include "../examples/naive_plugin.c"
#undef optcert_impl_v1

const oc_impl *optcert_impl_v1(void);
const oc_impl *optcert_impl_v1(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = offsetof(oc_impl, te_storage);
    char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m + page, page, PROT_NONE) != 0)
        return NULL;
    oc_impl *t = (oc_impl *)(void *)(m + page - n);
    memcpy(t, naive_table(), n);
#ifdef V2_SHORT_CLAIMS_LATER
    t->capabilities |= OC_CAP_ADAFACTOR;
#endif
    return t;
}
