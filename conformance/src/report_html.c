/* The HTML certificate (`--report html:FILE`, `--html FILE`): the table report's header and
 * family table, then per family an inline SVG plot of every judged case's largest error over
 * its bound (the `worst/bound` column, per case; <= 1 passes, ADAM-TOL-1 and the other
 * families' TOL rules) on a log scale, the distribution of those ratios by decade (how far
 * below its bound the family sits), and a table of the cases that did not pass. Generated
 * here, with no plotting library: the page is one self-contained XHTML file. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "certify.h"

/* The plot: x is the case's position in the family, y = log10(error / bound) from Y_MIN to
 * Y_MAX; a case with no error (ratio 0) sits on a row of its own below, labelled 0, one above
 * 10^Y_MAX on the top edge drawn as a triangle (its title gives the value). */
enum { W = 720, H = 260, LEFT = 56, RIGHT = 12, TOP = 14, BOTTOM = 44, ZERO_GAP = 14 };
enum { Y_MIN = -8, Y_MAX = 8 };

static double y_of(double ratio)
{
    if (ratio == 0)
        return H - BOTTOM + ZERO_GAP;
    double l = fmin(fmax(log10(ratio), Y_MIN), Y_MAX);
    return TOP + (Y_MAX - l) * (H - TOP - BOTTOM) / (Y_MAX - Y_MIN);
}

/* Whether the case has an error measured against a bound (a judged output): passes and
 * failures with a finite ratio; not the skipped, the rejected invalid inputs, nor failures
 * without outputs (an accepted invalid input, a crash). */
static int plotted(const oc_case_result *r)
{
    return (r->verdict == OC_PASS || r->verdict == OC_FAIL) && isfinite(r->max_ratio) &&
           !(r->verdict == OC_FAIL && r->max_ratio == 0);
}

static void plot(FILE *f, const oc_family_report *fr)
{
    size_t n = 0;
    for (size_t k = 0; k < fr->ncases; k++)
        n += plotted(&fr->cases[k]);
    if (n == 0) {
        fputs("<p>No case with a measured error.</p>\n", f);
        return;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\"><title>%s: error / bound per case</title>\n",
            W, H, W, H, fr->name);
    for (int e = Y_MIN; e <= Y_MAX; e += 2) { /* grid and axis labels, every two decades */
        double y = y_of(pow(10, e));
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>"
                "<text x=\"%d\" y=\"%.1f\" class=\"tick\">1e%d</text>\n",
                LEFT, W - RIGHT, y, y, e == 0 ? "bound" : "grid", LEFT - 4, y + 4, e);
    }
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"tick\">0</text>\n", LEFT - 4, y_of(0) + 4);
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axis\">case (tcId order); y: largest |error| / "
            "bound (1 = the bound, dashed orange; 0: exact)</text>\n", LEFT, H - 6);
    size_t i = 0;
    double span = W - LEFT - RIGHT;
    for (size_t k = 0; k < fr->ncases; k++) {
        const oc_case_result *r = &fr->cases[k];
        if (!plotted(r))
            continue;
        double x = LEFT + span * (n == 1 ? 0.5 : (double)i / (double)(n - 1));
        double y = y_of(r->max_ratio);
        const char *cls = r->verdict == OC_PASS ? "pass" : "fail";
        if (r->max_ratio > pow(10, Y_MAX)) /* off the scale: a triangle on the top edge */
            fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" class=\"%s\" "
                    "data-tcid=\"%d\">", x - 4, y + 3, x + 4, y + 3, x, y - 4, cls, r->tcid);
        else
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" class=\"%s%s\" data-tcid=\"%d\">",
                    x, y, cls, r->max_ratio == 0 ? " exact" : "", r->tcid);
        fprintf(f, "<title>tcId %d: %s, error/bound %.3g, %.3g ulp</title></%s>\n", r->tcid,
                oc_verdict_name(r->verdict), r->max_ratio, r->max_ulps,
                r->max_ratio > pow(10, Y_MAX) ? "polygon" : "circle");
        i++;
    }
    fputs("</svg>\n", f);
}

/* The distribution: one bar per decade (10^(k-1), 10^k] of error / bound for k from Y_MIN + 1
 * to Y_MAX (the first also holds the smaller ratios), one for the exact cases (0) and one for
 * those above 10^Y_MAX; the bars above 1 are over the bound. Each bar's data-bin is k ("exact", "above"), data-count its number of cases. */
enum { NBINS = Y_MAX - Y_MIN + 2 }; /* exact, decades Y_MIN+1 .. Y_MAX, above */
static void histogram(FILE *f, const oc_family_report *fr)
{
    size_t count[NBINS] = {0}, most = 0;
    for (size_t k = 0; k < fr->ncases; k++) {
        const oc_case_result *r = &fr->cases[k];
        if (!plotted(r))
            continue;
        int b = r->max_ratio == 0                  ? 0
                : r->max_ratio > pow(10, Y_MAX)    ? NBINS - 1
                                                   : (int)fmax(ceil(log10(r->max_ratio)) - Y_MIN,
                                                               1);
        if (++count[b] > most)
            most = count[b];
    }
    if (most == 0)
        return;
    enum { HH = 180 };
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>%s: distribution of "
            "error / bound</title>\n", W, HH, W, HH, fr->name);
    double bw = (double)(W - LEFT - RIGHT) / NBINS, top = TOP, base = HH - BOTTOM;
    for (int b = 0; b < NBINS; b++) {
        double x = LEFT + b * bw, h = (base - top) * (double)count[b] / (double)most;
        int k = b + Y_MIN; /* the decade's upper end, 10^k */
        char bin[16];
        if (b == 0 || b == NBINS - 1)
            snprintf(bin, sizeof bin, "%s", b == 0 ? "exact" : "above");
        else
            snprintf(bin, sizeof bin, "%d", k);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "class=\"%s\" data-bin=\"%s\" data-count=\"%zu\"><title>%s: %zu cases"
                "</title></rect>\n", x + 1, base - h, bw - 2, h, b > -Y_MIN ? "fail" : "pass",
                bin, count[b], bin, count[b]);
        if (b == 0 || b == NBINS - 1 || k % 2 == 0)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%s%s</text>\n",
                    x + bw, base + 12, b == 0 || b == NBINS - 1 ? "" : "1e", b == 0 ? "0" : bin);
    }
    double xb = LEFT + (1 - Y_MIN) * bw; /* the bound: between the decades ending at 1 and 10 */
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"bound\"/>\n"
            "<text x=\"%d\" y=\"%d\" class=\"axis\">cases per decade of largest |error| / bound "
            "(upper ends; right of the dashed line: over the bound); max %zu</text>\n</svg>\n",
            xb, xb, top, base, LEFT, HH - 6, most);
}

oc_status oc_report_html(const oc_certificate *cert, const char *path, oc_diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return oc_fail(d, OC_ERR_IO, "%s: cannot write HTML report", path);
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\"><head>"
          "<meta charset=\"utf-8\"/><title>optcert certificate: ", f);
    oc_xml_escaped(f, cert->impl);
    fputs("</title><style>\n"
          "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}"
          "td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}td.l,th.l{text-align:left}"
          ".CONFORMS{color:#070}.NOT{color:#b00}tr.FAIL td{background:#fdd}"
          ".pass{fill:#2a7}.fail{fill:#d22}circle.exact{fill:none;stroke:#2a7}"
          "line.grid{stroke:#ddd}line.bound{stroke:#e80;stroke-dasharray:4 3}"
          ".tick{font-size:10px;text-anchor:end}.axis{font-size:11px}\n"
          "</style></head><body>\n<h1>optcert certificate</h1>\n<p>Implementation: ", f);
    oc_xml_escaped(f, cert->impl);
    fputc(' ', f);
    oc_xml_escaped(f, cert->version);
    fputs(" (", f);
    oc_xml_escaped(f, cert->source);
    fprintf(f, ")<br/>Class: %s<br/>Vectors: %s, level ", oc_class_name(cert->cls),
            cert->vectors_custom ? "custom vectors (they differ from the shipped manifest)"
                                 : "the shipped vectors");
    oc_xml_escaped(f, cert->level[0] ? cert->level : "?");
    fprintf(f, ", manifest sha256 %s</p>\n<h2 id=\"verdict\" class=\"%s\">%s</h2>\n",
            cert->vectors_sha256[0] ? cert->vectors_sha256 : "?",
            cert->conforms ? "CONFORMS" : "NOT", cert->conforms ? "CONFORMS" : "DOES NOT CONFORM");
    fputs("<table id=\"families\"><tr><th class=\"l\">family</th><th class=\"l\">profile</th>"
          "<th>pass</th><th>FAIL</th><th>skip</th><th>accepted</th><th>rejected</th>"
          "<th>worst ulp</th><th>worst/bound</th></tr>\n", f);
    for (size_t i = 0; i < cert->nfams; i++) {
        const oc_family_report *fr = &cert->fams[i];
        fprintf(f, "<tr%s><td class=\"l\"><a href=\"#%s\">%s</a></td><td class=\"l\">%s</td>"
                "<td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%.3g</td>"
                "<td>%.3g</td></tr>\n", fr->counts[OC_FAIL] ? " class=\"FAIL\"" : "", fr->name,
                fr->name, fr->profile, fr->counts[OC_PASS], fr->counts[OC_FAIL],
                fr->counts[OC_SKIP], fr->counts[OC_ACCEPTED], fr->counts[OC_REJECTED],
                fr->worst_ulps, fr->worst_ratio);
    }
    fputs("</table>\n", f);
    for (size_t i = 0; i < cert->nfams; i++) {
        const oc_family_report *fr = &cert->fams[i];
        if (fr->counts[OC_SKIP] == fr->ncases)
            continue; /* a family the implementation does not claim: its table row says so */
        fprintf(f, "<h2 id=\"%s\">%s</h2>\n", fr->name, fr->name);
        plot(f, fr);
        histogram(f, fr);
        size_t shown = 0;
        for (size_t k = 0; k < fr->ncases; k++) {
            const oc_case_result *r = &fr->cases[k];
            if (r->verdict == OC_PASS)
                continue;
            if (shown++ == 0)
                fputs("<table class=\"cases\"><tr><th>tcId</th><th class=\"l\">verdict</th>"
                      "<th>worst ulp</th><th>worst/bound</th><th class=\"l\">detail</th></tr>\n", f);
            fprintf(f, "<tr class=\"%s\"><td>%d</td><td class=\"l\">%s</td><td>%.3g</td>"
                    "<td>%.3g</td><td class=\"l\">", r->verdict == OC_FAIL ? "FAIL" : "other",
                    r->tcid, oc_verdict_name(r->verdict), r->max_ulps, r->max_ratio);
            oc_xml_escaped(f, r->detail);
            if (r->diagnosis) {
                fputs(" -- behaves like ", f);
                oc_xml_escaped(f, r->diagnosis);
            }
            fputs("</td></tr>\n", f);
        }
        if (shown)
            fputs("</table>\n", f);
    }
    fputs("</body></html>\n", f);
    return fclose(f) == 0 ? OC_OK : oc_fail(d, OC_ERR_IO, "%s: write error", path);
}
