/* The manifest of a vector set (spec/vectors.md VEC-SET-1): the SHA-256 of every file under
 * <dir>/<family>/, one "<hex>  <family>/<file>" line each, as sha256sum writes them. */
#ifndef OPTCERT_MANIFEST_H
#define OPTCERT_MANIFEST_H

#include "diag.h"

/* The manifest text of the families under dir (caller frees *text). */
oc_status oc_manifest_text(const char *dir, char **text, oc_diag *d);

/* SHA-256 of n bytes as 64 lowercase hex digits and a NUL. */
void oc_sha256_hex(const void *bytes, size_t n, char hex[65]);

#endif
