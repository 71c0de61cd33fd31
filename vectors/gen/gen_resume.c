/* The resume families (spec/checkpoint.md §5): trajectories of the torch profiles whose tests
 * name a break, "resumeAt" (VEC-FMT-20). The expected values are the unbroken trajectory,
 * computed by the algorithms' own exact steppers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"

static gen_rng rng;

/* VEC-FMT-20: every trajectory is emitted once per break point. */
static const int64_t breaks_full[] = {0, 1, 4, 7, 8};
static const int64_t breaks_few[] = {0, 3, 8};
#define TRAJ_STEPS 8

typedef void (*fill_fn)(gen_case *c);

/* The gradient scale of element i: every fourth element near Adam's eps (2^-26.6), where the
 * eps placement mistakes of spec/adam.md show, the others typical. */
static int tiny(size_t i) { return i % 4 == 3; }

/* From a zero state (the first update initialises the state, so a lost step count shows): the
 * parameter random, the gradients a drift plus noise. */
static void fill_from_zero(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        float drift = tiny(i) ? rng_mag(&rng, -28, -25, 1) : rng_mag(&rng, -8, -2, 1);
        c->in[0][i] = rng_mag(&rng, -4, 2, 1);
        for (size_t s = 0; s < c->steps; s++)
            c->g[s * c->n + i] = drift + (tiny(i) ? rng_mag(&rng, -32, -29, 1)
                                                   : rng_mag(&rng, -12, -3, 1));
    }
}

/* Gradients shrinking by 4x per step: v falls below its running maximum after the first
 * updates, so AMSGrad's max carries information across the break (RESUME-STATE-1). */
static void fill_shrinking(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        float g0 = tiny(i) ? rng_mag(&rng, -26, -24, 1) : rng_mag(&rng, -4, 0, 1);
        c->in[0][i] = rng_mag(&rng, -4, 2, 1);
        for (size_t s = 0; s < c->steps; s++)
            c->g[s * c->n + i] = g0 * (float)ldexp(1.0 + rng_unit(&rng) * 0x1p-4, -2 * (int)s);
    }
}

/* One trajectory of a resume family: storage, first step, state and gradients, its breaks. */
typedef struct traj {
    oc_storage storage;
    int64_t first;
    fill_fn fill;
    const int64_t *breaks;
    size_t nbreaks;
    const char *comment, *rule;
} traj;

/* Emits trajectory t once per break (VEC-FMT-20) with stepper s of hyper-parameters hp. */
static void trajectory(family *f, gen_stepper *s, json_t *hp_json, const traj *t)
{
    gen_case proto = {.n = 16, .steps = TRAJ_STEPS};
    gen_case_alloc(&proto, 16, TRAJ_STEPS);
    t->fill(&proto);
    for (size_t b = 0; b < t->nbreaks; b++) {
        gen_case c = {.comment = t->comment, .flags = {"Resume"},
                       .rules = {"VEC-FMT-20", "VEC-RESUME-1", "VEC-RESUME-2", "RESUME-STATE-1",
                                 "RESUME-REF-1", "RESUME-MUT-1", t->rule},
                       .result = "valid", .first_step = t->first, .storage = t->storage,
                       .resume = 1, .resume_at = t->breaks[b]};
        gen_case_alloc(&c, proto.n, proto.steps);
        for (int k = 0; k < GEN_MAX_STATE; k++)
            memcpy(c.in[k], proto.in[k], proto.n * sizeof(float));
        memcpy(c.g, proto.g, proto.n * proto.steps * sizeof(float));
        family_emit(f, s, json_deep_copy(hp_json), &c);
    }
    json_decref(hp_json);
    for (int k = 0; k < GEN_MAX_STATE; k++)
        free(proto.in[k]);
    free(proto.g);
}

static void adam_trajectory(family *f, const gen_options *opt, oc_adam_hparams hp, traj t)
{
    gen_stepper s;
    gen_adam_stepper(&hp, opt->prec, &s);
    trajectory(f, &s, gen_adam_hparams_json(&hp), &t);
    gen_adam_stepper_free(&s);
}

static void sgd_trajectory(family *f, const gen_options *opt, oc_sgd_hparams hp, traj t)
{
    gen_stepper s;
    gen_sgd_stepper(&hp, opt->prec, &s);
    trajectory(f, &s, gen_sgd_hparams_json(&hp), &t);
    gen_sgd_stepper_free(&s);
}

static void notes(family *f)
{
    family_note(f, "Resume", "TRAJECTORY",
                "the implementation saves its whole state after resumeAt updates, restores it "
                "into fresh poisoned buffers and continues",
                "a state the serialisation drops (step count, AMSGrad maximum, fp32 master) "
                "changes the continued trajectory", NULL);
}

static const char *const adam_rules[] = {"VEC-FMT-20", "VEC-RESUME-1", "VEC-RESUME-2",
                                         "RESUME-STATE-1", "RESUME-REF-1", "RESUME-MUT-1",
                                         "ADAM-UPD-1", "ADAM-AMS-1", "ADAM-BC-1",
                                         "MP-MASTER-1", NULL};
static const char *const sgd_rules[] = {"VEC-FMT-20", "VEC-RESUME-1", "VEC-RESUME-2",
                                        "RESUME-STATE-1", "RESUME-REF-1", "SGD-BUF-1", NULL};

static oc_adam_hparams adamw(int amsgrad)
{
    return (oc_adam_hparams){.profile = OC_ADAM_TORCH, .lr = 1e-3f, .beta1 = 0.9f,
                             .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 1e-2f,
                             .schedule_multiplier = 1.0, .decoupled = 1, .amsgrad = amsgrad};
}

#define BREAKS(a) a, sizeof a / sizeof *a

static const oc_storage fp32 = {OC_FMT_F32, OC_FMT_F32}, bf16 = {OC_FMT_BF16, OC_FMT_F32},
                        f16 = {OC_FMT_F16, OC_FMT_F32};

static int adam_families(const gen_options *opt, const char *outdir)
{
    oc_adam_hparams w = adamw(0), ams = adamw(1), l2 = adamw(1);
    w.lr = 0x1p-4f; /* lr * wd = 2^-5: the decay's order in the update shows */
    w.weight_decay = 0.5f;
    ams.beta2 = l2.beta2 = 0.95f; /* v falls 5% a step once the gradients have shrunk */
    l2.decoupled = 0;
    l2.lr = 1e-2f;
    family f;
    if (family_init(&f, "resume-adam-torch", "adam", "torch", adam_rules, opt) != 0)
        return -1;
    notes(&f);
    adam_trajectory(&f, opt, w, (traj){fp32, 1, fill_from_zero, BREAKS(breaks_full),
                    "AdamW (lr 2^-4, decay 0.5) from a zero state, broken after resumeAt updates",
                    "ADAM-BC-1"});
    adam_trajectory(&f, opt, ams, (traj){fp32, 1, fill_shrinking, BREAKS(breaks_full),
                    "AdamW with AMSGrad, shrinking gradients: the maximum outlives v",
                    "ADAM-AMS-1"});
    adam_trajectory(&f, opt, l2, (traj){fp32, 1000, fill_shrinking, BREAKS(breaks_few),
                    "Adam with L2 decay and AMSGrad at steps 1000..1007", "ADAM-AMS-1"});
    int rc = family_save(&f, outdir);
    family_free(&f);
    if (rc != 0 || family_init(&f, "resume-adam-torch-mixed", "adam", "torch", adam_rules, opt))
        return -1;
    notes(&f);
    adam_trajectory(&f, opt, ams, (traj){bf16, 1, fill_shrinking, BREAKS(breaks_full),
                    "bf16 parameters, fp32 master: AdamW with AMSGrad", "MP-MASTER-1"});
    adam_trajectory(&f, opt, ams, (traj){f16, 1, fill_from_zero, BREAKS(breaks_few),
                    "fp16 parameters, fp32 master: AdamW with AMSGrad", "MP-MASTER-1"});
    adam_trajectory(&f, opt, w, (traj){bf16, 50, fill_from_zero, BREAKS(breaks_few),
                    "bf16 parameters, fp32 master: AdamW at steps 50..57", "MP-MASTER-1"});
    rc = family_save(&f, outdir);
    family_free(&f);
    return rc;
}

static int sgd_family(const gen_options *opt, const char *outdir)
{
    static const int64_t some[] = {1, 4};
    oc_sgd_hparams mom = {.profile = OC_SGD_TORCH, .lr = 1e-2f, .momentum = 0.9f};
    oc_sgd_hparams nest = mom, damp = mom;
    nest.nesterov = 1;
    nest.weight_decay = 1e-2f;
    damp.dampening = 0.5f;
    family f;
    if (family_init(&f, "resume-sgd-torch", "sgd", "torch", sgd_rules, opt) != 0)
        return -1;
    notes(&f);
    sgd_trajectory(&f, opt, mom, (traj){fp32, 1, fill_from_zero, BREAKS(breaks_full),
                   "SGD with momentum from step 1 (the buffer starts as the gradient)",
                   "SGD-BUF-1"});
    sgd_trajectory(&f, opt, nest, (traj){fp32, 1, fill_from_zero, BREAKS(some),
                   "SGD with Nesterov momentum and weight decay", "SGD-BUF-1"});
    sgd_trajectory(&f, opt, damp, (traj){fp32, 1, fill_shrinking, BREAKS(breaks_few),
                   "SGD with momentum and dampening 0.5, shrinking gradients", "SGD-BUF-1"});
    int rc = family_save(&f, outdir);
    family_free(&f);
    return rc;
}

static int gen_resume(const gen_options *opt, const char *outdir)
{
    rng.state = opt->seed * 1000003ull + 2100;
    return adam_families(opt, outdir) || sgd_family(opt, outdir) ? -1 : 0;
}

/* Writes vectors/resume-adam-torch, resume-adam-torch-mixed and resume-sgd-torch
 * (spec/checkpoint.md §5). */
const gen_family gen_family_resume = {.name = "resume", .generate = gen_resume};
