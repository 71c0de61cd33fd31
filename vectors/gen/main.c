/* optcert-gen: writes the golden vector files (spec/vectors.md), or checks that the committed
 * ones regenerate bit for bit.
 * usage: optcert-gen [--level ci|cert] [--precision BITS] [--seed N] OUTDIR
 *        optcert-gen verify [--vectors DIR] [--precision BITS]
 *        optcert-gen tolcheck [--cache DIR]
 * Exit status: 0 written / all identical / every bound within (tolcheck, spec/adam.md
 * ADAM-TOL-3), 1 a failure to write / a difference / a bound outside, 2 bad usage, a missing
 * vector directory or missing proof results. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "gen.h"

#ifndef OPTCERT_SOURCE_DIR
#define OPTCERT_SOURCE_DIR "."
#endif

static int usage(void)
{
    fprintf(stderr, "usage: optcert-gen [--level ci|cert] [--precision BITS>=200] [--seed N] OUTDIR\n"
                    "       optcert-gen verify [--vectors DIR] [--precision BITS>=200]\n"
                    "       optcert-gen tolcheck [--cache DIR]\n");
    return 2;
}

/* --precision's value: 200 to 100000 bits, else -1. */
static long precision_arg(const char *s)
{
    char *end;
    long p = strtol(s, &end, 10);
    return *s && !*end && p >= 200 && p <= 100000 ? p : -1;
}

static int verify(int argc, char **argv)
{
    static char vdir[4096];
    snprintf(vdir, sizeof vdir, "%s/vectors", OPTCERT_SOURCE_DIR);
    const char *vectors = vdir;
    long prec = 256;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--vectors") == 0 && i + 1 < argc)
            vectors = argv[++i];
        else if (strcmp(argv[i], "--precision") == 0 && i + 1 < argc)
            prec = precision_arg(argv[++i]);
        else
            return usage();
        if (prec < 0)
            return usage();
    }
    return gen_verify(vectors, prec);
}

static int tolcheck(int argc, char **argv)
{
    static char cdir[4096];
    snprintf(cdir, sizeof cdir, "%s/proofs/cache", OPTCERT_SOURCE_DIR);
    const char *cache = cdir;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc)
            cache = argv[++i];
        else
            return usage();
    }
    return gen_tolcheck_run(cache);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "verify") == 0)
        return verify(argc, argv);
    if (argc > 1 && strcmp(argv[1], "tolcheck") == 0)
        return tolcheck(argc, argv);
    gen_options opt = {.level = "ci", .prec = 256, .seed = GEN_DEFAULT_SEED};
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
            opt.level = argv[++i];
            if (strcmp(opt.level, "ci") != 0 && strcmp(opt.level, "cert") != 0)
                return usage();
        } else if (strcmp(argv[i], "--precision") == 0 && i + 1 < argc) {
            if ((opt.prec = precision_arg(argv[++i])) < 0)
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
