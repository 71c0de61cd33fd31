/* The checkpoint suite on the in-process engine (spec/checkpoint.md, ckpt_suite.c): ranks are
 * threads. Saved on N ranks under every layout kind, loaded on M ranks under another kind,
 * for (N, M) = (1, 2), (2, 3), (3, 8), (8, 1), (4, 4): the resumed trajectory bit-identical to
 * the unbroken one and every mutant caught (CKPT-RESUME-1, CKPT-MUT-1); damaged checkpoints
 * refused, nothing written (CKPT-LOAD-1, CKPT-LOAD-2); a second save into a checkpoint
 * refused (CKPT-ATOMIC-1); a save whose pieces overlap refused (CKPT-OWN-1). Works in a temporary directory it removes. */
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ckpt_suite.h"
#include "optcert/comm_inproc.h"

typedef enum { SAVE, RESUME, DAMAGE, RESAVE, OVERLAP } phase;

typedef struct job {
    phase what;
    const char *dir;
    int shift, n;
    oc_inproc_world *world, *group[CKPT_NGROUPS][8];
} job;

typedef struct rank_arg {
    const job *j;
    int rank, fails, refused;
} rank_arg;

static void *rank_main(void *p)
{
    rank_arg *a = p;
    const job *j = a->j;
    ckpt_grid g = ckpt_grid_of(j->n);
    int color[CKPT_NGROUPS], key[CKPT_NGROUPS];
    ckpt_place(&g, a->rank, color, key);
    oc_comm world, comm[CKPT_NGROUPS];
    ckpt_comms c = {&world, {0}};
    a->fails = oc_comm_inproc(j->world, a->rank, &world) != OC_OK;
    for (int k = 0; k < CKPT_NGROUPS; k++) {
        a->fails += oc_comm_inproc(j->group[k][color[k]], key[k], &comm[k]) != OC_OK;
        c.group[k] = &comm[k];
    }
    char sub[4096], scratch[4096];
    snprintf(sub, sizeof sub, "%s/zero1-flat", j->dir);
    snprintf(scratch, sizeof scratch, "%s-damaged", j->dir);
    if (a->fails)
        return NULL;
    switch (j->what) {
    case SAVE: a->fails = ckpt_save_all(&c, j->dir); break;
    case RESUME: a->fails = ckpt_resume_all(&c, j->dir, j->shift, 1, &a->refused); break;
    case DAMAGE: a->fails = ckpt_damage_run(&c, OC_LAYOUT_FSDP2_DIM0, sub, scratch); break;
    case OVERLAP: a->fails = ckpt_overlap_run(&c, scratch); break;
    default: a->fails = ckpt_save_run(&c, OC_LAYOUT_ZERO1_FLAT, sub) == 0; /* must be refused */
    }
    return NULL;
}

/* Runs one phase on n threads with the grid's groups; returns the failed checks. */
static int run(phase what, int n, const char *dir, int shift)
{
    ckpt_grid g = ckpt_grid_of(n);
    job j = {what, dir, shift, n, NULL, {{0}}};
    int sizes[CKPT_NGROUPS] = {g.dp, g.tp * g.pp, g.edp, g.ep, g.pp};
    int fails = oc_inproc_world_new(n, &j.world) != OC_OK;
    for (int k = 0; k < CKPT_NGROUPS; k++)
        for (int c = 0; c < n / sizes[k]; c++)
            fails += oc_inproc_world_new(sizes[k], &j.group[k][c]) != OC_OK;
    pthread_t th[8];
    rank_arg arg[8];
    for (int r = 0; r < n && !fails; r++) {
        arg[r] = (rank_arg){&j, r, 0, 0};
        pthread_create(&th[r], NULL, rank_main, &arg[r]);
    }
    for (int r = 0; r < n && !fails; r++) {
        pthread_join(th[r], NULL);
        fails += arg[r].fails + arg[r].refused;
    }
    oc_inproc_world_free(j.world);
    for (int k = 0; k < CKPT_NGROUPS; k++)
        for (int c = 0; c < 8; c++)
            oc_inproc_world_free(j.group[k][c]);
    return fails;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    static const int pairs[][2] = {{1, 2}, {2, 3}, {3, 8}, {8, 1}, {4, 4}};
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines in order with the expected refusal on stderr */
    char base[] = "/tmp/optcert-ckpt-XXXXXX";
    if (!mkdtemp(base))
        return 1;
    int fails = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/saved-np%d", base, pairs[i][0]);
        int f = run(SAVE, pairs[i][0], dir, 0);
        int shift = 1 + (int)i % (OC_LAYOUT_KIND_COUNT - 1);
        f += run(RESUME, pairs[i][1], dir, shift);
        printf("in-process, saved on %d ranks, resumed on %d ranks (kinds +%d): %s\n", pairs[i][0],
               pairs[i][1], shift, f ? "FAIL" : "ok");
        fails += f;
    }
    /* damaged copies of the 3-rank fsdp2 checkpoint, loaded on 2 ranks; a second save */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/saved-np3", base);
    int f = run(DAMAGE, 2, dir, 0) + run(RESAVE, 3, dir, 0);
    printf("in-process, damaged checkpoints refused, nothing written; save over a checkpoint "
           "refused: %s\n", f ? "FAIL" : "ok");
    fails += f;
    /* 4 ranks, tp = 2: overlapping pieces refused, no index */
    snprintf(dir, sizeof dir, "%s/overlap", base);
    f = run(OVERLAP, 4, dir, 0);
    printf("in-process, a save with overlapping pieces refused: %s\n", f ? "FAIL" : "ok");
    fails += f;
    nftw(base, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return fails != 0;
}
