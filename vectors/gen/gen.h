/* Entry points of the vector generator (one per algorithm family). */
#ifndef OPTCERT_GEN_H
#define OPTCERT_GEN_H

#include "family.h"
#include "optcert/adam.h"
#include "optcert/loss_scale.h"
#include "optcert/muon.h"
#include "ns_model.h"
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

/* The exact step of hp (with its fp32-class bound) as a stepper for other programs, e.g. the
 * layout suite of fast/tests; hp must outlive it. 0 on success, -1 without memory. Each
 * *_stepper_free releases what the matching constructor allocated. */
int gen_adam_stepper(const oc_adam_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_adam_stepper_free(gen_stepper *s);
int gen_sgd_stepper(const oc_sgd_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_sgd_stepper_free(gen_stepper *s);
int gen_lion_stepper(const oc_lion_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_lion_stepper_free(gen_stepper *s);

/* The exact Muon step of one parameter (MUON-*; with a partition, MUON-BLK-*): p' and m'
 * rounded to binary32 and to binary64, and their tolerance tables [class][frobenius, band]
 * (MUON-TOL-1, MUON-BLK-TOL-1; classes of vectors/gen/ns_model.h), MPFR at `prec` bits. */
typedef struct gen_muon_golden {
    float *p32, *m32;
    double *p64, *m64;
    double tol_p[NS_NCLASSES][2], tol_m[NS_NCLASSES][2];
} gen_muon_golden;
void gen_muon_exact(const oc_muon_hparams *hp, const oc_muon_partition *part, size_t rows,
                    size_t cols, const float *p, const float *m, const float *g, long prec,
                    gen_muon_golden *gd);
void gen_muon_golden_free(gen_muon_golden *gd);

/* Pieces of the generators other families reuse (gen_guarded_step.c): the hyper-parameters as their
 * families write them; the loss scaler's update as spec/loss_scale.md states it (LS-*); the
 * exact norm of a set of gradients (CLIP-NORM-1, CLIP-NORM-INF-1: returns the number of
 * elements, NaN or inf if one is not finite) and CLIP-TOL-2's relative bound of the 2-norm over
 * m elements and R ranks (0 for the inf-norm). */
json_t *gen_adam_hparams_json(const oc_adam_hparams *hp);
json_t *gen_sgd_hparams_json(const oc_sgd_hparams *hp);
json_t *gen_lion_hparams_json(const oc_lion_hparams *hp);
void gen_loss_scale_update(const oc_loss_scaler *c, mpfr_prec_t prec, int found_inf,
                           float *scale, long *growth, long *hyst);
size_t gen_clip_exact_norm(mpfr_t norm, mpfr_t sum, mpfr_t t, int inf_norm, size_t np,
                           const float *const *g, const size_t *numel);
double gen_clip_norm_rel(size_t m, int ranks, int inf_norm);

/* A family's generator (issue 16 item 1): each vectors/gen file defines its own
 * `const gen_family gen_family_<name> = {...};`, which cmake/registry.cmake lists in
 * gen_families[] (gen_registry.h); no shared list names it. generate writes
 * vectors/<family>/ directories into outdir and returns 0 on success. */
typedef struct gen_family {
    const char *name;
    int (*generate)(const gen_options *opt, const char *outdir);
} gen_family;

/* Writes every family at the given options; 0 on success. */
int gen_all(const gen_options *opt, const char *outdir);

/* The seed of the committed vectors. */
#define GEN_DEFAULT_SEED 20261129ull

/* VEC-FMT-8: regenerates the ci level at `prec` bits into a temporary directory and compares
 * each family with the one under `vectors`, printing a line per family. Returns 0 when every
 * family is identical, 1 when one differs, 2 when `vectors` is not a directory or the
 * regeneration fails (vectors/gen/verify.c). */
int gen_verify(const char *vectors, long prec);

/* Removes a directory tree (the generators' temporary output). */
void gen_remove_tree(const char *dir);

/* optcert-gen tolcheck: the generator's fp32-class bounds against the proven ones on every
 * entry of the element-wise and clip families and every 16-bit narrowing of the mixed ones
 * (tolcheck.c), with the Gappa results of the proofs cache directory `cache`. 0 all within,
 * 1 an entry outside, 2 missing results or a failure. */
int gen_tolcheck_run(const char *cache);

#endif
