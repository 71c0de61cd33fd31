/* Entry points of the vector generator (one per algorithm family). */
#ifndef OPTCERT_GEN_H
#define OPTCERT_GEN_H

#include "family.h"
#include "optcert/adam.h"
#include "optcert/lion.h"
#include "optcert/sgd.h"
#include "rng.h"

/* How gen_mixed.c drives an element-wise algorithm (spec/mixed.md §6). */
typedef struct gen_mixed_algo {
    const char *family, *algorithm, *profile;
    int nvariants;       /* hyper-parameter variants (e.g. AdamW and Adam with L2) */
    float lr, lr_small;  /* a typical learning rate; one whose updates stay below half a
                            16-bit ulp of parameters near 1 */
    gen_rng *rng;
    void *ctx;
    /* Emits case c (c->storage set) with variant v's hyper-parameters and learning rate lr. */
    void (*emit)(family *f, void *ctx, int variant, float lr, gen_case *c);
    /* Random input state (in[1..]) typical of the algorithm. */
    void (*random_state)(gen_case *c);
} gen_mixed_algo;

/* Writes vectors/<a->family>/ (spec/mixed.md); 0 on success. */
int gen_mixed_family(const gen_options *opt, const char *outdir, const gen_mixed_algo *a);

/* Writes vectors/adam-<profile>/ for every Adam profile into outdir; 0 on success. */
int gen_adam(const gen_options *opt, const char *outdir);

/* Writes vectors/sgd-<profile>/ (spec/sgd.md); 0 on success. */
int gen_sgd(const gen_options *opt, const char *outdir);

/* Writes vectors/lion-torch/ (spec/lion.md); 0 on success. */
int gen_lion(const gen_options *opt, const char *outdir);

/* Writes vectors/schedule-megatron/ (spec/schedule.md); 0 on success. */
int gen_schedule(const gen_options *opt, const char *outdir);

/* Writes vectors/loss-scale-<profile>/ (spec/loss_scale.md); 0 on success. */
int gen_loss_scale(const gen_options *opt, const char *outdir);

/* The exact step of hp (with its fp32-class bound) as a stepper for other programs, e.g. the
 * layout suite of fast/tests; hp must outlive it. 0 on success, -1 without memory. Each
 * *_stepper_free releases what the matching constructor allocated. */
int gen_adam_stepper(const oc_adam_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_adam_stepper_free(gen_stepper *s);
int gen_sgd_stepper(const oc_sgd_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_sgd_stepper_free(gen_stepper *s);
int gen_lion_stepper(const oc_lion_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_lion_stepper_free(gen_stepper *s);

/* Writes vectors/clip-<profile>/ (spec/clip.md); 0 on success. */
int gen_clip(const gen_options *opt, const char *outdir);

/* Writes vectors/ns-<profile>/ (spec/muon.md, NS-*); 0 on success. */
int gen_newton_schulz(const gen_options *opt, const char *outdir);

/* Writes vectors/muon-<profile>/ (spec/muon.md, MUON-*); 0 on success. */
int gen_muon(const gen_options *opt, const char *outdir);

/* Writes vectors/muon-split-qkv/ and vectors/muon-tp-blockwise/ (spec/muon.md, MUON-BLK-*). */
int gen_muon_blocks(const gen_options *opt, const char *outdir);

/* Writes vectors/muon-adamw-route/ (spec/muon.md, ROUTE-*). */
int gen_muon_route(const gen_options *opt, const char *outdir);

/* Writes vectors/muonclip-<profile>/ (spec/muon.md, MUONCLIP-*); 0 on success. */
int gen_muon_clip(const gen_options *opt, const char *outdir);

/* Writes every family at the given options; 0 on success. */
int gen_all(const gen_options *opt, const char *outdir);

#endif
