/* Entry points of the vector generator (one per algorithm family). */
#ifndef OPTCERT_GEN_H
#define OPTCERT_GEN_H

#include "family.h"

/* Writes vectors/adam-<profile>/ for every Adam profile into outdir; 0 on success. */
int gen_adam(const gen_options *opt, const char *outdir);

/* Writes vectors/sgd-<profile>/ (spec/sgd.md); 0 on success. */
int gen_sgd(const gen_options *opt, const char *outdir);

/* Writes vectors/lion-torch/ (spec/lion.md); 0 on success. */
int gen_lion(const gen_options *opt, const char *outdir);

/* Writes vectors/schedule-megatron/ (spec/schedule.md); 0 on success. */
int gen_schedule(const gen_options *opt, const char *outdir);

/* Writes vectors/ns-<profile>/ (spec/muon.md, NS-*); 0 on success. */
int gen_newton_schulz(const gen_options *opt, const char *outdir);

/* Writes vectors/muon-<profile>/ (spec/muon.md, MUON-*); 0 on success. */
int gen_muon(const gen_options *opt, const char *outdir);

/* Writes every family at the given options; 0 on success. */
int gen_all(const gen_options *opt, const char *outdir);

#endif
