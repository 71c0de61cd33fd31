#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_common.h"
#include "judge.h"

static char dir[4096];

static void remove_dir(void)
{
    char cmd[4200];
    if (dir[0] && snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) < (int)sizeof cmd &&
        system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", dir);
}

const char *oc_fuzz_dir(void)
{
    if (!dir[0]) {
        const char *t = getenv("TMPDIR"); /* else memory, where there is: no disk per input */
        if (!t || !*t)
            t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/optcert-fuzz-XXXXXX", t);
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(remove_dir);
    }
    return dir;
}

const char *oc_fuzz_write(const char *name, const void *bytes, size_t size)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", oc_fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    if (size && fwrite(bytes, 1, size, f) != size) {
        fclose(f);
        return NULL;
    }
    return fclose(f) == 0 ? path : NULL;
}

void oc_fuzz_keep_mutant_runs(oc_family *fam)
{
    for (size_t i = 0; i < fam->ncases; i++)
        if (oc_keep_mutant_runs(&fam->cases[i]) != 0)
            abort();
}

oc_family *oc_fuzz_fams;
size_t oc_fuzz_nfams;

void oc_fuzz_load_families(void)
{
    if (oc_fuzz_fams)
        return;
    char **paths;
    oc_diag d;
    if (oc_family_list(OPTCERT_FUZZ_FAMILIES, &paths, &d) != OC_OK) {
        fprintf(stderr, "fuzz: %s\n", d.msg);
        abort();
    }
    size_t n = 0;
    while (paths[n])
        n++;
    oc_fuzz_fams = calloc(n, sizeof *oc_fuzz_fams);
    for (size_t i = 0; i < n; i++)
        if (oc_family_load(paths[i], &oc_fuzz_fams[oc_fuzz_nfams], &d) == OC_OK)
            oc_fuzz_keep_mutant_runs(&oc_fuzz_fams[oc_fuzz_nfams++]);
        else {
            fprintf(stderr, "fuzz: %s\n", d.msg);
            abort();
        }
    oc_free_list(paths);
}
