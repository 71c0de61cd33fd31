/* The checkpoint suite over MPI (spec/checkpoint.md, ckpt_suite.c); ctest runs it with mpiexec:
 *   mpi_ckpt save DIR            on N ranks: trains and saves under every layout kind
 *   mpi_ckpt resume DIR SHIFT    on M ranks: loads each under the kind SHIFT further on, checks
 *                                the resumed trajectory bit-identical and every mutant caught
 * Exit status: 0 every check passed on every rank; 1 a check failed; 2 a bad input (usage, or
 * a checkpoint refused, its message on stderr: CKPT-LOAD-1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ckpt_suite.h"
#include "optcert/comm_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int w, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int save = argc == 3 && strcmp(argv[1], "save") == 0;
    int resume = argc == 4 && strcmp(argv[1], "resume") == 0;
    if (!save && !resume) {
        if (w == 0)
            fprintf(stderr, "usage: mpi_ckpt save DIR | mpi_ckpt resume DIR SHIFT\n");
        MPI_Finalize();
        return 2;
    }
    ckpt_grid g = ckpt_grid_of(n);
    int color[CKPT_NGROUPS], key[CKPT_NGROUPS];
    ckpt_place(&g, w, color, key);
    MPI_Comm groups[CKPT_NGROUPS];
    oc_comm world, comm[CKPT_NGROUPS];
    int fails = oc_comm_mpi(MPI_COMM_WORLD, &world) != OC_OK, refused = 0;
    ckpt_comms c = {&world, {0}};
    for (int k = 0; k < CKPT_NGROUPS; k++) {
        MPI_Comm_split(MPI_COMM_WORLD, color[k], key[k], &groups[k]);
        fails += oc_comm_mpi(groups[k], &comm[k]) != OC_OK;
        c.group[k] = &comm[k];
    }
    if (!fails && save)
        fails = ckpt_save_all(&c, argv[2]);
    else if (!fails)
        fails = ckpt_resume_all(&c, argv[2], atoi(argv[3]), 1, &refused);
    MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < CKPT_NGROUPS; k++)
        MPI_Comm_free(&groups[k]);
    MPI_Finalize();
    return refused ? 2 : fails != 0;
}
