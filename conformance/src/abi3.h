/* Plugin ABI v3 in the harness (include/optcert/impl.h, spec/vectors.md VEC-ABI-1, VEC-ABI-2):
 * the checks of a v3 table, and the v2 table (oc_impl, what the harness runs) that it gives
 * one family. */
#ifndef OPTCERT_ABI3_H
#define OPTCERT_ABI3_H

#include "diag.h"
#include "optcert/impl.h"

/* VEC-ABI-2: the version, and every entry names a family optcert knows, once, with an entry
 * point and options of that family; else the problem in d. */
oc_status oc_abi3_check(const oc_impl_v3 *t, oc_diag *d);

/* The v2 table under which `family` of t runs: t's name, version and context, the slot of the
 * family's entry and the capabilities its name and options claim (for a "-mixed" family, with
 * the entry of the family without "-mixed" too); no slot at all if t does not list the family.
 * t has passed oc_abi3_check. */
void oc_abi3_table(const oc_impl_v3 *t, const char *family, oc_impl *out);

#endif
