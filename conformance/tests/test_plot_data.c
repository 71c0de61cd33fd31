/* The HTML certificate's plot data (conformance/src/plot_data.c, judge.h oc_case_plot): sampling,
 * runs of steps, trajectories keeping the first wrong point, singular values before and after. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "cunit_main.h"

static void test_sample(void)
{
    CU_ASSERT_EQUAL(oc_plot_sample(5, 10, OC_PLOT_POINTS), 5); /* all kept */
    CU_ASSERT_EQUAL(oc_plot_sample(0, 1000, OC_PLOT_POINTS), 0);
    CU_ASSERT_EQUAL(oc_plot_sample(OC_PLOT_POINTS - 1, 1000, OC_PLOT_POINTS), 999);
    for (size_t b = 1; b < OC_PLOT_POINTS; b++)
        CU_ASSERT(oc_plot_sample(b, 1000, OC_PLOT_POINTS) >
                  oc_plot_sample(b - 1, 1000, OC_PLOT_POINTS));
}

static void test_runs_of_steps(void)
{
    oc_case_plot p;
    memset(&p, 0, sizeof p);
    oc_plot_steps_begin(&p, 3, 7); /* up to OC_PLOT_POINTS steps: one run per step */
    CU_ASSERT_EQUAL(p.nruns, 3);
    CU_ASSERT_EQUAL(p.run_length, 1);
    CU_ASSERT_EQUAL(p.first_step, 7);
    oc_plot_step_ratio(&p, 2, 0.5);
    oc_plot_step_ratio(&p, 2, 0.25);
    CU_ASSERT_EQUAL(p.run_ratio[2], 0.5);
    CU_ASSERT_EQUAL(p.run_ratio[1], 0);
    oc_plot_steps_begin(&p, 1000, 1); /* 63 runs of 16 steps */
    CU_ASSERT_EQUAL(p.run_length, 16);
    CU_ASSERT_EQUAL(p.nruns, 63);
    oc_plot_step_ratio(&p, 999, 5);
    oc_plot_step_ratio(&p, 16, 2);
    oc_plot_step_ratio(&p, 15, 3);
    CU_ASSERT_EQUAL(p.run_ratio[62], 5);
    CU_ASSERT_EQUAL(p.run_ratio[1], 2);
    CU_ASSERT_EQUAL(p.run_ratio[0], 3);
}

enum { UPDATES = 1000, WRONG = 511 }; /* the last update of run 31 (runs of 16) */

/* A loss-scale case of UPDATES updates (scale only, exact: LS-TOL-1) whose implementation is
 * wrong at update WRONG + 1 only: judged, its trajectory keeps that point. */
static void test_trajectory_keeps_first_wrong_point(void)
{
    static double stored[UPDATES], tol[UPDATES], got[UPDATES + 1];
    oc_case c;
    oc_outputs o;
    oc_case_result r;
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    memset(&r, 0, sizeof r);
    for (size_t i = 0; i < UPDATES; i++)
        stored[i] = got[i] = ldexp(1, (int)(i % 24));
    got[WRONG] *= 2;
    c.algo = &oc_algo_loss_scale;
    c.steps = UPDATES;
    c.n = 1;
    c.nstate = 1;
    c.names[0] = "scale";
    c.precision[0] = 24;
    c.exp[0] = (oc_expect){stored, stored, tol};
    o.out[0] = got;
    oc_judge_outputs(&c, &o, OC_CLASS_FP32, &r);
    CU_ASSERT_EQUAL(r.verdict, OC_FAIL);
    CU_ASSERT_EQUAL(r.plot.ntraj, OC_PLOT_POINTS);
    CU_ASSERT_EQUAL(r.plot.nseries, 1);
    CU_ASSERT_EQUAL(r.plot.nruns, OC_PLOT_POINTS - 1); /* 63 runs of 16 updates */
    CU_ASSERT(isinf(r.plot.run_ratio[WRONG / 16]));
    CU_ASSERT_EQUAL(r.plot.run_ratio[WRONG / 16 + 1], 0);
    CU_ASSERT_EQUAL(r.plot.run_ratio[0], 0);
    int kept = 0;
    for (int b = 0; b < r.plot.ntraj; b++) {
        int64_t x = r.plot.traj_x[b];
        CU_ASSERT(b == 0 || x > r.plot.traj_x[b - 1]);
        CU_ASSERT_EQUAL(r.plot.traj_expected[0][b], stored[x - 1]); /* update x is entry x - 1 */
        CU_ASSERT_EQUAL(r.plot.traj_got[0][b], got[x - 1]);
        kept |= x == WRONG + 1;
    }
    CU_ASSERT(kept);
    CU_ASSERT_EQUAL(r.plot.nsv, 0);
}

/* Singular values of a 3 x 2 matrix with orthogonal columns: the lengths of its columns. */
static void test_spectra(void)
{
    static const float g[6] = {3, 0, 0, 2, 0, 0}, p[6] = {1, 0, 0, 1, 0, 0}, m[6] = {0};
    double out[6] = {0.75, 0, 0, 0.5, 0, 0}, exp64[6] = {1, 0, 0, 1, 0, 0};
    oc_case c;
    oc_outputs o;
    oc_case_plot pl;
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    memset(&pl, 0, sizeof pl);
    c.steps = 3;
    c.n = 2;
    c.exp[0].f64 = exp64;
    o.out[0] = out;
    c.algo = &oc_algo_newton_schulz; /* input g, output X */
    c.nstate = 1;
    c.in[0] = (float *)g;
    oc_plot_spectra(&c, &o, &pl);
    CU_ASSERT_EQUAL(pl.nsv, 2);
    CU_ASSERT(pl.sv_rank[0] == 1 && pl.sv_rank[1] == 2);
    CU_ASSERT(fabs(pl.sv_input[0] - 3) < 1e-12 && fabs(pl.sv_input[1] - 2) < 1e-12);
    CU_ASSERT(fabs(pl.sv_got[0] - 0.75) < 1e-12 && fabs(pl.sv_got[1] - 0.5) < 1e-12);
    CU_ASSERT(fabs(pl.sv_expected[0] - 1) < 1e-12 && fabs(pl.sv_expected[1] - 1) < 1e-12);
    /* a Muon step (inputs p, m, g): after is the change of p, p - out */
    memset(&pl, 0, sizeof pl);
    c.algo = &oc_algo_muon;
    c.nstate = 2;
    c.in[0] = (float *)p;
    c.in[1] = (float *)m;
    c.in[2] = (float *)g;
    oc_plot_spectra(&c, &o, &pl);
    CU_ASSERT_EQUAL(pl.nsv, 2);
    CU_ASSERT(fabs(pl.sv_input[0] - 3) < 1e-12 && fabs(pl.sv_input[1] - 2) < 1e-12);
    CU_ASSERT(fabs(pl.sv_got[0] - 0.5) < 1e-12 && fabs(pl.sv_got[1] - 0.25) < 1e-12);
    CU_ASSERT(fabs(pl.sv_expected[0]) < 1e-12 && fabs(pl.sv_expected[1]) < 1e-12);
    /* a non-finite output: no singular values */
    memset(&pl, 0, sizeof pl);
    out[3] = NAN;
    oc_plot_spectra(&c, &o, &pl);
    CU_ASSERT_EQUAL(pl.nsv, 0);
}

void register_suites(void)
{
    ADD_SUITE("plot data",
              {"sampling", test_sample},
              {"runs of steps", test_runs_of_steps},
              {"trajectory keeps the first wrong point", test_trajectory_keeps_first_wrong_point},
              {"singular values before and after", test_spectra});
}
