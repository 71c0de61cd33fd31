/* Prints a layout of fast/layout as JSON, for the comparison with Megatron's own layout code
 * (conformance/adapters/megatron_layout.py, spec/layouts.md §4.1):
 *   layout_dump PROFILE DP BUCKET_SIZE HIGH_BUSBW < parameters
 * one parameter per input line, in model (forward) order: "DIM0 DIM1 NDIM SHARED_EMBEDDING"
 * (NDIM 1 or 2; a 1-D parameter has DIM1 = 1); BUCKET_SIZE 0 is one bucket (Megatron's None).
 * Output: {"size", "buckets": [[start, end]...], "offset": [...], "owner": [...] (layerwise
 * profiles, else null), "segments": [[rank, param, off, len, flat]...] (LAYOUT-OWN-1),
 * "makespan", "lower_bound" (layerwise profiles, LAYOUT-LW-2, else 0)}.
 * Bad input: exit 2 with a message. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "optcert/layout.h"

static int parse_size(const char *s, size_t max, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > max)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int usage(const char *why)
{
    fprintf(stderr, "%s%s\nusage: layout_dump PROFILE DP BUCKET_SIZE HIGH_BUSBW "
                    "< \"DIM0 DIM1 NDIM SHARED\" lines\n", *why ? "layout_dump: " : "", why);
    return 2;
}

int main(int argc, char **argv)
{
    oc_layout_kind kind;
    size_t dp, high;
    oc_layout_opts opts = {0, 0};
    if (argc != 5)
        return usage("four arguments expected");
    if (oc_layout_kind_parse(argv[1], &kind) != OC_OK) {
        fprintf(stderr, "layout_dump: unknown profile '%s'; profiles:", argv[1]);
        for (int k = 0; k < OC_LAYOUT_KIND_COUNT; k++)
            fprintf(stderr, " %s", oc_layout_kind_name((oc_layout_kind)k));
        return usage("");
    }
    if (parse_size(argv[2], 65536, &dp) || dp < 1 || parse_size(argv[3], (size_t)1 << 40,
                                                                &opts.bucket_size) ||
        parse_size(argv[4], 1, &high))
        return usage("DP must be 1..65536, BUCKET_SIZE a count, HIGH_BUSBW 0 or 1");
    opts.high_busbw = (int)high;
    oc_layout_param *p = NULL;
    size_t n = 0;
    unsigned long long d0, d1;
    int ndim, shared, got;
    while ((got = scanf("%llu %llu %d %d", &d0, &d1, &ndim, &shared)) == 4) {
        oc_layout_param *q = realloc(p, (n + 1) * sizeof *p);
        if (!q)
            return free(p), usage("out of memory");
        p = q;
        p[n++] = (oc_layout_param){(size_t)d0, (size_t)d1, ndim, shared};
    }
    if (got != EOF || n == 0)
        return free(p), usage("parameters: lines of four integers expected");
    oc_layout l;
    oc_status st = oc_layout_build(kind, (int)dp, p, n, &opts, &l);
    free(p);
    if (st != OC_OK)
        return usage("the layout rejects these parameters (a shape of 0, NDIM not 1 or 2, or a "
                     "1-D parameter with DIM1 != 1)");
    printf("{\"size\": %zu, \"buckets\": [", l.size);
    for (size_t b = 0; b < l.nbuckets; b++)
        printf("%s[%zu, %zu]", b ? ", " : "", l.bucket_start[b],
               l.bucket_start[b] + (kind == OC_LAYOUT_REPLICATED ? 1 : dp) * l.shard[b]);
    printf("], \"offset\": [");
    for (size_t i = 0; i < n; i++)
        printf("%s%zu", i ? ", " : "", l.offset[i]);
    printf("], \"owner\": ");
    for (size_t i = 0; i < n && l.owner; i++)
        printf("%s%d", i ? ", " : "[", l.owner[i]);
    printf(l.owner ? "], \"segments\": [" : "null, \"segments\": [");
    const char *sep = "";
    for (int r = 0; r < (int)dp; r++) {
        size_t ns = oc_layout_segments(&l, r, NULL, 0);
        oc_layout_segment *seg = calloc(ns + 1, sizeof *seg);
        if (!seg)
            return oc_layout_free(&l), usage("out of memory");
        oc_layout_segments(&l, r, seg, ns);
        for (size_t k = 0; k < ns; k++, sep = ", ")
            printf("%s[%d, %zu, %zu, %zu, %zu]", sep, r, seg[k].param, seg[k].off, seg[k].len,
                   seg[k].flat);
        free(seg);
    }
    printf("], \"makespan\": %.17g, \"lower_bound\": %.17g}\n", l.makespan, l.lower_bound);
    oc_layout_free(&l);
    return 0;
}
