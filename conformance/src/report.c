#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "algos.h"
#include "certify.h"

/* Why a family's cases were skipped: each distinct reason once, with its count. */
static void skip_reasons(const oc_family_report *f, FILE *out)
{
    for (size_t k = 0; k < f->ncases; k++) {
        const char *why = f->cases[k].detail;
        size_t count = 0, seen = 0;
        if (f->cases[k].verdict != OC_SKIP)
            continue;
        for (size_t j = 0; j < f->ncases; j++)
            if (f->cases[j].verdict == OC_SKIP && strcmp(f->cases[j].detail, why) == 0)
                seen |= j < k, count++;
        if (!seen)
            fprintf(out, "  %s: %zu of %zu cases skipped: %s\n", f->name, count, f->ncases, why);
    }
}

void oc_report_table(const oc_certificate *cert, FILE *out, int verbose)
{
    fprintf(out, "optcert certificate\n  implementation: %s %s (%s)\n  class: %s%s\n",
            cert->impl, cert->version, cert->source, oc_class_name(cert->cls),
            cert->cls == OC_CLASS_FP32 ? " (fp64 for the binary64 schedule families)" : "");
    /* VEC-SET-2: the vector set used, by its manifest's SHA-256 */
    fprintf(out, "  vectors: %s, level %s, manifest sha256 %s\n\n",
            cert->vectors_custom ? "custom vectors (they differ from the shipped manifest)"
                                 : "the shipped vectors",
            cert->level[0] ? cert->level : "?", cert->vectors_sha256[0] ? cert->vectors_sha256 : "?");
    /* columns as wide as the longest family name and profile */
    int wn = 6, wp = 7;
    for (size_t i = 0; i < cert->nfams; i++) {
        wn = (int)fmax(wn, (double)strlen(cert->fams[i].name));
        wp = (int)fmax(wp, (double)strlen(cert->fams[i].profile));
    }
    fprintf(out, "%-*s %-*s %6s %6s %6s %8s %8s %11s %11s %5s\n", wn, "family", wp, "profile",
            "pass", "FAIL", "skip", "accepted", "rejected", "worst ulp", "worst/bound",
            "bound");
    for (size_t i = 0; i < cert->nfams; i++) {
        const oc_family_report *f = &cert->fams[i];
        fprintf(out, "%-*s %-*s %6zu %6zu %6zu %8zu %8zu %11.3g %11.3g %5s\n", wn, f->name, wp,
                f->profile, f->counts[OC_PASS], f->counts[OC_FAIL], f->counts[OC_SKIP],
                f->counts[OC_ACCEPTED], f->counts[OC_REJECTED], f->worst_ulps, f->worst_ratio,
                oc_bound_class_name(f->algorithm, cert->cls));
    }
    fprintf(out, "\n  worst/bound: the largest error over the bound of the class named in "
            "column bound\n");
    for (size_t i = 0; i < cert->nfams; i++)
        skip_reasons(&cert->fams[i], out);
    for (size_t i = 0; i < cert->nfams; i++)
        for (size_t k = 0; k < cert->fams[i].ncases; k++) {
            const oc_case_result *r = &cert->fams[i].cases[k];
            if (r->verdict == OC_FAIL || (verbose && r->verdict != OC_PASS && r->verdict != OC_SKIP))
                fprintf(out, "  %s tcId %d: %s: %s%s%s%s%s\n", cert->fams[i].name, r->tcid,
                        oc_verdict_name(r->verdict), r->detail,
                        r->diagnosis ? " -- behaves like " : "",
                        r->diagnosis ? r->diagnosis : "",
                        r->locate[0] ? "\n      no catalogued mistake reproduces it; " : "",
                        r->locate);
        }
    fprintf(out, "\nverdict: %s\n", cert->conforms ? "CONFORMS" : "DOES NOT CONFORM");
}

static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_string(isnan(x) ? "nan" : "inf");
}

static json_t *num_array(const double *x, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, num(x[i]));
    return a;
}

/* A case's plot data (judge.h oc_case_plot), as the HTML certificate draws it; NULL if none:
 * "steps" {first, runLength, worst[]}: the largest error / bound of each run of runLength
 * steps, the first starting at step `first`; "trajectory" {x[], <output>: {expected[], got[]}};
 * "singularValues" {rank[], input[], got[], expected[]}. */
static json_t *plot_json(const oc_case_plot *p, const char *algorithm)
{
    json_t *o = json_object();
    if (p->nruns > 1) /* one run: the case's maxErrorOverBound */
        json_object_set_new(o, "steps", json_pack("{s:I,s:I,s:o}", "first",
                                                  (json_int_t)p->first_step, "runLength",
                                                  (json_int_t)p->run_length, "worst",
                                                  num_array(p->run_ratio, p->nruns)));
    const oc_algo *a = oc_algo_find(algorithm);
    if (p->ntraj > 0 && a) {
        json_t *t = json_object(), *x = json_array();
        for (int b = 0; b < p->ntraj; b++)
            json_array_append_new(x, json_integer((json_int_t)p->traj_x[b]));
        json_object_set_new(t, "x", x);
        for (int k = 0; k < p->nseries; k++)
            json_object_set_new(t, a->state_names[k], json_pack("{s:o,s:o}", "expected",
                                num_array(p->traj_expected[k], p->ntraj), "got",
                                num_array(p->traj_got[k], p->ntraj)));
        json_object_set_new(o, "trajectory", t);
    }
    if (p->nsv > 0) {
        json_t *rank = json_array();
        for (int b = 0; b < p->nsv; b++)
            json_array_append_new(rank, json_integer(p->sv_rank[b]));
        json_object_set_new(o, "singularValues",
                            json_pack("{s:o,s:o,s:o,s:o}", "rank", rank, "input",
                                      num_array(p->sv_input, p->nsv), "got",
                                      num_array(p->sv_got, p->nsv), "expected",
                                      num_array(p->sv_expected, p->nsv)));
    }
    if (json_object_size(o) == 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

oc_status oc_report_json(const oc_certificate *cert, const char *path, oc_diag *d)
{
    json_t *fams = json_array();
    for (size_t i = 0; i < cert->nfams; i++) {
        const oc_family_report *f = &cert->fams[i];
        json_t *cases = json_array();
        for (size_t k = 0; k < f->ncases; k++) {
            const oc_case_result *r = &f->cases[k];
            json_array_append_new(
                cases, json_pack("{s:i,s:s,s:o,s:o,s:s,s:s?,s:s?,s:o*}", "tcId", r->tcid,
                                 "verdict", oc_verdict_name(r->verdict), "maxUlps",
                                 num(r->max_ulps), "maxErrorOverBound", num(r->max_ratio),
                                 "detail", r->detail, "behavesLike", r->diagnosis,
                                 "localisation", r->locate[0] ? r->locate : NULL, "plot",
                                 plot_json(&r->plot, f->algorithm)));
        }
        json_array_append_new(
            fams, json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:s,s:o}", "family", f->name,
                            "profile", f->profile, "pass", (json_int_t)f->counts[OC_PASS],
                            "fail", (json_int_t)f->counts[OC_FAIL], "skipped",
                            (json_int_t)f->counts[OC_SKIP], "accepted",
                            (json_int_t)f->counts[OC_ACCEPTED], "rejected",
                            (json_int_t)f->counts[OC_REJECTED], "worstUlps",
                            num(f->worst_ulps), "worstErrorOverBound", num(f->worst_ratio),
                            "boundClass", oc_bound_class_name(f->algorithm, cert->cls),
                            "cases", cases));
    }
    json_t *vectors = json_pack("{s:s,s:s,s:b}", "manifestSha256", cert->vectors_sha256,
                                "level", cert->level, "custom", cert->vectors_custom);
    json_t *doc = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:b,s:o}", "schema", "optcert-certificate/1",
                            "implementation", cert->impl, "version", cert->version, "source",
                            cert->source, "class", oc_class_name(cert->cls), "vectors", vectors,
                            "conforms", cert->conforms, "families", fams);
    int rc = json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    return rc == 0 ? OC_OK : oc_fail(d, OC_ERR_IO, "%s: cannot write JSON report", path);
}

void oc_xml_escaped(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

oc_status oc_report_junit(const oc_certificate *cert, const char *path, oc_diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return oc_fail(d, OC_ERR_IO, "%s: cannot write JUnit report", path);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"optcert\">\n");
    for (size_t i = 0; i < cert->nfams; i++) {
        const oc_family_report *fr = &cert->fams[i];
        fprintf(f, " <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
                fr->name, fr->ncases, fr->counts[OC_FAIL], fr->counts[OC_SKIP]);
        fprintf(f, "  <properties><property name=\"vectors.manifestSha256\" value=\"%s\"/>"
                "<property name=\"vectors.level\" value=\"", cert->vectors_sha256);
        oc_xml_escaped(f, cert->level);
        fprintf(f, "\"/><property name=\"vectors.custom\" value=\"%s\"/></properties>\n",
                cert->vectors_custom ? "true" : "false");
        for (size_t k = 0; k < fr->ncases; k++) {
            const oc_case_result *r = &fr->cases[k];
            fprintf(f, "  <testcase classname=\"%s\" name=\"tcId %d\">", fr->name, r->tcid);
            if (r->verdict == OC_FAIL) {
                fputs("<failure message=\"", f);
                oc_xml_escaped(f, r->detail);
                if (r->diagnosis) {
                    fputs(" -- behaves like ", f);
                    oc_xml_escaped(f, r->diagnosis);
                }
                if (r->locate[0]) {
                    fputs(" -- ", f);
                    oc_xml_escaped(f, r->locate);
                }
                fputs("\"/>", f);
            } else if (r->verdict == OC_SKIP) {
                fputs("<skipped message=\"", f);
                oc_xml_escaped(f, r->detail);
                fputs("\"/>", f);
            }
            fputs("</testcase>\n", f);
        }
        fputs(" </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    return fclose(f) == 0 ? OC_OK : oc_fail(d, OC_ERR_IO, "%s: write error", path);
}
