/* optcert-gen: writes the golden vector files (spec/vectors.md).
 * usage: optcert-gen [--level ci|cert] [--precision BITS] [--seed N] OUTDIR */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "gen.h"

#define DEFAULT_SEED 20261129ull

static int usage(void)
{
    fprintf(stderr, "usage: optcert-gen [--level ci|cert] [--precision BITS>=200] [--seed N] OUTDIR\n");
    return 2;
}

int main(int argc, char **argv)
{
    gen_options opt = {.level = "ci", .prec = 256, .seed = DEFAULT_SEED};
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
            opt.level = argv[++i];
            if (strcmp(opt.level, "ci") != 0 && strcmp(opt.level, "cert") != 0)
                return usage();
        } else if (strcmp(argv[i], "--precision") == 0 && i + 1 < argc) {
            opt.prec = strtol(argv[++i], NULL, 10);
            if (opt.prec < 200 || opt.prec > 100000)
                return usage();
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            opt.seed = strtoull(argv[++i], NULL, 10);
        } else if (argv[i][0] != '-' && !out) {
            out = argv[i];
        } else {
            return usage();
        }
    }
    if (!out)
        return usage();
    mkdir(out, 0777); /* may exist already; gen_all reports any real failure */
    if (gen_all(&opt, out) != 0) {
        fprintf(stderr, "optcert-gen: could not write vectors under %s\n", out);
        return 1;
    }
    return 0;
}
