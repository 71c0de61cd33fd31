/* Schedule mutants (spec/schedule.md §5): the reference's lr or weight decay with the one rule
 * the mistake concerns evaluated the mistaken way, from the reference's pieces. */
#include <stddef.h>
#include "schedule.h"

static const char *const names[OC_SCHED_MUTANT_COUNT] = {
    "correct",
    "cosine-without-warmup-offset",
    "min-lr-not-floor",
    "warmup-off-by-one",
    "wsd-decay-one-step-late",
    "wd-cosine-decreasing",
};

static const char *const descriptions[OC_SCHED_MUTANT_COUNT] = {
    "the reference itself",
    "linear/cosine decay ratio n/decay_steps, ignoring the warmup (timm warmup_prefix=False)",
    "inverse-sqrt not clamped at min_lr, and 0 instead of min_lr past decay_steps",
    "warmup fraction (n+1)/warmup_steps instead of n/warmup_steps (one position ahead)",
    "WSD anneal starts at decay_steps - wsd_decay_steps + 1, one sample late",
    "weight-decay cosine increment uses cos(pi r) instead of cos(pi (1-r)): it decreases",
};

const char *oc_schedule_mutant_name(oc_schedule_mutant mu)
{
    return (unsigned)mu < OC_SCHED_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_schedule_mutant_description(oc_schedule_mutant mu)
{
    return (unsigned)mu < OC_SCHED_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* The lr at n of a valid schedule with mistake mu. */
static double lr(oc_schedule_mutant mu, const oc_schedule *s, int64_t n)
{
    const int64_t D = s->decay_steps;
    switch (oc_schedule_lr_phase(s, n)) {
    case OC_LR_WARMUP: /* SCHED-WARMUP-1 mistaken: (n + 1) / W (n + 1 <= W + 1 <= D) */
        if (mu == OC_SCHED_MUT_WARMUP_OFF_BY_ONE)
            return oc_schedule_warmup_lr(s, n + 1);
        break;
    case OC_LR_END: /* SCHED-END-1 mistaken: 0, not min */
        if (mu == OC_SCHED_MUT_MIN_LR_NOT_FLOOR)
            return 0.0;
        break;
    case OC_LR_DECAY:
        if (mu == OC_SCHED_MUT_MIN_LR_NOT_FLOOR && s->decay_style == OC_LR_INVERSE_SQRT)
            return oc_schedule_inverse_sqrt(s, n);     /* SCHED-ISQRT-1 without the floor */
        if (mu == OC_SCHED_MUT_WSD_DECAY_ONE_STEP_LATE && s->decay_style == OC_LR_WSD)
            return oc_schedule_wsd_lr(s, n, D - s->wsd_decay_steps + 1); /* SCHED-WSD-1 */
        if (mu == OC_SCHED_MUT_COSINE_WITHOUT_WARMUP_OFFSET &&
            (s->decay_style == OC_LR_LINEAR || s->decay_style == OC_LR_COSINE))
            return oc_schedule_decay_lr(s, D - n, D);  /* SCHED-DECAY-1: r = n / D */
        break;
    default:
        break;
    }
    return oc_schedule_lr(s, n);
}

/* The weight decay at n of a valid schedule with mistake mu: SCHED-WD-1's cosine
 * 0.5 (cos(pi r) + 1), decreasing, i.e. the increasing one at 1 - r. */
static double wd(oc_schedule_mutant mu, const oc_schedule *s, int64_t n)
{
    if (mu == OC_SCHED_MUT_WD_COSINE_DECREASING && s->wd_style == OC_WD_COSINE &&
        n <= s->wd_incr_steps)
        return oc_schedule_wd_increment(s, s->wd_incr_steps - n);
    return oc_schedule_wd(s, n);
}

oc_status oc_schedule_mutant_eval(oc_schedule_mutant mu, const oc_schedule *s, int64_t samples,
                                  double *lr_out, double *wd_out)
{
    if ((unsigned)mu >= OC_SCHED_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (mu == OC_SCHED_CORRECT || s == NULL)
        return oc_ref_schedule_eval(s, samples, lr_out, wd_out);
    const oc_schedule cfg = *s; /* the outputs may overlap *s */
    oc_status st = oc_ref_schedule_eval(s, samples, lr_out, wd_out); /* SCHED-ERR-1 */
    if (st != OC_OK)
        return st;
    *lr_out = lr(mu, &cfg, samples);
    *wd_out = wd(mu, &cfg, samples);
    return OC_OK;
}
