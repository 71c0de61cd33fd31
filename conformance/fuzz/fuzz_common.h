/* What the fuzz harnesses share (conformance/fuzz, ci/fuzz.sh). */
#ifndef OPTCERT_FUZZ_COMMON_H
#define OPTCERT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "vectors.h"

/* A private directory for the files a harness writes (under $TMPDIR, else /dev/shm where it
 * is writable, else /tmp), made once; removed at exit. */
const char *oc_fuzz_dir(void);
/* Writes bytes to <oc_fuzz_dir()>/name; returns the path (static buffer) or NULL. */
const char *oc_fuzz_write(const char *name, const void *bytes, size_t size);

/* VEC-DIAG-1: every case of fam keeps its mutants' runs (oc_keep_mutant_runs): a harness
 * diagnoses the same case on every input (or for every class), and the mutants' outputs
 * depend on the case alone, so each mutant runs once per case; the diagnosis still compares
 * every input's outputs with all of them. Aborts when out of memory. */
void oc_fuzz_keep_mutant_runs(oc_family *fam);

/* The small families under conformance/fuzz/families (make_corpus.py), loaded once, keeping
 * their mutants' runs. */
extern oc_family *oc_fuzz_fams;
extern size_t oc_fuzz_nfams;
void oc_fuzz_load_families(void);

#endif
