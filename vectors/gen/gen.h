/* Entry points of the vector generator (one per algorithm family). */
#ifndef OPTCERT_GEN_H
#define OPTCERT_GEN_H

#include "family.h"
#include "optcert/adam.h"
#include "optcert/lion.h"
#include "optcert/sgd.h"

/* Writes vectors/adam-<profile>/ for every Adam profile into outdir; 0 on success. */
int gen_adam(const gen_options *opt, const char *outdir);

/* Writes vectors/sgd-<profile>/ (spec/sgd.md); 0 on success. */
int gen_sgd(const gen_options *opt, const char *outdir);

/* Writes vectors/lion-torch/ (spec/lion.md); 0 on success. */
int gen_lion(const gen_options *opt, const char *outdir);

/* Writes vectors/schedule-megatron/ (spec/schedule.md); 0 on success. */
int gen_schedule(const gen_options *opt, const char *outdir);

/* The exact step of hp (with its fp32-class bound) as a stepper for other programs, e.g. the
 * layout suite of fast/tests; hp must outlive it. 0 on success, -1 without memory. Each
 * *_stepper_free releases what the matching constructor allocated. */
int gen_adam_stepper(const oc_adam_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_adam_stepper_free(gen_stepper *s);
int gen_sgd_stepper(const oc_sgd_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_sgd_stepper_free(gen_stepper *s);
int gen_lion_stepper(const oc_lion_hparams *hp, mpfr_prec_t prec, gen_stepper *out);
void gen_lion_stepper_free(gen_stepper *s);

/* Writes every family at the given options; 0 on success. */
int gen_all(const gen_options *opt, const char *outdir);

#endif
