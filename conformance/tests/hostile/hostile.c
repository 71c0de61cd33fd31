/* Hostile plugins: the example plugin with its Adam step made to misbehave in one way,
 * chosen at build time by HOSTILE (hostile_run.sh names the expected
 * certificate of each). Misbehaviour starts at the third call of adam_step, so that the
 * certificate has cases before it; the other families stay the example plugin's own.
 * VEC-PLUG-1: SEGV, ABORT, EXIT0, EXIT1, HANG, KILL_SELF; VEC-PLUG-2: WRITE_G,
 * BAD_STATUS; VEC-PLUG-3: OVERRUN; VEC-PLUG-4: CHATTER; while loading (VEC-PLUG-5): LOAD_SEGV
 * and LOAD_HANG in the entry point, LOAD_EXIT0 in a constructor; the memory limit: OOM (2 GiB
 * allocated and written without a check, as a careless kernel would). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define optcert_impl_v1 naive_optcert_impl_v1 /* this file exports its own */
#include "../../examples/naive_plugin.c"
#undef optcert_impl_v1

#define SEGV 1
#define ABORT 2
#define EXIT0 3
#define EXIT1 4
#define HANG 5
#define KILL_SELF 6
#define OVERRUN 7
#define WRITE_G 8
#define CHATTER 9
#define BAD_STATUS 10
#define NULL_TABLE 11
#define WRONG_ABI 12
#define LOAD_SEGV 13
#define LOAD_HANG 14
#define LOAD_EXIT0 15
#define OOM 16

#if HOSTILE == LOAD_EXIT0
__attribute__((constructor)) static void exit_on_load(void) { exit(0); }
#endif

static oc_status hostile_adam_step(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n,
                                   float *p, float *m, float *v, float *vmax, const float *g)
{
    static int calls;
    oc_status st = naive_adam_step(ctx, hp, step, n, p, m, v, vmax, g);
    int now = ++calls >= 3;
    (void)now; /* the kinds that misbehave on every call, or in the entry point */
#if HOSTILE == SEGV
    static float *volatile unmapped = (float *)(uintptr_t)16; /* the first page */
    if (now)
        *unmapped = 1.0f;
#elif HOSTILE == ABORT
    if (now)
        abort();
#elif HOSTILE == EXIT0
    if (now)
        exit(0);
#elif HOSTILE == EXIT1
    if (now)
        exit(1);
#elif HOSTILE == HANG
    static volatile int forever = 1;
    while (now && forever)
        ;
#elif HOSTILE == KILL_SELF
    if (now)
        raise(SIGKILL);
#elif HOSTILE == OVERRUN
    if (now && p)
        p[n] = 0.0f; /* one element past the end */
#elif HOSTILE == WRITE_G
    if (now && n)
        ((float *)g)[0] += 1.0f; /* casts away the ABI's const */
#elif HOSTILE == CHATTER
    printf("chatter: adam_step %d\n", calls);
    fflush(stdout);
#elif HOSTILE == OOM
    if (now) {
        size_t big = (size_t)2 << 30;
        volatile char *huge = malloc(big);
        for (size_t i = 0; i < big; i += 4096)
            huge[i] = 1;
        free((char *)huge);
    }
#elif HOSTILE == BAD_STATUS
    if (now)
        st = (oc_status)1234;
#endif
    return st;
}

const oc_impl *optcert_impl_v1(void)
{
    static oc_impl table;
    table = naive_plugin;
    table.name = "hostile";
    table.adam_step = hostile_adam_step;
#if HOSTILE == WRONG_ABI
    table.abi_version = 99;
#elif HOSTILE == NULL_TABLE
    return NULL;
#elif HOSTILE == LOAD_SEGV
    static int *volatile unmapped = (int *)(uintptr_t)16;
    table.abi_version = (unsigned)*unmapped;
#elif HOSTILE == LOAD_HANG
    static volatile int forever = 1;
    while (forever)
        ;
#endif
    return &table;
}
