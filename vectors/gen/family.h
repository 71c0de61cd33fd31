/* Generic builder for one vector family: the JSON document and its safetensors file
 * (spec/vectors.md). Algorithm generators (gen_adam.c, ...) fill it. */
#ifndef OPTCERT_GEN_FAMILY_H
#define OPTCERT_GEN_FAMILY_H

#include <jansson.h>
#include <mpfr.h>
#include "st_writer.h"

typedef struct gen_options {
    const char *level;  /* "ci" or "cert" */
    mpfr_prec_t prec;   /* working precision, >= 200 */
    unsigned long long seed;
} gen_options;

typedef struct family {
    char name[64];
    json_t *doc;        /* the whole JSON document */
    json_t *groups;     /* doc.testGroups */
    json_t *group;      /* current group */
    st_writer *tensors;
    int next_tcid;
    int count;
} family;

int family_init(family *f, const char *name, const char *algorithm, const char *profile,
                const char *const *rules, const gen_options *opt);
void family_free(family *f);
void family_note(family *f, const char *flag, const char *bug_type, const char *description,
                 const char *effect, const char *link);
/* Starts a new test group unless `hparams` equals the current group's (the group takes
 * ownership of hparams). */
void family_group(family *f, const char *type, json_t *hparams);
/* Appends a test to the current group, assigning the next tcId; returns that tcId. */
int family_test(family *f, json_t *test);
/* Writes <dir>/<name>/<name>.json and .safetensors; returns 0 on success. */
int family_save(family *f, const char *dir);

/* Hex-float JSON string of an exactly representable value (VEC-FMT-1). */
json_t *hexfloat(double x);

#endif
