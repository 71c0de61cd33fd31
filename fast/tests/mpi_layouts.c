/* The layout suite over MPI (spec/layouts.md §7): ctest runs it with mpiexec on 1, 2, 3, 4 and
 * 8 ranks. Exit status 0 iff every check passed on every rank. */
#include "layout_suite.h"
#include "optcert/comm_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    oc_comm c;
    int fails = oc_comm_mpi(MPI_COMM_WORLD, &c) != OC_OK;
    if (!fails)
        fails = layout_suite(&c, 1);
    MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return fails != 0;
}
