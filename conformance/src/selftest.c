/* The harness self-test (spec/vectors.md VEC-JUDGE-1): for every family, every quantity the
 * harness reads from an implementation is judged. The reference's outputs of each valid case
 * pass; then, one entry at a time (the first and the last entry of each quantity in each case),
 * a wrong value of that entry alone must fail the case. The wrong value: the other decision for
 * a route; a non-finite entry replaced by 0; else the entry moved by 1, 16, 256, ... ulps of its
 * format until the case fails, up to 2^64 times its magnitude (2^64 for a 0). An entry that no
 * wrong value fails is a quantity the certificate does not judge. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "certify.h"
#include "selftest.h"

#define MAX_QUANTITIES 24

typedef struct tally {
    const char *name;
    size_t cases, entries, failed;
    double worst; /* the largest move (2^worst ulps of the entry's format) a case needed */
} tally;

static tally *find(tally *t, int *nt, const char *name)
{
    for (int i = 0; i < *nt; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    if (*nt == MAX_QUANTITIES)
        return NULL;
    t[*nt] = (tally){.name = name};
    return &t[(*nt)++];
}

static const char *quantity(const oc_case *c, int k, size_t j)
{
    if (k == OC_ROUTE_OUTPUT && c->algo == &oc_algo_muon_route)
        return "route"; /* ROUTE-RULE-1, VEC-RES-4 */
    return oc_quantity(c, k, j);
}

static int fails(const oc_case *c, const oc_outputs *o)
{
    oc_case_result r = {0};
    oc_judge_outputs(c, o, OC_CLASS_FP32, &r);
    return r.verdict == OC_FAIL;
}

/* Moves entry j of output k until the case fails; returns the move as e for 2^e ulps (0 for a
 * route or a non-finite entry), or -1 if no move fails it. The entry is restored. */
static double wrong_fails(const oc_case *c, oc_outputs *o, int k, size_t j)
{
    double keep = o->out[k][j], moved = -1;
    int prec = k < c->nstate ? c->precision[k] : 24;
    if (k >= c->nstate) { /* a route: the other one */
        o->out[k][j] = 1 - keep;
        moved = fails(c, o) ? 0 : -1;
    } else if (!isfinite(keep)) {
        o->out[k][j] = 0;
        moved = fails(c, o) ? 0 : -1;
    } else
        for (int e = 0; ldexp(oc_ulp(keep, prec), e) <= 0x1p64 * fmax(fabs(keep), 1) && moved < 0;
             e += 4) { /* up to 2^64 times the value (a 0 with an absolute bound needs many) */
            o->out[k][j] = keep + ldexp(oc_ulp(keep, prec), e);
            if (fails(c, o))
                moved = e;
        }
    o->out[k][j] = keep;
    return moved;
}

/* One valid case: every output of the reference, first and last entry of each quantity. */
static int check_case(const oc_case *c, tally *t, int *nt, const char *fam, FILE *out)
{
    oc_outputs o;
    oc_status st;
    int dirty, bad = 0;
    oc_run_case(oc_ref(), c, &o, &st, &dirty);
    if (st != OC_OK || fails(c, &o)) {
        fprintf(out, "  %s tcId %d: the reference does not pass it (fp32)\n", fam, c->tcid);
        oc_outputs_free(&o);
        return 1;
    }
    for (int k = 0; k < OC_MAX_STATE; k++) {
        /* the outputs of the case, and a route (a Muon-routed parameter's v is none) */
        size_t len = k < c->nstate ? c->steps * c->n
                     : k == OC_ROUTE_OUTPUT && c->algo == &oc_algo_muon_route && o.out[k] ? 1 : 0;
        const char *seen[2][MAX_QUANTITIES];
        size_t at[2][MAX_QUANTITIES];
        int nseen[2] = {0, 0};
        for (int pass = 0; pass < 2; pass++) /* first entries, then last entries */
            for (size_t i = 0; i < len; i++) {
                size_t j = pass ? len - 1 - i : i;
                const char *q = quantity(c, k, j);
                int s = 0, same = 0;
                while (s < nseen[pass] && strcmp(seen[pass][s], q) != 0)
                    s++;
                if (s < nseen[pass] || s == MAX_QUANTITIES)
                    continue;
                seen[pass][s] = q;
                at[pass][nseen[pass]++] = j;
                for (int f = 0; pass && f < nseen[0]; f++) /* one entry: tried once */
                    same |= strcmp(seen[0][f], q) == 0 && at[0][f] == j;
                tally *tq = find(t, nt, q);
                if (same || !tq)
                    continue;
                double moved = wrong_fails(c, &o, k, j);
                tq->entries++;
                if (moved >= 0) {
                    tq->failed++;
                    tq->worst = fmax(tq->worst, moved);
                } else {
                    bad = 1;
                    fprintf(out, "  %s tcId %d: %s (%s[%zu]) is not judged: no wrong value "
                            "fails the case\n", fam, c->tcid, q, k < c->nstate ? c->names[k] : q, j);
                }
            }
    }
    oc_outputs_free(&o);
    return bad;
}

int oc_selftest_family(const oc_family *fam, FILE *out)
{
    tally t[MAX_QUANTITIES];
    int nt = 0, bad = 0;
    for (size_t k = 0; k < fam->ncases; k++) {
        if (fam->cases[k].result != OC_RESULT_VALID)
            continue;
        size_t before[MAX_QUANTITIES] = {0};
        for (int q = 0; q < nt; q++)
            before[q] = t[q].entries;
        bad |= check_case(&fam->cases[k], t, &nt, fam->name, out);
        for (int q = 0; q < nt; q++)
            t[q].cases += t[q].entries > before[q];
    }
    for (int q = 0; q < nt; q++) {
        fprintf(out, "%-28s %-18s %6zu %8zu %8zu  2^%.0f ulp\n", fam->name, t[q].name, t[q].cases,
                t[q].entries, t[q].failed, t[q].worst);
        bad |= t[q].failed != t[q].entries;
    }
    if (nt == 0) {
        fprintf(out, "%-28s (no valid case: nothing judged)\n", fam->name);
        bad = 1;
    }
    return bad;
}

int oc_selftest(const char *vector_dir, const char *only, FILE *out, oc_diag *d)
{
    char **paths;
    int bad = 0, any = 0;
    if (oc_family_list(vector_dir, &paths, d) != OC_OK)
        return -1;
    fprintf(out, "harness self-test: a wrong value of one output entry alone fails its case "
            "(class fp32; the first and last entry of each output in each valid case)\n\n");
    fprintf(out, "%-28s %-18s %6s %8s %8s  %s\n", "family", "output", "cases", "entries",
            "failed", "largest move a case needed to fail");
    for (size_t i = 0; paths[i]; i++) {
        oc_family fam;
        if (oc_family_load(paths[i], &fam, d) != OC_OK) {
            oc_free_list(paths);
            return -1;
        }
        if (!only || strcmp(only, fam.name) == 0) {
            any = 1;
            bad |= oc_selftest_family(&fam, out);
        }
        oc_family_free(&fam);
    }
    oc_free_list(paths);
    if (!any) {
        oc_fail(d, OC_ERR_IO, "%s: no family named '%s'", vector_dir, only ? only : "");
        return -1;
    }
    fprintf(out, "\nself-test: %s\n", bad ? "FAILED (an output is not judged)" : "every output judged");
    return bad;
}
