#include <errno.h>
#include <stdio.h>
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
    return st_writer_save(f->tensors, path);
}
