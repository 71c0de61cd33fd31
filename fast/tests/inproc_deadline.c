/* The in-process engine's deadline (fast/comm/inproc.c, LAYOUT-DEADLINE-1): ranks are threads
 * running collectives of every kind in a loop; at the third round the victim (the last rank)
 * stops answering, either sleeping far past the deadline ("stop") or leaving its thread
 * ("exit"). Every other rank must get OC_ERR_PEER from a collective within the deadline (1 s
 * here) plus slack, the engine must print which collective timed out and name the victim, and
 * a collective after that (the peers', and the stopped victim's when it wakes) must fail at
 * once. Checked at 2 and 3 ranks.
 *   inproc_deadline stop|exit RANKS */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "optcert/comm_inproc.h"

#define TIMEOUT_S 1.0
#define SLACK_S 20.0 /* a loaded machine: far below the 300 s default, far above TIMEOUT_S */

typedef struct rank_arg {
    oc_inproc_world *w;
    int rank, victim, stop;
    oc_status failed;   /* the status of the first collective that failed */
    oc_status after;    /* a collective after it */
    double waited;      /* seconds from the victim's last round to the failure */
} rank_arg;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *rank_main(void *p)
{
    rank_arg *a = p;
    oc_comm c;
    if (oc_comm_inproc(a->w, a->rank, &c) != OC_OK)
        return NULL;
    float buf[12] = {0}, out[4];
    for (int round = 0; round < 100; round++) {
        if (round == 3 && a->rank == a->victim) {
            if (a->stop) {
                sleep((unsigned)(3 * TIMEOUT_S));
                a->after = c.allreduce_sum(c.ctx, buf, 4); /* the world is broken by now */
            }
            return NULL;
        }
        double t0 = now();
        int x = a->rank;
        oc_status st;
        if ((st = c.allreduce_sum(c.ctx, buf, 4)) != OC_OK ||
            (st = c.allreduce_max_int(c.ctx, &x)) != OC_OK ||
            (st = c.reduce_scatter_sum(c.ctx, buf, out, 1)) != OC_OK ||
            (st = c.allgather(c.ctx, buf, 1, sizeof(float))) != OC_OK) {
            a->failed = st;
            a->waited = now() - t0;
            a->after = c.allgather(c.ctx, buf, 1, sizeof(float));
            return NULL;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "stop") != 0 && strcmp(argv[1], "exit") != 0)) {
        fprintf(stderr, "usage: inproc_deadline stop|exit RANKS\n");
        return 2;
    }
    int n = atoi(argv[2]), bad = 0;
    oc_inproc_world *w;
    if (n < 2 || n > 8 || oc_inproc_world_new(n, &w) != OC_OK ||
        oc_inproc_world_set_timeout(w, TIMEOUT_S) != OC_OK)
        return 2;
    /* the engine's message goes to stderr: catch it in a file */
    FILE *log = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(log), 2);
    pthread_t th[8];
    rank_arg a[8];
    for (int r = 0; r < n; r++) {
        a[r] = (rank_arg){w, r, n - 1, strcmp(argv[1], "stop") == 0, OC_OK, OC_OK, 0};
        pthread_create(&th[r], NULL, rank_main, &a[r]);
    }
    for (int r = 0; r < n; r++)
        pthread_join(th[r], NULL);
    fflush(stderr);
    dup2(saved, 2);
    char text[4096] = "", want[128];
    rewind(log);
    text[fread(text, 1, sizeof text - 1, log)] = '\0';
    fputs(text, stderr);
    for (int r = 0; r < n - 1; r++) {
        if (a[r].failed != OC_ERR_PEER || a[r].after != OC_ERR_PEER) {
            fprintf(stderr, "rank %d: collective status %d, then %d; expected OC_ERR_PEER twice\n",
                    r, a[r].failed, a[r].after);
            bad = 1;
        }
        if (a[r].waited > TIMEOUT_S + SLACK_S) {
            fprintf(stderr, "rank %d: failed after %.1f s, deadline %.1f s\n", r, a[r].waited,
                    TIMEOUT_S);
            bad = 1;
        }
    }
    if (a[n - 1].stop && a[n - 1].after != OC_ERR_PEER) {
        fprintf(stderr, "the victim's late collective returned %d, expected OC_ERR_PEER\n",
                a[n - 1].after);
        bad = 1;
    }
    snprintf(want, sizeof want, "timed out after 1 s: rank %d did not join it", n - 1);
    if (!strstr(text, want) || !strstr(text, "allreduce_sum (collective #13")) {
        fprintf(stderr, "no message naming collective #13 and '%s'\n", want);
        bad = 1;
    }
    oc_inproc_world_free(w);
    printf("inproc_deadline %s %d: %s\n", argv[1], n, bad ? "FAILED" : "ok");
    return bad;
}
