/* The layout suite on the in-process engine (ranks are threads): 1, 2, 3, 4 and 8 ranks, no
 * MPI, under the leak checker in sanitizer builds (spec/layouts.md §6, §7). */
#include <pthread.h>
#include <stdlib.h>
#include "layout_suite.h"
#include "optcert/comm_inproc.h"

typedef struct rank_arg {
    oc_inproc_world *w;
    int rank, fails;
} rank_arg;

static void *rank_main(void *p)
{
    rank_arg *a = p;
    oc_comm c;
    a->fails = oc_comm_inproc(a->w, a->rank, &c) != OC_OK;
    if (!a->fails)
        a->fails = layout_suite(&c, 0);
    return NULL;
}

int main(void)
{
    static const int sizes[] = {1, 2, 3, 4, 8};
    int fails = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int dp = sizes[s];
        oc_inproc_world *w;
        if (oc_inproc_world_new(dp, &w) != OC_OK)
            return 1;
        pthread_t th[8];
        rank_arg arg[8];
        for (int r = 0; r < dp; r++) {
            arg[r] = (rank_arg){w, r, 0};
            pthread_create(&th[r], NULL, rank_main, &arg[r]);
        }
        int bad = 0;
        for (int r = 0; r < dp; r++) {
            pthread_join(th[r], NULL);
            bad += arg[r].fails;
        }
        printf("in-process, %d ranks: %s\n", dp, bad ? "FAIL" : "every family under every layout ok");
        fails += bad;
        oc_inproc_world_free(w);
    }
    /* bad arguments of the engine */
    oc_inproc_world *w = NULL;
    oc_comm c;
    fails += oc_inproc_world_new(0, &w) != OC_ERR_BAD_HPARAM || w != NULL;
    fails += oc_inproc_world_new(2, &w) != OC_OK || oc_comm_inproc(w, 2, &c) != OC_ERR_BAD_HPARAM;
    oc_inproc_world_free(w);
    return fails != 0;
}
