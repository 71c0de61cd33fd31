/* optcert-gen verify (VEC-FMT-8): regenerate the ci level into a temporary directory and
 * compare every family with the committed one bit for bit. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gen.h"

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

void gen_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb, ca, cb;
    while (same && ((ca = fgetc(fa)) != EOF) | ((cb = fgetc(fb)) != EOF))
        same = ca == cb;
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* The first file of a family directory under dir that exists but is not a regular file (a
 * FIFO would block the comparison), as "<dir>/<name>/<file>" in buf; NULL if none. */
static const char *irregular_file(const char *dir, char *buf, size_t size)
{
    static const char *const ext[] = {".json", ".safetensors"};
    DIR *dp = opendir(dir);
    struct dirent *e;
    const char *found = NULL;
    while (dp && !found && (e = readdir(dp))) {
        struct stat sb;
        for (int k = 0; k < 2 && !found && e->d_name[0] != '.'; k++) {
            snprintf(buf, size, "%s/%s/%s%s", dir, e->d_name, e->d_name, ext[k]);
            if (stat(buf, &sb) == 0 && !S_ISREG(sb.st_mode))
                found = buf;
        }
    }
    if (dp)
        closedir(dp);
    return found;
}

/* Whether two vector documents are equal once their generator.precision fields are. */
static int same_but_precision(const char *a, const char *b)
{
    json_t *ja = json_load_file(a, 0, NULL), *jb = json_load_file(b, 0, NULL);
    int same = 0;
    if (ja && jb) {
        json_object_del(json_object_get(ja, "generator"), "precision");
        json_object_del(json_object_get(jb, "generator"), "precision");
        same = json_equal(ja, jb);
    }
    json_decref(ja);
    json_decref(jb);
    return same;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The families under dir (each a directory <name> holding <name>.json) as "<name>/<name>.json",
 * sorted as such paths (so adam-torch-mixed before adam-torch); NULL-terminated, NULL if there
 * are none. */
static char **family_names(const char *dir)
{
    DIR *dp = opendir(dir);
    size_t n = 0;
    char **names = NULL;
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        char p[4096];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s/%s.json", dir, e->d_name, e->d_name);
        if (e->d_name[0] == '.' || stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        names = realloc(names, (n + 2) * sizeof *names);
        names[n++] = strdup(p + strlen(dir) + 1);
        names[n] = NULL;
    }
    if (dp)
        closedir(dp);
    if (names)
        qsort(names, n, sizeof *names, by_name);
    return names;
}

/* Compares `family` ("<name>/<name>.json") of the fresh and the committed trees and prints its
 * line; 1 when equal (at 256 bits to the byte; at any other precision the JSON may differ in
 * generator.precision only). */
static int compare_family(const char *fresh_dir, const char *vectors, const char *family,
                          long prec)
{
    char fresh[8192], committed[8192], a[8192], b[8192];
    int len = (int)(strchr(family, '/') - family);
    const char *name = family + len + 1; /* <name>.json */
    snprintf(fresh, sizeof fresh, "%s/%s", fresh_dir, family);
    snprintf(committed, sizeof committed, "%s/%s", vectors, family);
    int json_same = same_file(fresh, committed);
    int json_same_values = json_same || same_but_precision(fresh, committed);
    snprintf(a, sizeof a, "%s/%.*s/%.*s.safetensors", fresh_dir, len, family, len, family);
    snprintf(b, sizeof b, "%s/%.*s/%.*s.safetensors", vectors, len, family, len, family);
    int st_none = access(a, F_OK) != 0 && access(b, F_OK) != 0; /* inline values */
    int st_same = st_none || same_file(a, b);
    printf("%-40s json %s, tensors %s\n", name,
           json_same          ? "identical"
           : json_same_values ? "identical but for generator.precision"
                              : "DIFFERS",
           st_none ? "none (inline)" : st_same ? "identical" : "DIFFER");
    return st_same && (json_same || (prec != 256 && json_same_values));
}

int gen_verify(const char *vectors, long prec)
{
    struct stat sb;
    if (stat(vectors, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "optcert-gen: %s: no such vector directory\n", vectors);
        return 2;
    }
    char **there = family_names(vectors);
    if (!there) { /* not a vector set at all: bad input */
        fprintf(stderr, "optcert-gen: %s holds no vector family (<family>/<family>.json)\n",
                vectors);
        return 2;
    }
    for (size_t i = 0; there[i]; i++)
        free(there[i]);
    free(there);
    char bad[8192];
    if (irregular_file(vectors, bad, sizeof bad)) {
        fprintf(stderr, "optcert-gen: %s: not a regular file\n", bad);
        return 2;
    }
        char tmp[] = "/tmp/optcert-verify-XXXXXX";
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "optcert-gen: cannot create a temporary directory\n");
        return 2;
    }
    gen_options g = {.level = "ci", .prec = prec, .seed = GEN_DEFAULT_SEED};
    int rc = 0;
    char **names = NULL;
    if (gen_all(&g, tmp) != 0) {
        fprintf(stderr, "optcert-gen: regeneration failed\n");
        rc = 2;
    } else if (!(names = family_names(tmp))) {
        fprintf(stderr, "optcert-gen: %s: no vector families found\n", tmp);
        rc = 2;
    }
    for (size_t i = 0; names && names[i]; i++) {
        char committed[8192];
        snprintf(committed, sizeof committed, "%s/%s", vectors, names[i]);
        if (access(committed, F_OK) != 0) { /* the set differs: a family is not there */
            printf("%-40s MISSING from %s\n", strchr(names[i], '/') + 1, vectors);
            rc |= 1;
        } else {
            rc |= !compare_family(tmp, vectors, names[i], prec);
        }
        free(names[i]);
    }
    free(names);
    gen_remove_tree(tmp);
    if (rc == 0)
        printf("vectors reproduce bit for bit at %ld bits\n", prec);
    return rc;
}
