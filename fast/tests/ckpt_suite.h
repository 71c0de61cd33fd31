/* The checkpoint suite (ckpt_suite.c, spec/checkpoint.md): a chained optimizer (a dense
 * mixed-precision AdamW-AMSGrad and an expert SGD) with a loss scaler, trained, saved under
 * one layout and rank count, loaded under another and continued. */
#ifndef OPTCERT_FAST_CKPT_SUITE_H
#define OPTCERT_FAST_CKPT_SUITE_H

#include <stdio.h>
#include "optcert/checkpoint.h"

/* The grid of n ranks: tp = 2 on 4 and 8 ranks, pp = 2 on 8, dp the rest; ep = 2 on an even
 * number of ranks, edp the rest. TP fastest, then DP, then PP; the expert-parallel rank fastest
 * in the expert grid. */
typedef struct ckpt_grid {
    int tp, pp, dp, ep, edp;
} ckpt_grid;
ckpt_grid ckpt_grid_of(int n);

/* The groups of world rank w: for each of dp, mp (model-parallel: TP x PP), edp, ep and emb
 * (the embedding group: the first and the last stage of this TP and DP rank), the group's
 * color (which group) and this rank's key (its rank in it). */
enum { CKPT_DP = 0, CKPT_MP, CKPT_EDP, CKPT_EP, CKPT_EMB, CKPT_NGROUPS };
void ckpt_place(const ckpt_grid *g, int w, int color[CKPT_NGROUPS], int key[CKPT_NGROUPS]);

/* This rank's communicators (world rank w of ckpt_grid_of(world->size)). */
typedef struct ckpt_comms {
    const oc_comm *world, *group[CKPT_NGROUPS];
} ckpt_comms;

/* Under every layout kind: trains 3 steps and saves into <dir>/<kind name>. Returns the
 * failed checks on this rank. */
int ckpt_save_all(const ckpt_comms *c, const char *dir);
/* Loads every <dir>/<kind name> under kind + shift (mod the kind count) and checks it as
 * ckpt_resume_run. *refused is set when a checkpoint was refused (a bad input, not a failed
 * check). Rank 0 prints a line per checkpoint when verbose. */
int ckpt_resume_all(const ckpt_comms *c, const char *dir, int shift, int verbose, int *refused);

/* Trains CKPT_SAVE_STEP steps under `kind` and saves into dir (every rank calls it); returns
 * the failed checks on this rank. */
int ckpt_save_run(const ckpt_comms *c, oc_layout_kind kind, const char *dir);

/* Loads dir under `kind`, checks the state equals the unbroken run's at the saved step and
 * every later step (CKPT-RESUME-1), and that every mutant is caught (CKPT-MUT-1). Returns the
 * failed checks on this rank; rank 0 prints a line when log is not NULL, and every failure. */
int ckpt_resume_run(const ckpt_comms *c, oc_layout_kind kind, const char *dir, FILE *log,
                    int *refused);

/* CKPT-OWN-1, CKPT-ATOMIC-1: a save in which the TP ranks all write their copy of the
 * TP-replicated parameters (pieces overlap) is refused and leaves no index (tp > 1). */
int ckpt_overlap_run(const ckpt_comms *c, const char *dir);

/* CKPT-LOAD-1, CKPT-LOAD-2: damaged copies of the checkpoint in dir (a truncated, a missing
 * and a changed shard, a missing index, an index with a field of another type) refused with a
 * message naming the file, and the intact one loaded into a model whose first parameter has
 * another shape refused naming it; nothing written. scratch: a directory this rank count may
 * use. Returns the failed checks. */
int ckpt_damage_run(const ckpt_comms *c, oc_layout_kind kind, const char *dir,
                    const char *scratch);

#endif
