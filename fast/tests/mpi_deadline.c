/* The MPI engine's deadline (fast/comm/mpi.c): ranks run collectives of every kind in a loop;
 * at the third round rank VICTIM stops (raise(SIGSTOP)) or dies (raise(SIGKILL)). The other
 * ranks must end non-zero within OPTCERT_COMM_TIMEOUT with a message naming the victim and
 * the collective (fast/tests/mpi_deadline.sh runs it and checks; it writes each rank's pid
 * to PIDDIR/rank.<r> so that the script can clean up a stopped rank).
 *   mpi_deadline stop|kill VICTIM PIDDIR */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "optcert/comm_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int w, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 4 || (strcmp(argv[1], "stop") != 0 && strcmp(argv[1], "kill") != 0)) {
        fprintf(stderr, "usage: mpi_deadline stop|kill VICTIM PIDDIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int victim = atoi(argv[2]);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", argv[3], w);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    oc_comm c;
    if (oc_comm_mpi(MPI_COMM_WORLD, &c) != OC_OK)
        MPI_Abort(MPI_COMM_WORLD, 2);
    float buf[12] = {0}, out[4];
    for (int round = 0; round < 1000; round++) {
        if (round == 3 && w == victim)
            raise(strcmp(argv[1], "stop") == 0 ? SIGSTOP : SIGKILL);
        int x = w;
        if (c.allreduce_sum(c.ctx, buf, 4) != OC_OK || c.allreduce_max_int(c.ctx, &x) != OC_OK ||
            c.reduce_scatter_sum(c.ctx, buf, out, 1) != OC_OK ||
            c.allgather(c.ctx, buf, 1, sizeof(float)) != OC_OK) {
            fprintf(stderr, "mpi_deadline: rank %d: a collective returned an error\n", w);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
    /* not reached when the victim stops answering */
    fprintf(stderr, "mpi_deadline: rank %d: every collective completed\n", w);
    MPI_Finalize();
    return 0;
}
