/* Prints the CPU-offload split (LAYOUT-OFFLOAD-1, -2) for offload_megatron.py, which compares
 * it with Megatron's own _get_sub_optimizer_param_groups.
 *   offload_split FRACTION NUMEL...           one line: the host flag of each parameter
 *   offload_split FRACTION --layout KIND DP   per rank, per owned piece in segment order:
 *                                             "rank flat numel host"
 * The layout mode splits a fixed ten-parameter model. Exit 2 on bad usage or a
 * split the library refuses (a fraction outside [0, 1]). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/offload.h"

/* A small model: a shared embedding, matrices and vectors of uneven sizes. */
static const oc_layout_param model[] = {
    {200, 24, 2, 1}, {24, 1, 1, 0}, {24, 72, 2, 0}, {72, 1, 1, 0}, {72, 24, 2, 0},
    {11, 7, 2, 0},   {5, 1, 1, 0},  {96, 40, 2, 0}, {1, 1, 1, 0},  {40, 40, 2, 0},
};

static int usage(const char *why)
{
    fprintf(stderr, "offload_split: %s\nusage: offload_split FRACTION NUMEL...\n"
                    "       offload_split FRACTION --layout KIND DP\n", why);
    return 2;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = (size_t)v;
    return 0;
}

static int by_layout(double fraction, const char *kind_name, const char *dp_text)
{
    oc_layout_kind kind;
    size_t dp;
    oc_layout l;
    if (oc_layout_kind_parse(kind_name, &kind) != OC_OK)
        return usage("unknown layout kind");
    if (parse_size(dp_text, &dp) != 0 || dp < 1 || dp > 64)
        return usage("DP must be 1 to 64");
    if (oc_layout_build(kind, (int)dp, model, sizeof model / sizeof model[0], NULL, &l) != OC_OK)
        return usage("layout build failed");
    int rc = 0;
    for (int r = 0; r < (int)dp && rc == 0; r++) {
        size_t n = oc_layout_segments(&l, r, NULL, 0);
        oc_layout_segment *seg = calloc(n + 1, sizeof *seg);
        unsigned char *host = calloc(n + 1, 1);
        if (!seg || !host)
            rc = usage("out of memory");
        else if (oc_offload_split_layout(&l, r, fraction, host) != OC_OK)
            rc = usage("the split refused the fraction (outside [0, 1])");
        else {
            oc_layout_segments(&l, r, seg, n);
            for (size_t i = 0; i < n; i++)
                printf("%d %zu %zu %d\n", r, seg[i].flat, seg[i].len, host[i]);
        }
        free(seg), free(host);
    }
    oc_layout_free(&l);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage("missing arguments");
    char *end;
    double fraction = strtod(argv[1], &end);
    if (end == argv[1] || *end)
        return usage("FRACTION is not a number");
    if (strcmp(argv[2], "--layout") == 0)
        return argc == 5 ? by_layout(fraction, argv[3], argv[4]) : usage("--layout KIND DP");
    size_t n = (size_t)argc - 2, *numel = calloc(n, sizeof *numel);
    unsigned char *host = calloc(n, 1);
    int rc = !numel || !host ? usage("out of memory") : 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (parse_size(argv[i + 2], &numel[i]) != 0)
            rc = usage("NUMEL must be a non-negative integer");
    if (rc == 0 && oc_offload_split(n, numel, fraction, host) != OC_OK)
        rc = usage("the split refused the input (fraction outside [0, 1], or over 2^53 elements)");
    for (size_t i = 0; i < n && rc == 0; i++)
        printf("%d%c", host[i], i + 1 < n ? ' ' : '\n');
    free(numel), free(host);
    return rc;
}
