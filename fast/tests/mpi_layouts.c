/* The layout suite over MPI (spec/layouts.md §7): ctest runs it with mpiexec on 1, 2, 3, 4 and
 * 8 ranks. Exit status 0 iff every check passed on every rank. Then the step-control suite
 * (§8) on a TP x PP x DP grid of the same ranks: 2 ranks tp=2; 4 ranks tp=2 dp=2; 8 ranks
 * tp=2 pp=2 dp=2; otherwise dp only. Then distributed Muon (muon_suite.c) on all ranks, and the
 * chained dense + expert step (chain_suite.c) with ep = 2 on even rank counts; the CPU offload
 * suite (offload_suite.c) on all ranks before it. */
#include "chain_suite.h"
#include "control_suite.h"
#include "layout_suite.h"
#include "muon_suite.h"
#include "offload_suite.h"
#include "optcert/comm_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int w, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int tp = n % 2 == 0 ? 2 : 1, pp = n == 8 ? 2 : 1, dp = n / (tp * pp);
    /* TP fastest, then DP, then PP (Megatron's default order tp-dp-pp) */
    int tp_rank = w % tp, dp_rank = w / tp % dp, pp_stage = w / (tp * dp);
    MPI_Comm dpg, mpg, embg;
    MPI_Comm_split(MPI_COMM_WORLD, pp_stage * tp + tp_rank, dp_rank, &dpg);
    MPI_Comm_split(MPI_COMM_WORLD, dp_rank, pp_stage * tp + tp_rank, &mpg);
    /* the embedding group: the first and the last stage of this TP and DP rank (pp <= 2 here) */
    MPI_Comm_split(MPI_COMM_WORLD, dp_rank * tp + tp_rank, pp_stage, &embg);
    oc_comm c, dpc, mpc, embc;
    int fails = oc_comm_mpi(MPI_COMM_WORLD, &c) != OC_OK || oc_comm_mpi(dpg, &dpc) != OC_OK ||
                oc_comm_mpi(mpg, &mpc) != OC_OK || oc_comm_mpi(embg, &embc) != OC_OK;
    if (!fails)
        fails = layout_suite(&c, 1);
    if (!fails)
        fails = control_suite(&dpc, &mpc, &c, &embc, tp, pp, 1);
    if (!fails)
        fails = muon_suite(&c, 1);
    if (!fails)
        fails = offload_suite(&c, 1);
    /* expert parallelism: ep = 2 on an even number of ranks, expert-data-parallel the rest */
    int ep = n % 2 == 0 ? 2 : 1, ep_rank = w % ep, edp_rank = w / ep;
    MPI_Comm edpg, epg;
    MPI_Comm_split(MPI_COMM_WORLD, ep_rank, edp_rank, &edpg);
    MPI_Comm_split(MPI_COMM_WORLD, edp_rank, ep_rank, &epg);
    oc_comm edpc, epc;
    if (!fails)
        fails = oc_comm_mpi(edpg, &edpc) != OC_OK || oc_comm_mpi(epg, &epc) != OC_OK;
    if (!fails)
        fails = chain_suite(&c, &edpc, &epc, 1);
    MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&dpg);
    MPI_Comm_free(&mpg);
    MPI_Comm_free(&embg);
    MPI_Comm_free(&edpg);
    MPI_Comm_free(&epg);
    MPI_Finalize();
    return fails != 0;
}
