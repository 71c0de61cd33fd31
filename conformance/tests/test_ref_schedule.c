/* Unit tests of the schedule reference (ref/schedule.c) and of its mutants
(conformance/mutants/schedule.c) against closed forms of
 * spec/schedule.md. Schedules use dyadic values (max_lr 1, min_lr 1/8, init_lr 1/4, warmup 16,
 * decay 64 samples) so that most expected values are exact in binary64; the others are written
 * from known constants (cos(pi/3) = 1/2, cos(pi/4) = sqrt(2)/2, cos(pi/16) by half angles,
 * 2^(-1/16) by exp2) and compared within a few ulps. None is copied from the reference. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "cunit_main.h"
#include "optcert/schedule.h"
#include "../mutants/schedule.h"
#include "../../ref/schedule_exact.h"

/* Sentinel written into the outputs before every call: a rejected call must leave it. */
#define SENTINEL (-1234.5)

static const double pi = 0x1.921fb54442d18p+1; /* binary64 nearest pi (M_PI is not C11) */

/* |got - want| within k binary64 ulps of `scale` (the largest value the formula touches). */
static void assert_near(double got, double want, double scale, double k)
{
    CU_ASSERT(fabs(got - want) <= k * DBL_EPSILON * scale);
}

/* The schedule used by most tests: warmup 16, decay to 64, lr 1/4 -> 1 -> 1/8, weight decay
 * 1/16 -> 1/2 over 64 samples with multiplier 1/2 (linear), WSD anneal over the last 16. */
static oc_schedule base(oc_lr_decay_style style)
{
    return (oc_schedule){.init_lr = 0.25, .max_lr = 1.0, .min_lr = 0.125, .warmup_steps = 16,
                         .decay_steps = 64, .decay_style = style, .wsd_decay_steps = 16,
                         .wsd_style = OC_WSD_LINEAR, .start_wd = 0.0625, .end_wd = 0.5,
                         .wd_incr_steps = 64, .wd_style = OC_WD_LINEAR, .wd_mult = 0.5};
}

/* lr at n (correct unless mu says otherwise); fails the test on a non-OK status. */
static double lr_at(const oc_schedule *s, int64_t n, oc_schedule_mutant mu)
{
    double lr = SENTINEL, wd = SENTINEL;
    CU_ASSERT_EQUAL(oc_schedule_mutant_eval(mu, s, n, &lr, &wd), OC_OK);
    return lr;
}

static double wd_at(const oc_schedule *s, int64_t n, oc_schedule_mutant mu)
{
    double lr = SENTINEL, wd = SENTINEL;
    CU_ASSERT_EQUAL(oc_schedule_mutant_eval(mu, s, n, &lr, &wd), OC_OK);
    return wd;
}

/* lr = min_lr + coeff * (max_lr - min_lr) of the base schedule (SCHED-DECAY-1), exact reals */
static double base_decay(double coeff) { return 0.125 + coeff * 0.875; }

/* ---------------------------------------------------------------------------------------- */
/* Learning rate                                                                            */
/* ---------------------------------------------------------------------------------------- */

/* SCHED-WARMUP-1: init + (max - init) n / W for 0 <= n <= W, bound inclusive; at n = 0 the
 * value is init_lr, the lr of the first optimizer step (SCHED-POS-1). The same for every
 * decay style. */
static void test_warmup(void)
{
    for (int st = 0; st < OC_LR_DECAY_STYLE_COUNT; st++) {
        oc_schedule s = base((oc_lr_decay_style)st);
        CU_ASSERT_EQUAL(lr_at(&s, 0, OC_SCHED_CORRECT), 0.25);
        CU_ASSERT_EQUAL(lr_at(&s, 1, OC_SCHED_CORRECT), 0.25 + 0.75 / 16);
        CU_ASSERT_EQUAL(lr_at(&s, 8, OC_SCHED_CORRECT), 0.625);
        CU_ASSERT_EQUAL(lr_at(&s, 15, OC_SCHED_CORRECT), 0.25 + 0.75 * 15 / 16);
        CU_ASSERT_EQUAL(lr_at(&s, 16, OC_SCHED_CORRECT), 1.0); /* last warmup position */
    }
    /* warmup from 0 (Megatron's default lr_warmup_init): the first step has lr 0 */
    oc_schedule s = base(OC_LR_COSINE);
    s.init_lr = 0.0;
    CU_ASSERT_EQUAL(lr_at(&s, 0, OC_SCHED_CORRECT), 0.0);
    CU_ASSERT_EQUAL(lr_at(&s, 4, OC_SCHED_CORRECT), 0.25);
    /* init_lr = max_lr: a flat warmup */
    s.init_lr = 1.0;
    for (int64_t n = 0; n <= 16; n++)
        CU_ASSERT_EQUAL(lr_at(&s, n, OC_SCHED_CORRECT), 1.0);
}

/* SCHED-WARMUP-1 with warmup_steps = 0: no warmup, init_lr is never used; position 0 is the
 * start of the decay (r = 0, lr = max_lr). */
static void test_no_warmup(void)
{
    oc_schedule s = base(OC_LR_LINEAR);
    s.warmup_steps = 0;
    CU_ASSERT_EQUAL(lr_at(&s, 0, OC_SCHED_CORRECT), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 16, OC_SCHED_CORRECT), base_decay(0.75));
    CU_ASSERT_EQUAL(lr_at(&s, 32, OC_SCHED_CORRECT), base_decay(0.5));
    CU_ASSERT_EQUAL(lr_at(&s, 64, OC_SCHED_CORRECT), 0.125);
    s.decay_style = OC_LR_COSINE;
    CU_ASSERT_EQUAL(lr_at(&s, 0, OC_SCHED_CORRECT), 1.0);
    assert_near(lr_at(&s, 32, OC_SCHED_CORRECT), base_decay(0.5), 1.0, 2);
    /* inverse square root without warmup: max_lr / sqrt(max(n, 1)) */
    s.decay_style = OC_LR_INVERSE_SQRT;
    s.decay_steps = 1 << 20;
    s.min_lr = 0.0;
    CU_ASSERT_EQUAL(lr_at(&s, 0, OC_SCHED_CORRECT), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 1, OC_SCHED_CORRECT), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 4, OC_SCHED_CORRECT), 0.5);
    CU_ASSERT_EQUAL(lr_at(&s, 1 << 20, OC_SCHED_CORRECT), 1.0 / 1024);
}

/* SCHED-CONST-1: after warmup max_lr for ever; decay_steps and min_lr are not used (no
 * SCHED-END-1). */
static void test_constant(void)
{
    oc_schedule s = base(OC_LR_CONSTANT);
    CU_ASSERT_EQUAL(lr_at(&s, 8, OC_SCHED_CORRECT), 0.625);
    CU_ASSERT_EQUAL(lr_at(&s, 17, OC_SCHED_CORRECT), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 64, OC_SCHED_CORRECT), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 65, OC_SCHED_CORRECT), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, INT64_MAX, OC_SCHED_CORRECT), 1.0);
}

/* SCHED-DECAY-1, SCHED-LINEAR-1: r = (n - 16) / 48, lr = 1/8 + (1 - r) 7/8 at the first step
 * after warmup, mid decay, the last decay step; SCHED-END-1 from decay_steps + 1 on. */
static void test_linear(void)
{
    oc_schedule s = base(OC_LR_LINEAR);
    assert_near(lr_at(&s, 17, OC_SCHED_CORRECT), base_decay(47.0 / 48), 1.0, 2);
    CU_ASSERT_EQUAL(lr_at(&s, 28, OC_SCHED_CORRECT), base_decay(0.75));
    CU_ASSERT_EQUAL(lr_at(&s, 40, OC_SCHED_CORRECT), base_decay(0.5));
    assert_near(lr_at(&s, 63, OC_SCHED_CORRECT), base_decay(1.0 / 48), 1.0, 2);
    CU_ASSERT_EQUAL(lr_at(&s, 64, OC_SCHED_CORRECT), 0.125);
    CU_ASSERT_EQUAL(lr_at(&s, 65, OC_SCHED_CORRECT), 0.125);
    CU_ASSERT_EQUAL(lr_at(&s, 1000000, OC_SCHED_CORRECT), 0.125);
    CU_ASSERT_EQUAL(lr_at(&s, INT64_MAX, OC_SCHED_CORRECT), 0.125);
    /* the decay is continuous at the warmup end: both formulas give max_lr at n = W */
    CU_ASSERT(lr_at(&s, 17, OC_SCHED_CORRECT) < 1.0);
}

/* SCHED-COSINE-1: coeff 0.5 (cos(pi r) + 1) at r = 1/48, 1/4, 1/3, 1/2, 2/3, 1 and
 * SCHED-END-1. */
static void test_cosine(void)
{
    oc_schedule s = base(OC_LR_COSINE);
    double c17 = 0.5 * (cos(pi / 48) + 1.0);
    assert_near(lr_at(&s, 17, OC_SCHED_CORRECT), base_decay(c17), 1.0, 4);
    assert_near(lr_at(&s, 28, OC_SCHED_CORRECT), base_decay((2.0 + sqrt(2.0)) / 4), 1.0, 4);
    assert_near(lr_at(&s, 32, OC_SCHED_CORRECT), base_decay(0.75), 1.0, 4);
    assert_near(lr_at(&s, 40, OC_SCHED_CORRECT), base_decay(0.5), 1.0, 4);
    assert_near(lr_at(&s, 48, OC_SCHED_CORRECT), base_decay(0.25), 1.0, 4);
    /* last decay step: cos(pi) = -1, so exactly min_lr */
    CU_ASSERT_EQUAL(lr_at(&s, 64, OC_SCHED_CORRECT), 0.125);
    CU_ASSERT_EQUAL(lr_at(&s, 65, OC_SCHED_CORRECT), 0.125);
    CU_ASSERT_EQUAL(lr_at(&s, INT64_MAX, OC_SCHED_CORRECT), 0.125);
    /* monotone decreasing over the decay */
    for (int64_t n = 17; n <= 64; n++)
        CU_ASSERT(lr_at(&s, n, OC_SCHED_CORRECT) <= lr_at(&s, n - 1, OC_SCHED_CORRECT));
}

/* SCHED-ISQRT-1: max_lr sqrt(max(W,1)) / sqrt(max(n,1)) after warmup, clamped below at
 * min_lr; SCHED-END-1 past decay_steps. W = 16, D = 1024, max 1, min 0.2. */
static void test_inverse_sqrt(void)
{
    oc_schedule s = base(OC_LR_INVERSE_SQRT);
    s.decay_steps = 1024;
    s.min_lr = 0.2;
    CU_ASSERT_EQUAL(lr_at(&s, 16, OC_SCHED_CORRECT), 1.0);            /* warmup end */
    assert_near(lr_at(&s, 17, OC_SCHED_CORRECT), 4.0 / sqrt(17.0), 1.0, 4);
    CU_ASSERT_EQUAL(lr_at(&s, 64, OC_SCHED_CORRECT), 0.5);
    CU_ASSERT_EQUAL(lr_at(&s, 256, OC_SCHED_CORRECT), 0.25);
    assert_near(lr_at(&s, 399, OC_SCHED_CORRECT), 4.0 / sqrt(399.0), 1.0, 4); /* above 0.2 */
    assert_near(lr_at(&s, 400, OC_SCHED_CORRECT), 0.2, 1.0, 4);
    /* below the floor: 4/sqrt(1024) = 1/8 < 0.2 is clamped (the last decay step) */
    CU_ASSERT_EQUAL(lr_at(&s, 401, OC_SCHED_CORRECT), 0.2);
    CU_ASSERT_EQUAL(lr_at(&s, 1024, OC_SCHED_CORRECT), 0.2);
    CU_ASSERT_EQUAL(lr_at(&s, 1025, OC_SCHED_CORRECT), 0.2);
    CU_ASSERT_EQUAL(lr_at(&s, INT64_MAX, OC_SCHED_CORRECT), 0.2);
    /* with min_lr below the curve, the end of the decay is a jump down to min_lr */
    s.min_lr = 0.0625;
    CU_ASSERT_EQUAL(lr_at(&s, 1024, OC_SCHED_CORRECT), 0.125);
    CU_ASSERT_EQUAL(lr_at(&s, 1025, OC_SCHED_CORRECT), 0.0625);
}

/* SCHED-WSD-1: stable at max_lr up to anneal_start = D - wsd_decay_steps = 48 (inclusive),
 * then w = (n - 48) / 16 and each style's coefficient; at the end (w = 1) every style gives
 * coefficient 0, i.e. min_lr; SCHED-END-1 after. */
static void test_wsd(void)
{
    const double cos_pi_16 = sqrt(2.0 + sqrt(2.0 + sqrt(2.0))) / 2; /* cos(pi/16) */
    const struct {
        oc_wsd_decay_style style;
        double c1, c4; /* coefficient at w = 1/16 and w = 1/4 */
    } cases[] = {
        {OC_WSD_LINEAR, 15.0 / 16, 0.75},
        {OC_WSD_COSINE, 0.5 * (cos_pi_16 + 1.0), (2.0 + sqrt(2.0)) / 4},
        {OC_WSD_EXPONENTIAL, 2.0 * exp2(-1.0 / 16) - 1.0, 2.0 * exp2(-0.25) - 1.0},
        {OC_WSD_MINUS_SQRT, 0.75, 0.5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        oc_schedule s = base(OC_LR_WSD);
        s.wsd_style = cases[i].style;
        CU_ASSERT_EQUAL(lr_at(&s, 16, OC_SCHED_CORRECT), 1.0);       /* warmup end */
        CU_ASSERT_EQUAL(lr_at(&s, 17, OC_SCHED_CORRECT), 1.0);       /* stable */
        CU_ASSERT_EQUAL(lr_at(&s, 48, OC_SCHED_CORRECT), 1.0);       /* anneal start */
        assert_near(lr_at(&s, 49, OC_SCHED_CORRECT), base_decay(cases[i].c1), 1.0, 4);
        assert_near(lr_at(&s, 52, OC_SCHED_CORRECT), base_decay(cases[i].c4), 1.0, 4);
        CU_ASSERT_EQUAL(lr_at(&s, 64, OC_SCHED_CORRECT), 0.125);     /* end: coefficient 0 */
        CU_ASSERT_EQUAL(lr_at(&s, 65, OC_SCHED_CORRECT), 0.125);
        CU_ASSERT_EQUAL(lr_at(&s, INT64_MAX, OC_SCHED_CORRECT), 0.125);
    }
    /* exact dyadic points of linear and minus_sqrt: w = 1/2 and w = 1/4 */
    oc_schedule s = base(OC_LR_WSD);
    CU_ASSERT_EQUAL(lr_at(&s, 56, OC_SCHED_CORRECT), base_decay(0.5));
    s.wsd_style = OC_WSD_MINUS_SQRT;
    CU_ASSERT_EQUAL(lr_at(&s, 52, OC_SCHED_CORRECT), base_decay(0.5));
    /* exponential at w = 1/2: 2 / sqrt(2) - 1 = sqrt(2) - 1 */
    s.wsd_style = OC_WSD_EXPONENTIAL;
    assert_near(lr_at(&s, 56, OC_SCHED_CORRECT), base_decay(sqrt(2.0) - 1.0), 1.0, 4);
    /* wsd_decay_steps = decay_steps: anneal_start = 0 lies inside the warmup, so the lr jumps
     * from max_lr at the warmup end (n = 16) to coefficient 1 - 17/64 at n = 17 */
    s = base(OC_LR_WSD);
    s.wsd_decay_steps = 64;
    CU_ASSERT_EQUAL(lr_at(&s, 16, OC_SCHED_CORRECT), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 17, OC_SCHED_CORRECT), base_decay(47.0 / 64));
    /* wsd_decay_steps = 1: stable up to D - 1, min_lr at D */
    s.wsd_decay_steps = 1;
    CU_ASSERT_EQUAL(lr_at(&s, 63, OC_SCHED_CORRECT), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 64, OC_SCHED_CORRECT), 0.125);
}

/* SCHED-RANGE-1 on inputs where Megatron's own binary64 expressions leave the range:
 * min_lr + 1.0 * (max_lr - min_lr) with min = 3*2^-53 and max = 1 + 3*2^-52 rounds to
 * 1 + 4*2^-52 > max_lr, and so does its warmup at n = W for some init and max. The reference
 * returns max_lr (the exact value) in the stable phase of WSD, at the decay start without
 * warmup and at the warmup end. */
static void test_range_tie_case(void)
{
    volatile double lo = 0x3p-53, hi = 0x1.0000000000003p+0, one = 1.0;
    CU_ASSERT(lo + one * (hi - lo) > hi); /* Megatron's expression, evaluated in binary64 */
    oc_schedule s = base(OC_LR_WSD);
    s.init_lr = 0.0;
    s.min_lr = lo;
    s.max_lr = hi;
    CU_ASSERT_EQUAL(lr_at(&s, 32, OC_SCHED_CORRECT), hi);
    CU_ASSERT_EQUAL(lr_at(&s, 48, OC_SCHED_CORRECT), hi);
    s.decay_style = OC_LR_COSINE;
    s.warmup_steps = 0;
    CU_ASSERT_EQUAL(lr_at(&s, 0, OC_SCHED_CORRECT), hi);
    /* Megatron's warmup init + (max - init) * n / W at n = W, also one ulp above max_lr */
    volatile double init = 0x1.331b58c989f43p-16, max = 0x1.ab392030fd97dp-15, w = 50.0;
    CU_ASSERT(init + (max - init) * w / w > max);
    s = base(OC_LR_LINEAR);
    s.init_lr = init;
    s.max_lr = max;
    s.min_lr = 0.0;
    s.warmup_steps = 50;
    s.decay_steps = 100;
    CU_ASSERT_EQUAL(lr_at(&s, 50, OC_SCHED_CORRECT), max);
}

/* ---------------------------------------------------------------------------------------- */
/* Weight decay                                                                             */
/* ---------------------------------------------------------------------------------------- */

/* SCHED-WD-1, SCHED-MULT-1: start 1/16 -> end 1/2 over 64 samples, times wd_mult 1/2, at
 * 0, a quarter, mid, the end, past the end; constant; cosine increasing. */
static void test_weight_decay(void)
{
    oc_schedule s = base(OC_LR_COSINE);
    /* linear: start + r (end - start) */
    CU_ASSERT_EQUAL(wd_at(&s, 0, OC_SCHED_CORRECT), 0.03125);
    CU_ASSERT_EQUAL(wd_at(&s, 16, OC_SCHED_CORRECT), (0.0625 + 0.25 * 0.4375) * 0.5);
    CU_ASSERT_EQUAL(wd_at(&s, 32, OC_SCHED_CORRECT), (0.0625 + 0.5 * 0.4375) * 0.5);
    CU_ASSERT_EQUAL(wd_at(&s, 64, OC_SCHED_CORRECT), 0.25);
    CU_ASSERT_EQUAL(wd_at(&s, 65, OC_SCHED_CORRECT), 0.25);
    CU_ASSERT_EQUAL(wd_at(&s, INT64_MAX, OC_SCHED_CORRECT), 0.25);
    /* cosine: start + 0.5 (cos(pi (1 - r)) + 1) (end - start), increasing; over 48 samples
     * r = 1/3 gives 0.5 (cos(2 pi / 3) + 1) = 1/4 and r = 2/3 gives 3/4 */
    s.wd_style = OC_WD_COSINE;
    s.wd_incr_steps = 48;
    CU_ASSERT_EQUAL(wd_at(&s, 0, OC_SCHED_CORRECT), 0.03125);
    assert_near(wd_at(&s, 16, OC_SCHED_CORRECT), (0.0625 + 0.25 * 0.4375) * 0.5, 0.5, 4);
    assert_near(wd_at(&s, 24, OC_SCHED_CORRECT), (0.0625 + 0.5 * 0.4375) * 0.5, 0.5, 4);
    assert_near(wd_at(&s, 32, OC_SCHED_CORRECT), (0.0625 + 0.75 * 0.4375) * 0.5, 0.5, 4);
    CU_ASSERT_EQUAL(wd_at(&s, 48, OC_SCHED_CORRECT), 0.25);
    CU_ASSERT_EQUAL(wd_at(&s, 49, OC_SCHED_CORRECT), 0.25);
    for (int64_t n = 1; n <= 48; n++)
        CU_ASSERT(wd_at(&s, n, OC_SCHED_CORRECT) >= wd_at(&s, n - 1, OC_SCHED_CORRECT));
    /* constant: end_wd (= start_wd) everywhere */
    s.wd_style = OC_WD_CONSTANT;
    s.start_wd = s.end_wd = 0.1;
    CU_ASSERT_EQUAL(wd_at(&s, 0, OC_SCHED_CORRECT), 0.1 * 0.5);
    CU_ASSERT_EQUAL(wd_at(&s, 24, OC_SCHED_CORRECT), 0.1 * 0.5);
    CU_ASSERT_EQUAL(wd_at(&s, INT64_MAX, OC_SCHED_CORRECT), 0.1 * 0.5);
    /* SCHED-MULT-1: wd_mult 0 (Megatron's no-decay groups) gives 0; 1 gives the raw value */
    s.wd_mult = 0.0;
    CU_ASSERT_EQUAL(wd_at(&s, 24, OC_SCHED_CORRECT), 0.0);
    s.wd_mult = 1.0;
    CU_ASSERT_EQUAL(wd_at(&s, 24, OC_SCHED_CORRECT), 0.1);
    /* the weight decay does not depend on the lr schedule and vice versa */
    oc_schedule a = base(OC_LR_LINEAR), b = base(OC_LR_WSD);
    b.warmup_steps = 0;
    b.decay_steps = 5;
    b.wsd_decay_steps = 5;
    CU_ASSERT_EQUAL(wd_at(&a, 16, OC_SCHED_CORRECT), wd_at(&b, 16, OC_SCHED_CORRECT));
    a.wd_style = OC_WD_COSINE;
    a.wd_incr_steps = 3;
    CU_ASSERT_EQUAL(lr_at(&a, 40, OC_SCHED_CORRECT), base_decay(0.5));
}

/* ---------------------------------------------------------------------------------------- */
/* Positions                                                                                */
/* ---------------------------------------------------------------------------------------- */

/* SCHED-POS-1: a training loop in which the optimizer step uses the values at the samples
 * consumed so far and the schedule then advances by the iteration's samples
 * (num_microbatches * micro_batch_size * data_parallel_size), only after a successful
 * update. With a batch-size ramp 8, 8, 16, 32, 32, ... the lr is the function of samples,
 * not of iterations; reaching the same sample count by other increments gives the same value
 * bit for bit. */
static void test_positions_are_samples(void)
{
    oc_schedule s = base(OC_LR_COSINE);
    s.warmup_steps = 64;
    s.decay_steps = 256;
    /* micro-batches per iteration (micro_batch_size 2, data-parallel 4): 1, 1, 2, 4, 4, ... */
    const int64_t microbatches[] = {1, 1, 2, 4, 4, 4, 4, 4, 4, 4};
    const int skipped[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0}; /* iteration 5: overflow, no update */
    const double warm[] = {0.0, 8.0, 16.0, 32.0, 64.0, 64.0};
    int64_t n = 0;
    for (size_t it = 0; it < sizeof microbatches / sizeof microbatches[0]; it++) {
        double lr = lr_at(&s, n, OC_SCHED_CORRECT); /* the optimizer step of iteration it */
        if (it == 0)
            CU_ASSERT_EQUAL(lr, s.init_lr); /* the first step uses n = 0 */
        if (it < sizeof warm / sizeof warm[0]) { /* still in warmup: init + 0.75 n / 64 */
            CU_ASSERT_EQUAL(n, (int64_t)warm[it]);
            CU_ASSERT_EQUAL(lr, 0.25 + 0.75 * warm[it] / 64);
        }
        /* the same position reached one sample at a time, or in one jump, is the same value */
        int64_t m = 0;
        while (m < n)
            m += 1;
        CU_ASSERT_EQUAL(lr_at(&s, m, OC_SCHED_CORRECT), lr);
        if (!skipped[it])
            n += microbatches[it] * 2 * 4;
    }
    CU_ASSERT_EQUAL(n, 8 + 8 + 16 + 32 + 5 * 32);
    /* an iteration-count schedule would give lr(iteration 2) = 0.25 + 0.75 * 2/4 at the
     * fourth-of-the-way iteration; the sample schedule gives 0.25 + 0.75 * 16/64 there */
    CU_ASSERT(lr_at(&s, 16, OC_SCHED_CORRECT) != 0.25 + 0.75 * 2.0 / 4);
    /* positions beyond 2^53 are still accepted (converted to binary64 when divided) */
    s.decay_steps = INT64_MAX;
    s.warmup_steps = (int64_t)1 << 60;
    CU_ASSERT_EQUAL(lr_at(&s, (int64_t)1 << 59, OC_SCHED_CORRECT), 0.625);
}

/* ---------------------------------------------------------------------------------------- */
/* Validation                                                                               */
/* ---------------------------------------------------------------------------------------- */

/* One invalid call: expected status, outputs untouched (SCHED-ERR-1). */
static void expect_rejected(const oc_schedule *s, int64_t n, oc_schedule_mutant mu,
                            oc_status want)
{
    double lr = SENTINEL, wd = SENTINEL;
    CU_ASSERT_EQUAL(oc_schedule_mutant_eval(mu, s, n, &lr, &wd), want);
    CU_ASSERT_EQUAL(lr, SENTINEL);
    CU_ASSERT_EQUAL(wd, SENTINEL);
}

typedef void (*breaker)(oc_schedule *s);
#define BREAK(name, body) static void name(oc_schedule *s) { body; }
BREAK(min_lr_neg, s->min_lr = -1e-6)
BREAK(min_lr_nan, s->min_lr = NAN)
BREAK(min_lr_inf, s->min_lr = INFINITY)
BREAK(max_lr_below_min, s->max_lr = 0.0625)
BREAK(max_lr_nan, s->max_lr = NAN)
BREAK(max_lr_inf, s->max_lr = INFINITY)
BREAK(init_lr_above_max, s->init_lr = 1.5)
BREAK(init_lr_neg, s->init_lr = -0.25)
BREAK(init_lr_nan, s->init_lr = NAN)
BREAK(decay_zero, s->decay_steps = 0)
BREAK(decay_neg, s->decay_steps = -64)
BREAK(warmup_neg, s->warmup_steps = -1)
BREAK(warmup_eq_decay, s->warmup_steps = 64)
BREAK(warmup_gt_decay, s->warmup_steps = 65)
BREAK(style_big, s->decay_style = OC_LR_DECAY_STYLE_COUNT)
BREAK(style_neg, s->decay_style = (oc_lr_decay_style)-1)
BREAK(wsd_zero, { s->decay_style = OC_LR_WSD; s->wsd_decay_steps = 0; })
BREAK(wsd_neg, { s->decay_style = OC_LR_WSD; s->wsd_decay_steps = -16; })
BREAK(wsd_too_long, { s->decay_style = OC_LR_WSD; s->wsd_decay_steps = 65; })
BREAK(wsd_style_big, { s->decay_style = OC_LR_WSD; s->wsd_style = OC_WSD_DECAY_STYLE_COUNT; })
BREAK(start_wd_neg, s->start_wd = -0.01)
BREAK(start_wd_nan, s->start_wd = NAN)
BREAK(end_wd_below_start, s->end_wd = 0.03125)
BREAK(end_wd_inf, s->end_wd = INFINITY)
BREAK(end_wd_nan, s->end_wd = NAN)
BREAK(wd_constant_unequal, s->wd_style = OC_WD_CONSTANT)
BREAK(wd_style_big, s->wd_style = OC_WD_INCR_STYLE_COUNT)
BREAK(wd_incr_zero, s->wd_incr_steps = 0)
BREAK(wd_incr_neg, s->wd_incr_steps = -1)
BREAK(wd_mult_neg, s->wd_mult = -0.5)
BREAK(wd_mult_nan, s->wd_mult = NAN)
BREAK(wd_mult_inf, s->wd_mult = INFINITY)
BREAK(wd_product_overflow, { s->end_wd = 1e300; s->wd_mult = 1e10; })

/* SCHED-CFG-1, SCHED-ERR-1: every invalid configuration is rejected by oc_schedule_check and
 * by the evaluation (OC_ERR_BAD_HPARAM), whatever the position and mutant, with nothing
 * written. */
static void test_invalid_configs(void)
{
    static const breaker breakers[] = {
        min_lr_neg, min_lr_nan, min_lr_inf, max_lr_below_min, max_lr_nan, max_lr_inf,
        init_lr_above_max, init_lr_neg, init_lr_nan, decay_zero, decay_neg, warmup_neg,
        warmup_eq_decay, warmup_gt_decay, style_big, style_neg, wsd_zero, wsd_neg,
        wsd_too_long, wsd_style_big, start_wd_neg, start_wd_nan, end_wd_below_start,
        end_wd_inf, end_wd_nan, wd_constant_unequal, wd_style_big, wd_incr_zero, wd_incr_neg,
        wd_mult_neg, wd_mult_nan, wd_mult_inf, wd_product_overflow,
    };
    const int64_t positions[] = {0, 16, 40, 1000};
    for (size_t b = 0; b < sizeof breakers / sizeof breakers[0]; b++) {
        oc_schedule s = base(OC_LR_COSINE);
        breakers[b](&s);
        oc_schedule copy = s;
        CU_ASSERT_EQUAL(oc_schedule_check(&s), OC_ERR_BAD_HPARAM);
        for (size_t p = 0; p < sizeof positions / sizeof positions[0]; p++)
            for (int mu = 0; mu < OC_SCHED_MUTANT_COUNT; mu++)
                expect_rejected(&s, positions[p], (oc_schedule_mutant)mu, OC_ERR_BAD_HPARAM);
        CU_ASSERT(memcmp(&s, &copy, sizeof s) == 0); /* the schedule is only read */
    }
    /* the WSD fields are read only by the WSD style: garbage there is accepted otherwise */
    oc_schedule s = base(OC_LR_COSINE);
    s.wsd_decay_steps = -5;
    s.wsd_style = OC_WSD_DECAY_STYLE_COUNT;
    CU_ASSERT_EQUAL(oc_schedule_check(&s), OC_OK);
    /* boundaries that are valid: min = max, init = 0, init = max, wsd = decay, wd_mult 0 */
    s = base(OC_LR_WSD);
    s.min_lr = s.max_lr;
    s.init_lr = 0.0;
    s.wsd_decay_steps = s.decay_steps;
    s.wd_mult = 0.0;
    s.warmup_steps = s.decay_steps - 1;
    CU_ASSERT_EQUAL(oc_schedule_check(&s), OC_OK);
    s.init_lr = s.max_lr;
    s.start_wd = s.end_wd;
    s.wd_style = OC_WD_CONSTANT;
    CU_ASSERT_EQUAL(oc_schedule_check(&s), OC_OK);
    s.min_lr = s.max_lr = s.init_lr = 0.0;
    CU_ASSERT_EQUAL(oc_schedule_check(&s), OC_OK);
    CU_ASSERT_EQUAL(lr_at(&s, 5, OC_SCHED_CORRECT), 0.0);
}

/* SCHED-POS-1, SCHED-ERR-1: a negative position is OC_ERR_BAD_STEP; NULL pointers, aliased
 * or misaligned outputs and an unknown mutant are rejected with nothing written. */
static void test_invalid_calls(void)
{
    oc_schedule s = base(OC_LR_COSINE);
    expect_rejected(&s, -1, OC_SCHED_CORRECT, OC_ERR_BAD_STEP);
    expect_rejected(&s, INT64_MIN, OC_SCHED_CORRECT, OC_ERR_BAD_STEP);
    expect_rejected(NULL, 0, OC_SCHED_CORRECT, OC_ERR_NULL_POINTER);
    expect_rejected(&s, 0, OC_SCHED_MUTANT_COUNT, OC_ERR_BAD_PROFILE);
    expect_rejected(&s, 0, (oc_schedule_mutant)-1, OC_ERR_BAD_PROFILE);
    CU_ASSERT_EQUAL(oc_schedule_check(NULL), OC_ERR_NULL_POINTER);
    double out = SENTINEL;
    CU_ASSERT_EQUAL(oc_ref_schedule_eval(&s, 0, NULL, &out),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_schedule_eval(&s, 0, &out, NULL),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_schedule_eval(&s, 0, &out, &out), OC_ERR_ALIASING);
    CU_ASSERT_EQUAL(out, SENTINEL);
    _Alignas(16) unsigned char raw[2 * sizeof(double)] = {0};
    double *misaligned = (double *)(void *)(raw + 1);
    CU_ASSERT_EQUAL(oc_ref_schedule_eval(&s, 0, misaligned, &out),
                    OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(oc_ref_schedule_eval(&s, 0, &out, misaligned),
                    OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(out, SENTINEL);
    for (size_t i = 0; i < sizeof raw; i++)
        CU_ASSERT_EQUAL(raw[i], 0);
    /* a negative position with an invalid config: the position is reported */
    s.max_lr = NAN;
    expect_rejected(&s, -1, OC_SCHED_CORRECT, OC_ERR_BAD_STEP);
}

/* ---------------------------------------------------------------------------------------- */
/* Range                                                                                    */
/* ---------------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double unit(void) { return (double)(rng() >> 11) * 0x1p-53; } /* [0, 1) */

/* A positive double with a random significand and an exponent in [lo, hi]. */
static double magnitude(int lo, int hi)
{
    return ldexp(1.0 + unit(), lo + (int)(rng() % (uint64_t)(hi - lo + 1)));
}

/* A value in [0, x]: 0, x, or a random fraction of x, or x minus a few ulps. */
static double below(double x)
{
    if (x == 0.0)
        return 0.0;
    switch (rng() % 6) {
    case 0: return 0.0;
    case 1: return x;
    case 2: return nextafter(x, 0.0);
    case 3: return ldexp(3.0, ilogb(x) - 53); /* the rounding-tie shape of test_range_tie_case */
    default: return x * unit();
    }
}

static int64_t steps(void)
{
    switch (rng() % 4) {
    case 0: return 1 + (int64_t)(rng() % 64);
    case 1: return 1 + (int64_t)(rng() % 100000);
    case 2: return 1 + (int64_t)(rng() >> 2); /* up to 2^62: inexact int -> double */
    default: return INT64_MAX - (int64_t)(rng() % 4);
    }
}

static int64_t sat_add(int64_t a, int64_t b) /* a + b clamped to [0, INT64_MAX], b small */
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    return a + b < 0 ? 0 : a + b;
}

/* A position at one of the schedule's boundaries, or anywhere in [0, D). */
static int64_t position(const oc_schedule *s)
{
    int64_t W = s->warmup_steps, D = s->decay_steps, A = D - s->wsd_decay_steps;
    int64_t c[] = {0, 1, sat_add(W, -1), W, sat_add(W, 1), A, sat_add(A, 1), sat_add(D, -1), D,
                   sat_add(D, 1), s->wd_incr_steps, sat_add(s->wd_incr_steps, 1), INT64_MAX,
                   W + (int64_t)((double)(D - W) * unit())};
    if (rng() % 3 == 0)
        return (int64_t)(rng() % (uint64_t)D);
    return c[rng() % (sizeof c / sizeof c[0])];
}

static oc_schedule random_schedule(void)
{
    oc_schedule s;
    memset(&s, 0, sizeof s);
    s.max_lr = rng() % 16 == 0 ? DBL_MAX : rng() % 16 == 1 ? 0x1p-1070 : magnitude(-40, 40);
    s.min_lr = below(s.max_lr);
    s.init_lr = below(s.max_lr);
    s.decay_steps = steps();
    s.warmup_steps = rng() % 4 == 0 ? 0 : (int64_t)(rng() % (uint64_t)s.decay_steps);
    s.decay_style = (oc_lr_decay_style)(rng() % OC_LR_DECAY_STYLE_COUNT);
    s.wsd_decay_steps = 1 + (int64_t)(rng() % (uint64_t)s.decay_steps);
    s.wsd_style = (oc_wsd_decay_style)(rng() % OC_WSD_DECAY_STYLE_COUNT);
    s.end_wd = rng() % 8 == 0 ? 0.0 : magnitude(-30, 10);
    s.start_wd = below(s.end_wd);
    s.wd_style = (oc_wd_incr_style)(rng() % OC_WD_INCR_STYLE_COUNT);
    if (s.wd_style == OC_WD_CONSTANT)
        s.start_wd = s.end_wd;
    s.wd_incr_steps = steps();
    s.wd_mult = rng() % 4 == 0 ? 1.0 : rng() % 4 == 1 ? 0.0 : magnitude(-20, 4);
    return s;
}

/* SCHED-RANGE-1 over 200000 (schedule, position) pairs: min(min_lr, init_lr) <= lr <= max_lr
 * and fl(start_wd wd_mult) <= wd <= fl(end_wd wd_mult), every style, positions at every
 * boundary, magnitudes from subnormal to DBL_MAX, step counts up to INT64_MAX. */
static void test_range_sweep(void)
{
    unsigned bad_lr = 0, bad_wd = 0;
    for (int i = 0; i < 20000; i++) {
        oc_schedule s = random_schedule();
        if (oc_schedule_check(&s) != OC_OK) {
            CU_FAIL("random_schedule produced an invalid schedule");
            continue;
        }
        for (int j = 0; j < 10; j++) {
            int64_t n = position(&s);
            double lr = SENTINEL, wd = SENTINEL;
            if (oc_ref_schedule_eval(&s, n, &lr, &wd) != OC_OK) {
                CU_FAIL("valid schedule rejected");
                continue;
            }
            double lo = s.min_lr < s.init_lr ? s.min_lr : s.init_lr;
            bad_lr += !(lo <= lr && lr <= s.max_lr);
            bad_wd += !(s.start_wd * s.wd_mult <= wd && wd <= s.end_wd * s.wd_mult);
        }
    }
    CU_ASSERT_EQUAL(bad_lr, 0);
    CU_ASSERT_EQUAL(bad_wd, 0);
}

/* The range contracts of the extended-precision primitives (ref/schedule_exact.h), which WP
 * assumes when it proves ref/schedule.c (proofs/STATUS.md): every shape, ratios at 0, 1, the
 * ulps next to them and anywhere between, denominators up to INT64_MAX, ends from subnormal to
 * DBL_MAX. */
static void test_primitive_contracts(void)
{
    unsigned bad_interp = 0, bad_scaled = 0, bad_sqrt = 0;
    for (int i = 0; i < 50000; i++) {
        double hi = rng() % 16 == 0 ? DBL_MAX : magnitude(-40, 40), lo = below(hi);
        double mult = rng() % 4 == 0 ? 1.0 : magnitude(-20, 4);
        int64_t den = steps(), nums[] = {0, 1, den - 1, den, (int64_t)(rng() % (uint64_t)den)};
        int64_t num = nums[rng() % 5];
        for (int k = 0; k < OC_SCHED_SHAPE_COUNT; k++) {
            double r = oc_sched_interpolate(lo, hi, (oc_sched_shape)k, num, den);
            bad_interp += !(isfinite(r) && lo <= r && r <= hi);
            if (!isfinite(hi * mult))
                continue;
            r = oc_sched_interpolate_scaled(lo, hi, mult, (oc_sched_shape)k, num, den);
            bad_scaled += !(isfinite(r) && lo * mult <= r && r <= hi * mult);
        }
        if (num > 0) {
            double r = oc_sched_scaled_sqrt_ratio(hi, num, den);
            bad_sqrt += !(isfinite(r) && 0.0 <= r && r <= hi);
        }
    }
    CU_ASSERT_EQUAL(bad_interp, 0);
    CU_ASSERT_EQUAL(bad_scaled, 0);
    CU_ASSERT_EQUAL(bad_sqrt, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Mutants                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* Each mutant (spec/schedule.md §5) against its closed form, and unchanged where its mistake
 * does not apply. */
static void test_mutants_closed_form(void)
{
    const oc_schedule_mutant M1 = OC_SCHED_MUT_COSINE_WITHOUT_WARMUP_OFFSET;
    /* cosine-without-warmup-offset (SCHED-DECAY-1): r = n / D */
    oc_schedule s = base(OC_LR_COSINE);
    assert_near(lr_at(&s, 40, M1), base_decay(0.5 * (cos(pi * 40 / 64) + 1.0)), 1.0, 4);
    CU_ASSERT(lr_at(&s, 40, M1) < lr_at(&s, 40, OC_SCHED_CORRECT));
    CU_ASSERT(lr_at(&s, 17, M1) < lr_at(&s, 16, M1) - 0.01); /* jump at the warmup end */
    CU_ASSERT_EQUAL(lr_at(&s, 64, M1), 0.125);
    s.decay_style = OC_LR_LINEAR;
    CU_ASSERT_EQUAL(lr_at(&s, 32, M1), base_decay(0.5));
    s.warmup_steps = 0; /* n/a without warmup */
    for (int64_t n = 0; n <= 70; n++)
        CU_ASSERT_EQUAL(lr_at(&s, n, M1), lr_at(&s, n, OC_SCHED_CORRECT));

    /* min-lr-not-floor (SCHED-ISQRT-1, SCHED-END-1) */
    const oc_schedule_mutant M2 = OC_SCHED_MUT_MIN_LR_NOT_FLOOR;
    s = base(OC_LR_INVERSE_SQRT);
    s.decay_steps = 1024;
    s.min_lr = 0.2;
    CU_ASSERT_EQUAL(lr_at(&s, 1024, M2), 0.125);
    CU_ASSERT_EQUAL(lr_at(&s, 1025, M2), 0.0);
    CU_ASSERT_EQUAL(lr_at(&s, 256, M2), 0.25); /* above the floor: unchanged */
    s = base(OC_LR_LINEAR);
    CU_ASSERT_EQUAL(lr_at(&s, 64, M2), 0.125);
    CU_ASSERT_EQUAL(lr_at(&s, 65, M2), 0.0);
    s.decay_style = OC_LR_CONSTANT; /* n/a: constant never reaches the end rule */
    CU_ASSERT_EQUAL(lr_at(&s, 65, M2), 1.0);

    /* warmup-off-by-one (SCHED-WARMUP-1): (n + 1) / W, still only while n <= W */
    const oc_schedule_mutant M3 = OC_SCHED_MUT_WARMUP_OFF_BY_ONE;
    s = base(OC_LR_LINEAR);
    CU_ASSERT_EQUAL(lr_at(&s, 0, M3), 0.25 + 0.75 / 16);
    CU_ASSERT_EQUAL(lr_at(&s, 15, M3), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 16, M3), 0.25 + 0.75 * 17 / 16); /* above max_lr */
    CU_ASSERT_EQUAL(lr_at(&s, 17, M3), lr_at(&s, 17, OC_SCHED_CORRECT));
    s.warmup_steps = 0; /* n/a */
    CU_ASSERT_EQUAL(lr_at(&s, 0, M3), 1.0);

    /* wsd-decay-one-step-late (SCHED-WSD-1): anneal from 49 */
    const oc_schedule_mutant M4 = OC_SCHED_MUT_WSD_DECAY_ONE_STEP_LATE;
    s = base(OC_LR_WSD);
    CU_ASSERT_EQUAL(lr_at(&s, 49, M4), 1.0);
    CU_ASSERT_EQUAL(lr_at(&s, 50, M4), base_decay(15.0 / 16));
    CU_ASSERT_EQUAL(lr_at(&s, 64, M4), base_decay(1.0 / 16)); /* min_lr not reached */
    CU_ASSERT_EQUAL(lr_at(&s, 65, M4), 0.125);
    s.decay_style = OC_LR_COSINE; /* n/a */
    CU_ASSERT_EQUAL(lr_at(&s, 50, M4), lr_at(&s, 50, OC_SCHED_CORRECT));

    /* wd-cosine-decreasing (SCHED-WD-1): 0.5 (cos(pi r) + 1), from end_wd down to start_wd */
    const oc_schedule_mutant M5 = OC_SCHED_MUT_WD_COSINE_DECREASING;
    s = base(OC_LR_COSINE);
    s.wd_style = OC_WD_COSINE;
    s.wd_incr_steps = 48;
    CU_ASSERT_EQUAL(wd_at(&s, 0, M5), 0.25);
    assert_near(wd_at(&s, 16, M5), (0.0625 + 0.75 * 0.4375) * 0.5, 0.5, 4);
    CU_ASSERT_EQUAL(wd_at(&s, 48, M5), 0.03125);
    CU_ASSERT_EQUAL(wd_at(&s, 49, M5), 0.25); /* past the end: end_wd, as correct */
    CU_ASSERT_EQUAL(lr_at(&s, 40, M5), lr_at(&s, 40, OC_SCHED_CORRECT));
    s.wd_style = OC_WD_LINEAR; /* n/a */
    CU_ASSERT_EQUAL(wd_at(&s, 16, M5), wd_at(&s, 16, OC_SCHED_CORRECT));
}

/* Every mutant differs from the reference at some position of the base schedules (and
 * only there is it detectable: the vectors must contain such a position). */
static void test_mutants_detectable(void)
{
    for (int mu = 1; mu < OC_SCHED_MUTANT_COUNT; mu++) {
        int differs = 0;
        for (int st = 0; st < OC_LR_DECAY_STYLE_COUNT && !differs; st++) {
            oc_schedule s = base((oc_lr_decay_style)st);
            s.wd_style = OC_WD_COSINE;
            if (st == OC_LR_INVERSE_SQRT) {
                s.decay_steps = 1024;
                s.min_lr = 0.2;
            }
            for (int64_t n = 0; n <= s.decay_steps + 2 && !differs; n++) {
                double a = SENTINEL, b = SENTINEL, c = SENTINEL, d = SENTINEL;
                CU_ASSERT_EQUAL(oc_ref_schedule_eval(&s, n, &a, &b), OC_OK);
                CU_ASSERT_EQUAL(oc_schedule_mutant_eval((oc_schedule_mutant)mu, &s, n, &c, &d),
                                OC_OK);
                differs = a != c || b != d;
            }
        }
        CU_ASSERT(differs);
    }
}

static void test_catalogue(void)
{
    for (int a = 0; a < OC_SCHED_MUTANT_COUNT; a++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(oc_schedule_mutant_name((oc_schedule_mutant)a));
        CU_ASSERT_PTR_NOT_NULL_FATAL(oc_schedule_mutant_description((oc_schedule_mutant)a));
        for (int b = 0; b < a; b++) {
            CU_ASSERT(strcmp(oc_schedule_mutant_name((oc_schedule_mutant)a),
                             oc_schedule_mutant_name((oc_schedule_mutant)b)) != 0);
            CU_ASSERT(strcmp(oc_schedule_mutant_description((oc_schedule_mutant)a),
                             oc_schedule_mutant_description((oc_schedule_mutant)b)) != 0);
        }
    }
    CU_ASSERT_STRING_EQUAL(oc_schedule_mutant_name(OC_SCHED_CORRECT), "correct");
    CU_ASSERT_PTR_NULL(oc_schedule_mutant_name(OC_SCHED_MUTANT_COUNT));
    CU_ASSERT_PTR_NULL(oc_schedule_mutant_description(OC_SCHED_MUTANT_COUNT));
    CU_ASSERT_PTR_NULL(oc_schedule_mutant_name((oc_schedule_mutant)-1));
}

void register_suites(void)
{
    ADD_SUITE("schedule-lr",
              {"warmup, inclusive bound, n = 0 is init_lr (SCHED-WARMUP-1)", test_warmup},
              {"no warmup (SCHED-WARMUP-1, SCHED-DECAY-1)", test_no_warmup},
              {"constant (SCHED-CONST-1)", test_constant},
              {"linear decay and end (SCHED-DECAY-1, SCHED-LINEAR-1, SCHED-END-1)", test_linear},
              {"cosine decay and end (SCHED-COSINE-1, SCHED-END-1)", test_cosine},
              {"inverse square root and floor (SCHED-ISQRT-1, SCHED-END-1)", test_inverse_sqrt},
              {"WSD styles at anneal start, +1, end (SCHED-WSD-1)", test_wsd},
              {"exact max_lr where Megatron rounds above it (SCHED-RANGE-1)",
               test_range_tie_case});
    ADD_SUITE("schedule-wd",
              {"styles and multiplier (SCHED-WD-1, SCHED-MULT-1)", test_weight_decay});
    ADD_SUITE("schedule-positions",
              {"samples, batch-size ramp, skipped steps (SCHED-POS-1)",
               test_positions_are_samples});
    ADD_SUITE("schedule-validation",
              {"invalid configurations (SCHED-CFG-1, SCHED-ERR-1)", test_invalid_configs},
              {"invalid calls (SCHED-POS-1, SCHED-ERR-1)", test_invalid_calls});
    ADD_SUITE("schedule-range", {"range sweep (SCHED-RANGE-1)", test_range_sweep},
              {"contracts of the primitives WP assumes (SCHED-RANGE-1)", test_primitive_contracts});
    ADD_SUITE("schedule-mutants",
              {"mutants closed form", test_mutants_closed_form},
              {"every mutant detectable", test_mutants_detectable},
              {"mutant catalogue", test_catalogue});
}
