/* The family list of a fast backend's ABI v3 table (include/optcert/impl.h, spec/vectors.md
 * VEC-ABI-1..3), one definition for the CPU and the CUDA backends. Each algorithm a backend
 * implements is a descriptor `const oc_fast_algorithm NAME = {...};` at the start of a line in
 * the file of that algorithm; cmake/registry.cmake lists the backend's descriptors
 * (fast_cpu_registry.h, fast_cuda_registry.h), and oc_fast_list_families claims every family
 * of the vector set (families_registry.h) whose algorithm is among them. */
#ifndef OPTCERT_FAST_FAMILIES_H
#define OPTCERT_FAST_FAMILIES_H

#include <stddef.h>
#include "optcert/impl.h"

typedef struct oc_fast_algorithm {
    const char *algorithm; /* the vector files' "algorithm" */
    const char *options;   /* VEC-ABI-2: the options of its families supported; NULL: none */
    oc_entry_point entry;  /* of the type impl.h gives the algorithm, cast */
} oc_fast_algorithm;

/* A backend: its algorithms, and the entry points of the kinds of family every element-wise
 * algorithm has (NULL: the backend claims no such family). */
typedef struct oc_fast_backend {
    const oc_fast_algorithm *const *algorithms;
    size_t nalgorithms;
    oc_entry_point mixed;    /* oc_mixed_step_fn: the "-mixed" families, every storage option */
    oc_entry_point state_io; /* oc_state_io_fn: the "resume-" families (VEC-ABI-3) */
    const char *unclaimed;   /* a family of a listed algorithm the backend does not claim */
} oc_fast_backend;

/* Sets table->families and table->nfamilies: every family of the vector set whose algorithm
 * b implements, with the entry VEC-ABI-1, -3 give it (a "resume-" family's is b->state_io, a
 * "-mixed" family's b->mixed, any other its algorithm's), but b->unclaimed. The list is
 * static (one per copy of this library) and written again by each call. */
void oc_fast_list_families(const oc_fast_backend *b, oc_impl_v3 *table);

#endif
