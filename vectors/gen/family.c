#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "family.h"

json_t *hexfloat(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%a", x);
    return json_string(buf);
}

int family_init(family *f, const char *name, const char *algorithm, const char *profile,
                const char *const *rules, const gen_options *opt)
{
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    json_t *jr = json_array();
    for (int i = 0; rules[i]; i++)
        json_array_append_new(jr, json_string(rules[i]));
    char st_name[96];
    snprintf(st_name, sizeof st_name, "%s.safetensors", name);
    f->groups = json_array();
    f->doc = json_pack("{s:s,s:s,s:s,s:s,s:o,s:{s:s,s:s,s:s,s:I,s:I,s:s},s:s,s:i,s:{},s:O}",
                       "schema", "optcert-vectors/1", "family", name, "algorithm", algorithm,
                       "profile", profile, "specRules", jr,
                       "generator", "tool", "optcert-gen", "version", "1", "mpfr",
                       mpfr_get_version(), "precision", (json_int_t)opt->prec, "seed",
                       (json_int_t)opt->seed, "level", opt->level,
                       "tensors", st_name, "numberOfTests", 0, "notes", "testGroups",
                       f->groups);
    json_decref(f->groups); /* the document holds the reference */
    f->tensors = st_writer_new();
    f->next_tcid = 1;
    return f->doc && f->tensors ? 0 : -1;
}

void family_inline(family *f)
{
    json_object_del(f->doc, "tensors");
    st_writer_free(f->tensors);
    f->tensors = NULL;
}

void family_free(family *f)
{
    json_decref(f->doc);
    st_writer_free(f->tensors);
}

/* VEC-FMT-6: every flag is defined once in notes. */
void family_note(family *f, const char *flag, const char *bug_type, const char *description,
                 const char *effect, const char *link)
{
    json_t *links = json_array();
    if (link)
        json_array_append_new(links, json_string(link));
    json_object_set_new(json_object_get(f->doc, "notes"), flag,
                        json_pack("{s:s,s:s,s:s,s:o}", "bugType", bug_type, "description",
                                  description, "effect", effect, "links", links));
}

void family_group(family *f, const char *type, json_t *hparams)
{
    if (f->group && json_equal(json_object_get(f->group, "hparams"), hparams)) {
        json_decref(hparams);
        return;
    }
    f->group = json_pack("{s:s,s:o,s:[]}", "type", type, "hparams", hparams, "tests");
    json_array_append_new(f->groups, f->group);
}

int family_test(family *f, json_t *test)
{
    int id = f->next_tcid++;
    json_t *full = json_pack("{s:i}", "tcId", id);
    json_object_update(full, test);
    json_decref(test);
    json_array_append_new(json_object_get(f->group, "tests"), full);
    f->count++;
    json_object_set_new(f->doc, "numberOfTests", json_integer(f->count));
    return id;
}

int family_save(family *f, const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, f->name);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return -1;
    snprintf(path, sizeof path, "%s/%s/%s.json", dir, f->name, f->name);
    if (json_dump_file(f->doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0)
        return -1;
    FILE *fp = fopen(path, "a"); /* trailing newline for a tidy text file */
    if (!fp || fputc('\n', fp) == EOF || fclose(fp) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s/%s.safetensors", dir, f->name, f->name);
    return f->tensors ? st_writer_save(f->tensors, path) : 0;
}

float gen_store(mpfr_t x, gen_golden *out, int k)
{
    out->f64[k] = mpfr_get_d(x, MPFR_RNDN);
    out->f32[k] = mpfr_get_flt(x, MPFR_RNDN);
    mpfr_set_flt(x, out->f32[k], MPFR_RNDN);
    return out->f32[k];
}

double gen_bound_up(double e)
{
    return nextafter(e * (1 + 0x1p-40), INFINITY);
}

void gen_case_alloc(gen_case *c, size_t n, size_t steps)
{
    c->n = n;
    c->steps = steps;
    for (int k = 0; k < GEN_MAX_STATE; k++)
        c->in[k] = calloc(n ? n : 1, sizeof(float));
    c->g = calloc(n * steps + 1, sizeof(float));
}

static json_t *strings(const char *const *s, size_t max)
{
    json_t *a = json_array();
    for (size_t i = 0; i < max && s[i]; i++)
        json_array_append_new(a, json_string(s[i]));
    return a;
}

static void add_tensor(family *f, int id, const char *name, const char *dtype, size_t rows,
                       size_t cols, int two_dim, const void *data, json_t *obj, const char *field)
{
    char key[64];
    snprintf(key, sizeof key, "%d/%s", id, name);
    st_writer_add(f->tensors, key, dtype, rows, cols, two_dim, data);
    json_object_set_new(obj, field, json_string(key));
}

/* The golden trajectory of a valid case: f32, f64 and tol of every state tensor, [steps*n]. */
static void compute(const gen_stepper *s, const gen_case *c, float **f32, double **f64,
                    double **tol)
{
    float state[GEN_MAX_STATE];
    double *bound = calloc(c->n * GEN_MAX_STATE, sizeof(double));
    float *st = malloc(c->n * GEN_MAX_STATE * sizeof(float));
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < GEN_MAX_STATE; k++)
            st[i * GEN_MAX_STATE + k] = c->in[k][i];
    for (size_t step = 0; step < c->steps; step++) {
        s->begin_step(s->ctx, c->first_step + (int64_t)step);
        for (size_t i = 0; i < c->n; i++) {
            gen_golden o;
            size_t j = step * c->n + i;
            for (int k = 0; k < GEN_MAX_STATE; k++)
                state[k] = st[i * GEN_MAX_STATE + k];
            s->element(s->ctx, c->g[j], state, bound + i * GEN_MAX_STATE, &o);
            for (int k = 0; k < GEN_MAX_STATE; k++) {
                st[i * GEN_MAX_STATE + k] = state[k];
                f32[k][j] = o.f32[k];
                f64[k][j] = o.f64[k];
                tol[k][j] = o.tol[k];
            }
        }
    }
    free(bound);
    free(st);
}

void family_emit(family *f, const gen_stepper *s, json_t *hparams, gen_case *c)
{
    json_t *test = json_pack("{s:s,s:o,s:o,s:s,s:I,s:I,s:I}", "comment", c->comment, "flags",
                             strings(c->flags, 6), "specRules", strings(c->rules, 8), "result",
                             c->result, "n", (json_int_t)c->n, "firstStep",
                             (json_int_t)c->first_step, "steps", (json_int_t)c->steps);
    family_group(f, s->group_type, hparams);
    int id = f->next_tcid;
    json_t *inputs = json_object();
    for (int k = 0; k < s->nstate; k++)
        add_tensor(f, id, s->state_names[k], "F32", 1, c->n, 0, c->in[k], inputs,
                   s->state_names[k]);
    add_tensor(f, id, "g", "F32", c->steps, c->n, 1, c->g, inputs, "g");
    json_object_set_new(test, "inputs", inputs);
    if (strcmp(c->result, "valid") == 0) {
        size_t total = c->steps * c->n + 1;
        float *f32[GEN_MAX_STATE];
        double *f64[GEN_MAX_STATE], *tol[GEN_MAX_STATE];
        for (int k = 0; k < GEN_MAX_STATE; k++) {
            f32[k] = malloc(total * sizeof(float));
            f64[k] = malloc(total * sizeof(double));
            tol[k] = malloc(total * sizeof(double));
        }
        compute(s, c, f32, f64, tol);
        json_t *expected = json_object();
        for (int k = 0; k < s->nstate; k++) {
            char name[32];
            json_t *e = json_object();
            snprintf(name, sizeof name, "%s.out", s->state_names[k]);
            add_tensor(f, id, name, "F32", c->steps, c->n, 1, f32[k], e, "f32");
            snprintf(name, sizeof name, "%s.out.f64", s->state_names[k]);
            add_tensor(f, id, name, "F64", c->steps, c->n, 1, f64[k], e, "f64");
            snprintf(name, sizeof name, "%s.tol", s->state_names[k]);
            add_tensor(f, id, name, "F64", c->steps, c->n, 1, tol[k], e, "tolFp32");
            json_object_set_new(expected, s->state_names[k], e);
        }
        json_object_set_new(test, "expected", expected);
        for (int k = 0; k < GEN_MAX_STATE; k++) {
            free(f32[k]);
            free(f64[k]);
            free(tol[k]);
        }
    }
    family_test(f, test);
    for (int k = 0; k < GEN_MAX_STATE; k++)
        free(c->in[k]);
    free(c->g);
}

void family_add_tensor(family *f, int id, const char *name, const char *dtype, size_t rows,
                       size_t cols, const void *data, json_t *obj, const char *field)
{
    add_tensor(f, id, name, dtype, rows, cols, 1, data, obj, field);
}
