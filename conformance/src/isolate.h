/* Certifying an implementation that is not trusted (a third-party plugin) without letting it
 * decide the certificate: each family in its own process, exit() trapped (spec/vectors.md §3,
 * VEC-PLUG-1, VEC-PLUG-4). */
#ifndef OPTCERT_ISOLATE_H
#define OPTCERT_ISOLATE_H

#include "certify.h"

typedef struct oc_isolation {
    int timeout_s;     /* per family: a child still running is killed */
    size_t memory_mib; /* address space the child may map beyond the harness's own */
} oc_isolation;

#define OC_ISOLATION_DEFAULT ((oc_isolation){.timeout_s = 600, .memory_mib = 16384})

/* Judges one case of fam into *r. */
typedef void (*oc_case_fn)(void *ctx, const oc_family *fam, const oc_case *c, oc_case_result *r);

/* Runs fn over every case of fam into fr: in this process if iso is NULL, else in a forked child
 * under iso's limits. A child that does not end by sending all its results (a signal, exit(),
 * the timeout, the memory limit) adds a FAIL of the last case it started, with the cause. */
void oc_run_family(const oc_isolation *iso, oc_case_fn fn, void *ctx, const oc_family *fam,
                   oc_family_report *fr);

/* Loads an implementation: 0, or non-zero with the reason in d. */
typedef int (*oc_load_fn)(const char *path, oc_diag *d);

/* VEC-PLUG-1 before the first case: runs load(path) in a forked child under iso's limits, so
 * that a plugin whose constructors or entry point crash, hang or exit cannot end or stall
 * optcert. OC_OK if the child loaded it; else the reason in d (the load's own message, or how
 * the child ended). The caller then loads it in its own process. */
oc_status oc_probe_load(const oc_isolation *iso, const char *path, oc_load_fn load, oc_diag *d);

/* Between arm and disarm an exit() is the implementation's (the harness calls none): in this
 * process it ends optcert with status 1 and a message naming the case; in a child it is
 * reported to the parent as that case's failure. */
void oc_exit_trap_arm(void);
void oc_exit_trap_disarm(void);

#endif
