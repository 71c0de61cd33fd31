/* The hostile wrappers of the fast CPU backend (hostile_wrap.c): each file of wrap/ wraps the
 * entry point of one family (or of a few of one kind) and declares it with a descriptor
 * `const hostile_wrap NAME = {...};` at the start of a line, which the build lists
 * (cmake/registry.cmake: hostile_wrap_registry.h). On its first call the wrapper misbehaves in
 * the way HOSTILE chooses (WRITE_INPUTS: VEC-PLUG-2, OVERRUN: VEC-PLUG-3), then runs the
 * backend. The file's comment names, in lines ` * expect KIND FAMILY: PATTERN`, the FAIL line
 * hostile_run.sh expects of that family under HOSTILE=KIND. */
#ifndef OPTCERT_HOSTILE_WRAP_H
#define OPTCERT_HOSTILE_WRAP_H

#include "optcert/impl.h"

#define WRITE_INPUTS 1
#define OVERRUN 2

typedef struct hostile_wrap {
    const char *family;   /* the family whose entry it replaces */
    oc_entry_point entry; /* of the type the family's algorithm has, cast */
} hostile_wrap;

/* The backend's entry point for `family`, as type T. */
oc_entry_point hostile_fast_entry(const char *family);
#define FAST(family, T) ((T)hostile_fast_entry(family))

/* 1 on the first call of the entry point that owns `calls`. */
int hostile_first(int *calls);

#endif
