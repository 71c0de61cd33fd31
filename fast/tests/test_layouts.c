/* The layout suite on the in-process engine (ranks are threads): 1, 2, 3, 4 and 8 ranks, no
 * MPI, under the leak checker in sanitizer builds (spec/layouts.md §6, §7); then the
 * step-control suite (§8) on a tp=2 pp=2 dp=2 grid of 8 threads. */
#include <pthread.h>
#include <stdlib.h>
#include "chain_suite.h"
#include "control_suite.h"
#include "layout_suite.h"
#include "muon_suite.h"
#include "offload_suite.h"
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
    if (!a->fails)
        a->fails = muon_suite(&c, 0);
    if (!a->fails)
        a->fails = offload_suite(&c, 0);
    return NULL;
}

/* The step-control grid: world, data-parallel and model-parallel worlds (TP fastest, then DP,
 * then PP, as the MPI driver). */
enum { TP = 2, PP = 2, DP = 2, WORLD = TP * PP * DP };
typedef struct grid_arg {
    oc_inproc_world *world, *dpw[TP * PP], *mpw[DP], *embw[TP * DP];
    int rank, fails;
} grid_arg;

static void *grid_main(void *p)
{
    grid_arg *a = p;
    int w = a->rank, tp_rank = w % TP, dp_rank = w / TP % DP, pp_stage = w / (TP * DP);
    oc_comm c, dpc, mpc, embc;
    a->fails = oc_comm_inproc(a->world, w, &c) != OC_OK ||
               oc_comm_inproc(a->dpw[pp_stage * TP + tp_rank], dp_rank, &dpc) != OC_OK ||
               oc_comm_inproc(a->mpw[dp_rank], pp_stage * TP + tp_rank, &mpc) != OC_OK ||
               oc_comm_inproc(a->embw[dp_rank * TP + tp_rank], pp_stage, &embc) != OC_OK;
    if (!a->fails)
        a->fails = control_suite(&dpc, &mpc, &c, &embc, TP, PP, 0);
    return NULL;
}

static int control_grid(void)
{
    grid_arg arg[WORLD];
    oc_inproc_world *world, *dpw[TP * PP], *mpw[DP], *embw[TP * DP];
    int fails = oc_inproc_world_new(WORLD, &world) != OC_OK;
    for (int i = 0; i < TP * DP; i++)
        fails += oc_inproc_world_new(PP, &embw[i]) != OC_OK;
    for (int i = 0; i < TP * PP; i++)
        fails += oc_inproc_world_new(DP, &dpw[i]) != OC_OK;
    for (int i = 0; i < DP; i++)
        fails += oc_inproc_world_new(TP * PP, &mpw[i]) != OC_OK;
    if (fails)
        return fails;
    pthread_t th[WORLD];
    for (int r = 0; r < WORLD; r++) {
        arg[r] = (grid_arg){world, {0}, {0}, {0}, r, 0};
        for (int i = 0; i < TP * DP; i++)
            arg[r].embw[i] = embw[i];
        for (int i = 0; i < TP * PP; i++)
            arg[r].dpw[i] = dpw[i];
        for (int i = 0; i < DP; i++)
            arg[r].mpw[i] = mpw[i];
        pthread_create(&th[r], NULL, grid_main, &arg[r]);
    }
    for (int r = 0; r < WORLD; r++) {
        pthread_join(th[r], NULL);
        fails += arg[r].fails;
    }
    printf("in-process step control, tp=%d pp=%d dp=%d: %s\n", TP, PP, DP,
           fails ? "FAIL" : "every layout ok");
    oc_inproc_world_free(world);
    for (int i = 0; i < TP * PP; i++)
        oc_inproc_world_free(dpw[i]);
    for (int i = 0; i < DP; i++)
        oc_inproc_world_free(mpw[i]);
    for (int i = 0; i < TP * DP; i++)
        oc_inproc_world_free(embw[i]);
    return fails;
}

/* The expert grid: ep = 2, edp = 2 (4 threads; expert-parallel rank fastest, as MPI's driver). */
enum { EP = 2, EDP = 2 };
typedef struct expert_arg {
    oc_inproc_world *world, *edpw[EP], *epw[EDP];
    int rank, fails;
} expert_arg;

static void *expert_main(void *p)
{
    expert_arg *a = p;
    int ep_rank = a->rank % EP, edp_rank = a->rank / EP;
    oc_comm c, edp, ep;
    a->fails = oc_comm_inproc(a->world, a->rank, &c) != OC_OK ||
               oc_comm_inproc(a->edpw[ep_rank], edp_rank, &edp) != OC_OK ||
               oc_comm_inproc(a->epw[edp_rank], ep_rank, &ep) != OC_OK;
    if (!a->fails)
        a->fails = chain_suite(&c, &edp, &ep, 0);
    return NULL;
}

static int expert_grid(void)
{
    expert_arg arg[EP * EDP];
    oc_inproc_world *world, *edpw[EP], *epw[EDP];
    int fails = oc_inproc_world_new(EP * EDP, &world) != OC_OK;
    for (int i = 0; i < EP; i++)
        fails += oc_inproc_world_new(EDP, &edpw[i]) != OC_OK;
    for (int i = 0; i < EDP; i++)
        fails += oc_inproc_world_new(EP, &epw[i]) != OC_OK;
    if (fails)
        return fails;
    pthread_t th[EP * EDP];
    for (int r = 0; r < EP * EDP; r++) {
        arg[r] = (expert_arg){world, {edpw[0], edpw[1]}, {epw[0], epw[1]}, r, 0};
        pthread_create(&th[r], NULL, expert_main, &arg[r]);
    }
    for (int r = 0; r < EP * EDP; r++) {
        pthread_join(th[r], NULL);
        fails += arg[r].fails;
    }
    printf("in-process chained dense + expert step, ep=%d edp=%d: %s\n", EP, EDP,
           fails ? "FAIL" : "every layout ok");
    oc_inproc_world_free(world);
    for (int i = 0; i < EP; i++)
        oc_inproc_world_free(edpw[i]);
    for (int i = 0; i < EDP; i++)
        oc_inproc_world_free(epw[i]);
    return fails;
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
    fails += control_grid();
    fails += expert_grid();
    /* bad arguments of the engine */
    oc_inproc_world *w = NULL;
    oc_comm c;
    fails += oc_inproc_world_new(0, &w) != OC_ERR_BAD_HPARAM || w != NULL;
    fails += oc_inproc_world_new(2, &w) != OC_OK || oc_comm_inproc(w, 2, &c) != OC_ERR_BAD_HPARAM;
    oc_inproc_world_free(w);
    return fails != 0;
}
