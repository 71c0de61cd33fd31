/* The HTML certificate (`--report html:FILE`, `--html FILE`): the table report's header and
 * family table, then per family an inline SVG plot of every judged case's largest error over
 * its bound (the `worst/bound` column, per case; <= 1 passes, ADAM-TOL-1 and the other
 * families' TOL rules) on a log scale, the distribution of those ratios by decade (how far
 * below its bound the family sits), the plots of the cases' series (judge.h oc_case_plot):
 * error / bound per step, the loss-scale and schedule trajectories, the Newton-Schulz and Muon
 * singular values before and after, each for a few cases named under it, and a table of the
 * cases that did not pass. Generated here, with no plotting library: the page is one
 * self-contained XHTML file. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "algos.h"
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

/* ---- The plots of per-case series (judge.h oc_case_plot): error / bound per step,
 * trajectories, singular values. Each is drawn in a frame whose ticks carry their values
 * (data-value), and each series carries its data (data-x, data-y, as %.17g), so that a page
 * can be checked against the JSON report point by point (ctest cli_html). ---- */

/* A plot's window: x from x0 to x1, y from y0 to y1 (decimal exponents if ylog: a value 0 then
 * sits on a row of its own below the axis, a value past the window on its edge). */
typedef struct frame {
    int w, h, ylog;
    double x0, x1, y0, y1;
} frame;

/* FRAME_RIGHT: room for the last x tick's label */
enum { SMALL_W = 350, SMALL_H = 210, SHOWN_CASES = 8, SHOWN_SERIES_CASES = 4, FRAME_RIGHT = 28 };

static double frame_x(const frame *fr, double x)
{
    return LEFT + (fr->w - LEFT - FRAME_RIGHT) * (x - fr->x0) / (fr->x1 - fr->x0);
}

static double frame_y(const frame *fr, double v)
{
    double t;
    if (fr->ylog && v == 0)
        return fr->h - BOTTOM + ZERO_GAP;
    if (isnan(v))
        t = fr->y1;
    else
        t = fmin(fmax(fr->ylog ? log10(fabs(v)) : v, fr->y0), fr->y1);
    return TOP + (fr->y1 - t) * (fr->h - TOP - BOTTOM) / (fr->y1 - fr->y0);
}

/* A tick spacing of 1, 2 or 5 times a power of ten giving about five ticks over span. */
static double tick_step(double span)
{
    double raw = span / 5, mag = pow(10, floor(log10(raw))), r = raw / mag;
    return mag * (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10);
}

/* The svg element (of class cls, data-output the output plotted), its title, the ticks (class xtick / ytick, data-value) with grid lines, the
 * bound line at 1 when bound, and the axes' labels. */
static void frame_open(FILE *f, const frame *fr, const char *cls, const char *output,
                       const char *title, const char *xlabel, const char *ylabel, int bound)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot %s\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" data-output=\"%s\" "
            "data-yscale=\"%s\" data-y0=\"%.17g\" data-y1=\"%.17g\"><title>", cls, fr->w,
            fr->h, fr->w, fr->h, output, fr->ylog ? "log" : "linear", fr->y0, fr->y1);
    oc_xml_escaped(f, title);
    fputs("</title>\n", f);
    double xs = tick_step(fr->x1 - fr->x0);
    for (double x = ceil(fr->x0 / xs) * xs; x <= fr->x1 + 1e-9 * xs; x += xs)
        fprintf(f, "<text x=\"%.2f\" y=\"%d\" class=\"tick xtick\" data-value=\"%.17g\">%g"
                "</text>\n", frame_x(fr, x), fr->h - BOTTOM + (fr->ylog ? ZERO_GAP : 0) + 14,
                x, x);
    double ys = fr->ylog ? (fr->y1 - fr->y0 > 8 ? 2 : 1) : tick_step(fr->y1 - fr->y0);
    for (double y = ceil(fr->y0 / ys) * ys; y <= fr->y1 + 1e-9 * ys; y += ys) {
        double v = fr->ylog ? pow(10, y) : y, py = frame_y(fr, v);
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" class=\"grid\"/>"
                "<text x=\"%d\" y=\"%.2f\" class=\"tick ytick\" data-value=\"%.17g\">",
                LEFT, fr->w - FRAME_RIGHT, py, py, LEFT - 4, py + 4, v);
        if (fr->ylog)
            fprintf(f, "1e%d</text>\n", (int)lround(y));
        else
            fprintf(f, "%g</text>\n", fabs(y) < 1e-9 * ys ? 0 : y);
    }
    if (fr->ylog)
        fprintf(f, "<text x=\"%d\" y=\"%.2f\" class=\"tick ytick\" data-value=\"0\">0</text>\n",
                LEFT - 4, frame_y(fr, 0) + 4);
    if (bound)
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" class=\"bound\"/>\n", LEFT,
                fr->w - FRAME_RIGHT, frame_y(fr, 1), frame_y(fr, 1));
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"axis\">x: ", LEFT, fr->h - 4);
    oc_xml_escaped(f, xlabel);
    fputs("; y: ", f);
    oc_xml_escaped(f, ylabel);
    fputs("</text>\n", f);
}

/* A series of n points (x[i], y[i]) in the order of x (order[] indexes them): a polyline of
 * class cls with data-x and data-y and a dot (class "mark") at each point, or (points) a
 * circle of class cls per point with data-x and data-y. */
static void series(FILE *f, const frame *fr, const char *cls, int points, const double *x,
                   const double *y, const int *order, int n, const char *title)
{
    if (!points) {
        fprintf(f, "<polyline class=\"%s\" points=\"", cls);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s%.2f,%.2f", i ? " " : "", frame_x(fr, x[order[i]]),
                    frame_y(fr, y[order[i]]));
        fputs("\" data-x=\"", f);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s%.17g", i ? " " : "", x[order[i]]);
        fputs("\" data-y=\"", f);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s%.17g", i ? " " : "", y[order[i]]);
        fputs("\"><title>", f);
        oc_xml_escaped(f, title);
        fputs("</title></polyline>\n", f);
        for (int i = 0; i < n; i++)
            fprintf(f, "<circle class=\"mark %s\" cx=\"%.2f\" cy=\"%.2f\" r=\"1.5\"/>", cls,
                    frame_x(fr, x[order[i]]), frame_y(fr, y[order[i]]));
        fputc('\n', f);
        return;
    }
    for (int i = 0; i < n; i++)
        fprintf(f, "<circle class=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" data-x=\"%.17g\" "
                "data-y=\"%.17g\"><title>%s at %g: %.9g</title></circle>\n", cls,
                frame_x(fr, x[order[i]]), frame_y(fr, y[order[i]]), x[order[i]], y[order[i]],
                title, x[order[i]], y[order[i]]);
}

/* The cases of fr whose plot data `has` holds, failures first, then by decreasing error / bound,
 * then in tcId order: their indexes in shown[], at most max of them; returns how many have
 * data (*nshown <= that). */
static size_t pick_cases(const oc_family_report *fr, int (*has)(const oc_case_plot *),
                         size_t *shown, size_t max, size_t *nshown)
{
    size_t n = 0;
    *nshown = 0;
    for (size_t k = 0; k < fr->ncases; k++) {
        const oc_case_result *r = &fr->cases[k];
        if (!has(&r->plot))
            continue;
        n++;
        size_t at = *nshown; /* insertion into the sorted shown[] */
        while (at > 0) {
            const oc_case_result *q = &fr->cases[shown[at - 1]];
            int before = (r->verdict == OC_FAIL) != (q->verdict == OC_FAIL)
                             ? r->verdict == OC_FAIL
                             : r->max_ratio != q->max_ratio ? r->max_ratio > q->max_ratio
                                                            : r->tcid < q->tcid;
            if (!before)
                break;
            if (at < max)
                shown[at] = shown[at - 1];
            at--;
        }
        if (at < max) {
            shown[at] = k;
            if (*nshown < max)
                (*nshown)++;
        }
    }
    return n;
}

/* "Cases shown: tcId a (FAIL), tcId b, ... (the m of n <what>, failures first, then by largest
 * error / bound)" with each case's colour class c<i> when coloured. */
static void shown_note(FILE *f, const oc_family_report *fr, const size_t *shown, size_t nshown,
                       size_t n, const char *what, int coloured)
{
    fputs("<p class=\"shown\">Cases shown:", f);
    for (size_t i = 0; i < nshown; i++) {
        const oc_case_result *r = &fr->cases[shown[i]];
        if (coloured)
            fprintf(f, "%s <span class=\"c%zu\">tcId %d%s</span>", i ? "," : "", i, r->tcid,
                    r->verdict == OC_FAIL ? " (FAIL)" : "");
        else
            fprintf(f, "%s tcId %d%s", i ? "," : "", r->tcid,
                    r->verdict == OC_FAIL ? " (FAIL)" : "");
    }
    fprintf(f, " (%zu of the %zu %s; failures first, then by largest error / bound)</p>\n",
            nshown, n, what);
}

static void identity_order(int *order, int n)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
}

/* A case's plots: a div with data-tcid, opened with a caption. */
static void case_open(FILE *f, const oc_case_result *r)
{
    fprintf(f, "<div class=\"case\" data-tcid=\"%d\"><p>tcId %d (%s)</p>\n", r->tcid, r->tcid,
            oc_verdict_name(r->verdict));
}

static int has_runs(const oc_case_plot *p) { return p->nruns > 1; }

/* Error / bound per step: one line per case shown (its runs of steps, judge.h) against the
 * step's number in the case (1: its first step, which can be 10^6: the cases share an axis),
 * the bound at 1. */
static void steps_plot(FILE *f, const oc_family_report *fr)
{
    size_t shown[SHOWN_CASES], nshown;
    size_t n = pick_cases(fr, has_runs, shown, SHOWN_CASES, &nshown);
    if (n == 0)
        return;
    frame fm = {W, H, 1, 1, 2, Y_MIN, Y_MAX};
    for (size_t i = 0; i < nshown; i++) {
        const oc_case_plot *p = &fr->cases[shown[i]].plot;
        fm.x1 = fmax(fm.x1, (double)(1 + (p->nruns - 1) * p->run_length));
    }
    char title[160];
    snprintf(title, sizeof title, "%s: error / bound per step", fr->name);
    frame_open(f, &fm, "steps", "", title, "step in the case (1: its first; a point per run)",
               "largest |error| / bound of the run (dashed: the bound)", 1);
    for (size_t i = 0; i < nshown; i++) {
        const oc_case_result *r = &fr->cases[shown[i]];
        double x[OC_PLOT_POINTS];
        int order[OC_PLOT_POINTS];
        for (int b = 0; b < r->plot.nruns; b++)
            x[b] = (double)(1 + b * r->plot.run_length);
        identity_order(order, r->plot.nruns);
        char cls[32], what[96];
        snprintf(cls, sizeof cls, "case c%zu", i);
        snprintf(what, sizeof what, "tcId %d (%s): error / bound per run of %lld steps, the "
                 "first step %lld", r->tcid, oc_verdict_name(r->verdict),
                 (long long)r->plot.run_length, (long long)r->plot.first_step);
        fprintf(f, "<g data-tcid=\"%d\">", r->tcid);
        series(f, &fm, cls, 0, x, r->plot.run_ratio, order, r->plot.nruns, what);
        fputs("</g>\n", f);
    }
    fputs("</svg>\n", f);
    shown_note(f, fr, shown, nshown, n, "cases with more than one step", 1);
}

/* The window of values v[0 .. nv-1][0 .. n-1] (the finite ones) on y: log if always_log or
 * all are positive and span three decades or more (the positive ones then give the window; a
 * 0 sits on the row below), else linear. */
static void window_y(frame *fm, const double *const *v, int nv, int n, int always_log)
{
    double lo = INFINITY, hi = -INFINITY, pos_lo = INFINITY;
    for (int s = 0; s < nv; s++)
        for (int i = 0; i < n; i++)
            if (isfinite(v[s][i])) {
                lo = fmin(lo, v[s][i]);
                hi = fmax(hi, v[s][i]);
                if (v[s][i] > 0)
                    pos_lo = fmin(pos_lo, v[s][i]);
            }
    if (!(lo <= hi))
        lo = hi = 0;
    fm->ylog = always_log || (lo > 0 && hi / lo >= 1e3);
    if (fm->ylog) {
        fm->y0 = isfinite(pos_lo) ? floor(log10(pos_lo)) : -1;
        fm->y1 = fmax(hi > 0 ? ceil(log10(hi)) : 1, fm->y0 + 1);
    } else {
        double pad = hi > lo ? 0.05 * (hi - lo) : hi != 0 ? fabs(hi) * 0.1 : 1;
        fm->y0 = lo - pad;
        fm->y1 = hi + pad;
    }
}

/* The x window of n values (at least 1 wide). */
static void window_x(frame *fm, const double *x, int n)
{
    fm->x0 = INFINITY;
    fm->x1 = -INFINITY;
    for (int i = 0; i < n; i++) {
        fm->x0 = fmin(fm->x0, x[i]);
        fm->x1 = fmax(fm->x1, x[i]);
    }
    if (!(fm->x1 > fm->x0)) {
        fm->x0 -= 1;
        fm->x1 += 1;
    }
}

static int has_trajectory(const oc_case_plot *p) { return p->ntraj > 0; }

/* Trajectories (loss-scale, schedule): per case shown and per output, the expected values (a
 * line) and the implementation's (points) against the update number or position. */
static void trajectory_plots(FILE *f, const oc_family_report *fr)
{
    size_t shown[SHOWN_SERIES_CASES], nshown;
    size_t n = pick_cases(fr, has_trajectory, shown, SHOWN_SERIES_CASES, &nshown);
    const oc_algo *a = oc_algo_find(fr->algorithm);
    if (n == 0 || !a)
        return;
    int schedule = a == &oc_algo_schedule;
    fprintf(f, "<h3>%s trajectories: expected (line) and the implementation's values (points)"
            "</h3>\n", schedule ? "Schedule" : "Loss-scale");
    for (size_t i = 0; i < nshown; i++) {
        const oc_case_result *r = &fr->cases[shown[i]];
        const oc_case_plot *p = &r->plot;
        double x[OC_PLOT_POINTS];
        int order[OC_PLOT_POINTS];
        for (int b = 0; b < p->ntraj; b++)
            x[b] = (double)p->traj_x[b];
        identity_order(order, p->ntraj);
        for (int b = 1; b < p->ntraj; b++) /* positions in increasing order */
            for (int j = b; j > 0 && x[order[j]] < x[order[j - 1]]; j--) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        case_open(f, r);
        for (int k = 0; k < p->nseries; k++) {
            frame fm = {SMALL_W, SMALL_H, 0, 0, 0, 0, 0};
            const double *v[2] = {p->traj_expected[k], p->traj_got[k]};
            window_x(&fm, x, p->ntraj);
            window_y(&fm, v, 2, p->ntraj, 0);
            char title[192];
            snprintf(title, sizeof title, "%s tcId %d (%s): %s per %s, expected and observed",
                     fr->name, r->tcid, oc_verdict_name(r->verdict), a->state_names[k],
                     schedule ? "position" : "update");
            frame_open(f, &fm, "trajectory", a->state_names[k], title,
                       schedule ? "position (samples)" : "update number", a->state_names[k], 0);
            series(f, &fm, "expected", 0, x, p->traj_expected[k], order, p->ntraj, "expected");
            series(f, &fm, "got", 1, x, p->traj_got[k], order, p->ntraj, a->state_names[k]);
            fputs("</svg>\n", f);
        }
        fputs("</div>\n", f);
    }
    shown_note(f, fr, shown, nshown, n, "judged cases", 0);
}

static int has_spectrum(const oc_case_plot *p) { return p->nsv > 0; }

/* Singular values (Newton-Schulz, Muon): per case shown, those of the input gradient and,
 * after, the implementation's against the expected, by rank. */
static void spectrum_plots(FILE *f, const oc_family_report *fr)
{
    size_t shown[SHOWN_SERIES_CASES], nshown;
    size_t n = pick_cases(fr, has_spectrum, shown, SHOWN_SERIES_CASES, &nshown);
    const oc_algo *a = oc_algo_find(fr->algorithm);
    if (n == 0 || !a)
        return;
    int direct = a == &oc_algo_newton_schulz;
    const char *after = direct ? "the output X" : "the step's change of p (p before - p after)";
    fprintf(f, "<h3>Singular values before and after: the input gradient's (grey line), %s: "
            "expected (line) and the implementation's (points)</h3>\n", after);
    for (size_t i = 0; i < nshown; i++) {
        const oc_case_result *r = &fr->cases[shown[i]];
        const oc_case_plot *p = &r->plot;
        double x[OC_PLOT_POINTS];
        int order[OC_PLOT_POINTS];
        for (int b = 0; b < p->nsv; b++)
            x[b] = p->sv_rank[b];
        identity_order(order, p->nsv);
        frame fm = {SMALL_W, SMALL_H, 1, 0, 0, 0, 0};
        const double *v[3] = {p->sv_input, p->sv_expected, p->sv_got};
        window_x(&fm, x, p->nsv);
        window_y(&fm, v, 3, p->nsv, 1);
        char title[192];
        snprintf(title, sizeof title, "%s tcId %d (%s): singular values of the input and of %s",
                 fr->name, r->tcid, oc_verdict_name(r->verdict), after);
        case_open(f, r);
        frame_open(f, &fm, "spectrum", a->state_names[0], title, "rank (1 = the largest)",
                   "singular value", 0);
        series(f, &fm, "input", 0, x, p->sv_input, order, p->nsv, "input gradient");
        series(f, &fm, "expected", 0, x, p->sv_expected, order, p->nsv, "expected");
        series(f, &fm, "got", 1, x, p->sv_got, order, p->nsv, "observed");
        fputs("</svg></div>\n", f);
    }
    shown_note(f, fr, shown, nshown, n, "judged cases", 0);
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
          ".tick{font-size:10px;text-anchor:end}.xtick{text-anchor:middle}.axis{font-size:11px}"
          "div.case p{margin:.6em 0 0}polyline{fill:none;stroke-width:1.5}"
          "polyline.expected{stroke:#333}polyline.input{stroke:#999;stroke-dasharray:3 2}"
          "circle.got{fill:#e80}circle.mark{fill:currentColor}circle.mark.input{fill:#999}"
          ".c0{stroke:#1f77b4;color:#1f77b4}.c1{stroke:#ff7f0e;color:#ff7f0e}"
          ".c2{stroke:#2ca02c;color:#2ca02c}.c3{stroke:#9467bd;color:#9467bd}"
          ".c4{stroke:#8c564b;color:#8c564b}.c5{stroke:#e377c2;color:#e377c2}"
          ".c6{stroke:#17becf;color:#17becf}.c7{stroke:#7f7f7f;color:#7f7f7f}\n"
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
        steps_plot(f, fr);
        trajectory_plots(f, fr);
        spectrum_plots(f, fr);
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
