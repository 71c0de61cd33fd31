/* What the HTML certificate's plots need of each case, recorded while the case is judged
 * (judge.h oc_case_plot): a fixed number of points per series, whatever the case's size, so
 * that a certificate's memory stays proportional to its number of cases. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../common/singular_values.h"
#include "judge.h"
#include "vectors.h"

size_t oc_plot_sample(size_t b, size_t count, size_t kept)
{
    if (count <= kept || kept < 2)
        return b;
    return (b * (count - 1) + (kept - 1) / 2) / (kept - 1); /* b (count-1)/(kept-1), rounded */
}

void oc_plot_steps_begin(oc_case_plot *p, size_t steps, int64_t first_step)
{
    size_t run = steps > OC_PLOT_POINTS ? (steps + OC_PLOT_POINTS - 1) / OC_PLOT_POINTS : 1;
    p->first_step = first_step;
    p->run_length = (int64_t)run;
    p->nruns = (int)((steps + run - 1) / run);
    memset(p->run_ratio, 0, sizeof p->run_ratio);
}

void oc_plot_step_ratio(oc_case_plot *p, size_t step, double ratio)
{
    size_t b = step / (size_t)p->run_length;
    if (b < (size_t)p->nruns)
        p->run_ratio[b] = fmax(p->run_ratio[b], ratio);
}

/* The x of point j of a trajectory family: the update's number (LS-STATE-1: one state per
 * update, from 1), the position in samples (SCHED-*: one lr, wd per position). 0 if c's
 * family has no trajectory. */
static int trajectory_x(const oc_case *c, size_t j, int64_t *x)
{
    if (c->algo == &oc_algo_loss_scale)
        *x = (int64_t)j + 1;
    else if (c->algo == &oc_algo_schedule)
        *x = c->positions[j];
    else
        return 0;
    return 1;
}

void oc_plot_trajectory(const oc_case *c, const oc_outputs *o, size_t first_wrong,
                        oc_case_plot *p)
{
    size_t count = c->steps * c->n, kept = count < OC_PLOT_POINTS ? count : OC_PLOT_POINTS;
    size_t index[OC_PLOT_POINTS];
    int64_t x;
    if (count == 0 || !trajectory_x(c, 0, &x))
        return;
    int sampled_wrong = 0;
    for (size_t b = 0; b < kept; b++) {
        index[b] = oc_plot_sample(b, count, kept);
        sampled_wrong |= index[b] == first_wrong;
    }
    if (first_wrong < count && !sampled_wrong) /* in place of the nearest point kept */
        index[(first_wrong * (kept - 1) + (count - 1) / 2) / (count - 1)] = first_wrong;
    p->ntraj = (int)kept;
    p->nseries = c->nstate < OC_PLOT_SERIES ? c->nstate : OC_PLOT_SERIES;
    for (size_t b = 0; b < kept; b++) {
        trajectory_x(c, index[b], &p->traj_x[b]);
        for (int k = 0; k < p->nseries; k++) {
            p->traj_expected[k][b] = c->exp[k].stored[index[b]];
            p->traj_got[k][b] = o->out[k][index[b]];
        }
    }
}

void oc_plot_spectra(const oc_case *c, const oc_outputs *o, oc_case_plot *p)
{
    size_t rows = c->steps, cols = c->n, len = rows * cols, k = rows < cols ? rows : cols;
    /* VEC-FMT-12: Newton-Schulz's one input is g; a Muon step's inputs are its state (p first),
     * then g */
    int direct = c->algo == &oc_algo_newton_schulz;
    const float *g = c->in[direct ? 0 : c->nstate], *p0 = c->in[0];
    double *m = malloc(3 * len * sizeof *m), *sv = malloc(3 * k * sizeof *sv);
    int ok = m && sv && g;
    for (size_t i = 0; i < len && ok; i++) {
        ok = isfinite(o->out[0][i]);
        m[i] = g[i];
        m[len + i] = direct ? o->out[0][i] : (double)p0[i] - o->out[0][i];
        m[2 * len + i] = direct ? c->exp[0].f64[i] : (double)p0[i] - c->exp[0].f64[i];
    }
    for (int s = 0; s < 3 && ok; s++)
        ok = ns_singular_values(m + s * len, rows, cols, sv + s * k) == 0;
    if (ok) {
        p->nsv = (int)(k < OC_PLOT_POINTS ? k : OC_PLOT_POINTS);
        for (size_t b = 0; b < (size_t)p->nsv; b++) {
            size_t r = oc_plot_sample(b, k, (size_t)p->nsv);
            p->sv_rank[b] = (int)r + 1;
            p->sv_input[b] = sv[r];
            p->sv_got[b] = sv[k + r];
            p->sv_expected[b] = sv[2 * k + r];
        }
    }
    free(m);
    free(sv);
}
