/* Expert parallelism under a chained step (spec/layouts.md LAYOUT-CHAIN-1): Megatron's
 * ChainedOptimizer with a dense AdamW over the data-parallel group (every rank) and an expert
 * AdamW over the expert-data-parallel group, each rank holding its expert-parallel rank's
 * experts, each sub-step with its own max_norm and skip threshold (STEP-CLIP-2). Under every
 * layout kind (the same kind for both sub-steps), 6 steps: step 1 with the dense clipping
 * disabled (max_norm 0: the norm still computed, CLIP-DISABLE-1), step 2 with the dense
 * sub-step clipped to half the norm and the expert one not, step 3 with an inf in one expert
 * gradient of the last rank, step 4 above the expert sub-step's own skip threshold, step 5
 * with dense parameter 3 in the 'mtp' grad-norm group and the dense sub-step clipping both
 * its main parameters (against the main norm) and that one (against the group's norm), step 6
 * with every expert in the group, clipped against the group's norm, and the expert sub-step's
 * threshold below every norm but not checked (it has no main parameter; STEP-GROUP-1). Every
 * rank checks: the main and the group norm against the logical norms of their dense and
 * expert gradients (each counted once, CLIP-TOL-2), the same norms, coefficients and decision
 * on every rank, the skips leaving everything unchanged, and otherwise each dense parameter
 * and expert bit-identical to the single-rank AdamW step of its logical gradient with the
 * coefficient of its sub-step's max_norm against its group's norm; sub-steps whose profile or
 * norm type differ are rejected. Contributions k * 2^e as in layout_suite.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chain_suite.h"
#include "suite_data.h"

static const oc_layout_param dense[] = {{64, 32, 2, 1}, {32, 1, 1, 0}, {48, 16, 2, 0}, {16, 1, 1, 0}};
static const oc_layout_param expert[] = {{32, 48, 2, 0}, {48, 32, 2, 0}, {32, 48, 2, 0}, {48, 32, 2, 0}};
enum { ND = sizeof dense / sizeof dense[0], NE = sizeof expert / sizeof expert[0], STEPS = 6 };

static const oc_adam_hparams adamw = {OC_ADAM_TORCH, 1e-2, 0.9, 0.95, 1e-8, 0.1, 0, 1, 1, 0, 0};

static oc_status adamw_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    return oc_fast_adam_step(&adamw, *(const int64_t *)ctx, o, nt, t, NULL);
}

/* One sub-optimizer's parameters on this rank: the layout, engine, buffers, and the single-rank
 * copy of its logical parameters. */
typedef struct sub_state {
    const oc_layout_param *model;
    size_t np, logical, loff[NE > ND ? NE : ND];
    uint64_t id0;            /* logical id of parameter 0 (expert ids differ per ep rank) */
    const oc_comm *group;    /* data-parallel group */
    oc_layout l;
    oc_dist d;
    float *p, *g, *m, *v;    /* flat params and grads, owned states */
    float *p1, *g1, *m1, *v1; /* single-rank logical copies */
    oc_dist_buffers b;
} sub_state;

static size_t numel(const oc_layout_param *p) { return p->dim0 * p->dim1; }

static int sub_init(sub_state *u, const oc_layout_param *model, size_t np, uint64_t id0,
                    const oc_comm *group, oc_layout_kind kind)
{
    memset(u, 0, sizeof *u);
    *u = (sub_state){.model = model, .np = np, .id0 = id0, .group = group};
    for (size_t i = 0; i < np; u->logical += numel(&model[i]), i++)
        u->loff[i] = u->logical;
    if (oc_layout_build(kind, group->size, model, np, NULL, &u->l) != OC_OK)
        return 1;
    if (oc_dist_init(&u->d, &u->l, group) != OC_OK) {
        oc_layout_free(&u->l);
        return 1;
    }
    u->p = calloc(u->l.size, 4), u->g = calloc(u->l.size, 4);
    u->m = calloc(u->d.owned + 1, 4), u->v = calloc(u->d.owned + 1, 4);
    u->p1 = malloc(u->logical * 4), u->g1 = malloc(u->logical * 4);
    u->m1 = calloc(u->logical, 4), u->v1 = calloc(u->logical, 4);
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < numel(&model[i]); j++)
            u->p[u->l.offset[i] + j] = u->p1[u->loff[i] + j] = init_param(id0 + i, j);
    u->b = (oc_dist_buffers){u->p, NULL, NULL, u->g, {u->m, u->v, NULL}};
    return 0;
}

static void sub_free(sub_state *u)
{
    free(u->p), free(u->g), free(u->m), free(u->v), free(u->p1), free(u->g1), free(u->m1), free(u->v1);
    oc_dist_free(&u->d);
    oc_layout_free(&u->l);
}

/* This rank's contributions and the logical gradients of step s; adds the logical squares
 * and counts to the main norm's (index 0) or the 'mtp' group's (1, attr[i].mtp). */
static void sub_grads(sub_state *u, const oc_dist_param_attr *attr, int s, double sumsq[2],
                      size_t m[2])
{
    for (size_t i = 0; i < u->np; i++)
        for (size_t j = 0; j < numel(&u->model[i]); j++) {
            int total = 0;
            for (int r = 0; r < u->group->size; r++)
                total += grad_k(r, u->id0 + i, j, s);
            float g = (float)total * grad_scale(u->id0 + i, j);
            u->g1[u->loff[i] + j] = g;
            sumsq[attr[i].mtp] += (double)g * g, m[attr[i].mtp]++;
            u->g[u->l.offset[i] + j] = (float)grad_k(u->group->rank, u->id0 + i, j, s) *
                                       grad_scale(u->id0 + i, j);
        }
}

/* The logical squares of the experts of every ep rank (the other ranks' too). */
static void other_experts(int ep_size, int ep_rank, int edp_size, int s, double *sumsq, size_t *m)
{
    for (int e = 0; e < ep_size; e++)
        for (size_t i = 0; e != ep_rank && i < NE; i++)
            for (size_t j = 0; j < numel(&expert[i]); j++) {
                int total = 0;
                for (int r = 0; r < edp_size; r++)
                    total += grad_k(r, 1000 + (uint64_t)e * NE + i, j, s);
                float g = (float)total * grad_scale(1000 + (uint64_t)e * NE + i, j);
                *sumsq += (double)g * g, (*m)++;
            }
}

static int bits(float x)
{
    int b;
    memcpy(&b, &x, sizeof b);
    return b;
}
static int differs(const oc_comm *w, int x)
{
    int hi = x, lo = -x;
    w->allreduce_max_int(w->ctx, &hi);
    w->allreduce_max_int(w->ctx, &lo);
    return hi != -lo;
}

static int run(const oc_comm *world, const oc_comm *edp, const oc_comm *ep, oc_layout_kind kind,
               double *ratio)
{
    sub_state u[2];
    if (sub_init(&u[0], dense, ND, 0, world, kind))
        return 1;
    if (sub_init(&u[1], expert, NE, 1000 + (uint64_t)ep->rank * NE, edp, kind)) {
        sub_free(&u[0]);
        return 1;
    }
    oc_clip_config cd = {OC_CLIP_MEGATRON, 1.0, 0, INFINITY, kind != OC_LAYOUT_REPLICATED, 1, 1, world->size};
    oc_clip_config ce = {OC_CLIP_MEGATRON, 1.0, 0, INFINITY, kind != OC_LAYOUT_REPLICATED, ep->size, 1, edp->size};
    oc_dist_param_attr dattr[ND] = {{0}}, split[NE];
    for (size_t i = 0; i < NE; i++)
        split[i] = (oc_dist_param_attr){.tensor_parallel = 1}; /* each ep rank holds different experts */
    const oc_dist_param_attr *attr[2] = {dattr, split};
    const oc_clip_config *cfg[2] = {&cd, &ce};
    oc_dist_control ctl[2] = {{&cd, dattr, 0, 0, NULL},
                              {&ce, split, ep->rank, 0, ep->size > 1 ? ep : NULL}};
    int64_t t = 0;
    float coeff[2][2]; /* [sub-step][main norm, 'mtp' group] */
    oc_dist_sub chain[2];
    for (int k = 0; k < 2; k++)
        chain[k] = (oc_dist_sub){.d = &u[k].d, .b = &u[k].b, .sc = &ctl[k], .step = adamw_step,
                                 .ctx = &t, .clip_coeff = &coeff[k][0],
                                 .mtp_clip_coeff = &coeff[k][1]};
    int fails = 0;
    /* LAYOUT-CHAIN-1: sub-steps whose profile or norm type differ are rejected on every rank
     * before any collective, nothing written; LAYOUT-PP-1: a parameter index outside the
     * layout is rejected */
    oc_dist_outcome rejected;
    ce.profile = OC_CLIP_TORCH;
    fails += oc_dist_chained_step(2, chain, NULL, &rejected) != OC_ERR_BAD_HPARAM;
    ce.profile = OC_CLIP_MEGATRON, ce.inf_norm = 1;
    fails += oc_dist_chained_step(2, chain, NULL, &rejected) != OC_ERR_BAD_HPARAM;
    ce.inf_norm = 0;
    fails += memcmp(u[0].p + u[0].l.offset[0], u[0].p1, numel(&dense[0]) * 4) != 0;
    fails += oc_dist_tie_grads(&u[0].d, &u[0].b, world, ND) != OC_ERR_BAD_HPARAM;
    for (int s = 1; s <= STEPS; s++) {
        dattr[3].mtp = s == 5; /* STEP-GROUP-1 */
        for (size_t i = 0; i < NE; i++)
            split[i].mtp = s == 6;
        double sumsq[2] = {0.0, 0.0};
        size_t m[2] = {0, 0};
        sub_grads(&u[0], dattr, s, sumsq, m);
        sub_grads(&u[1], split, s, sumsq, m);
        other_experts(ep->size, ep->rank, edp->size, s, &sumsq[s == 6], &m[s == 6]);
        double ref[2] = {sqrt(sumsq[0]), sqrt(sumsq[1])};
        /* STEP-CLIP-2, CLIP-DISABLE-1 */
        cd.max_norm = s == 1 ? 0.0 : s == 2 ? ref[0] / 2 : s == 5 ? fmin(ref[0], ref[1]) / 2 : 1e30;
        ce.max_norm = s == 6 ? ref[1] / 2 : 1e30;
        ce.skip_threshold = s == 4 ? ref[0] / 2 : s == 6 ? 1e-30 : INFINITY;
        coeff[0][0] = coeff[0][1] = coeff[1][0] = coeff[1][1] = NAN;
        int inject = s == 3 && world->rank == world->size - 1;
        if (inject)
            u[1].g[u[1].l.offset[NE - 1] + 1] = INFINITY;
        float *snap[2];
        for (int k = 0; k < 2; k++) {
            snap[k] = malloc((u[k].l.size + 2 * u[k].d.owned) * 4 + 4);
            memcpy(snap[k], u[k].p, u[k].l.size * 4);
            memcpy(snap[k] + u[k].l.size, u[k].m, u[k].d.owned * 4);
            memcpy(snap[k] + u[k].l.size + u[k].d.owned, u[k].v, u[k].d.owned * 4);
        }
        t = s;
        oc_fast_opts o = oc_fast_opts_default();
        oc_dist_outcome out;
        oc_status st = oc_dist_chained_step(2, chain, &o, &out);
        fails += st != OC_OK;
        fails += out.skipped != (s == 3 || s == 4) || out.found_inf != (s == 3);
        fails += differs(world, bits(out.total_norm)) + differs(world, bits(out.mtp_norm)) +
                 differs(world, bits(out.clip_coeff)) + differs(world, out.skipped);
        for (int k = 0; k < 2; k++)
            fails += differs(world, bits(coeff[k][0])) + differs(world, bits(coeff[k][1]));
        float norms[2] = {out.total_norm, out.mtp_norm};
        for (int g = 0; st == OC_OK && !out.found_inf && g < 2; g++) { /* CLIP-TOL-2 */
            double bound = ((double)m[g] + world->size + 4) * 0x1p-24 * ref[g];
            double r = ref[g] > 0 ? fabs(norms[g] - ref[g]) / bound : norms[g] != 0.0f;
            *ratio = r > *ratio ? r : *ratio;
            fails += !(r <= 1.0);
        }
        /* each parameter's factor: its sub-step's max_norm against its group's norm (within
         * 2^-20 of the factor of the binary32 norm reported; the step's own from the binary64
         * norm); which ones clip (teeth: a single factor, or the main norm for the group,
         * fails) */
        for (int k = 0; !out.skipped && k < 2; k++)
            for (int g = 0; g < 2; g++)
                fails += !(fabs(coeff[k][g] - oc_fast_clip_coeff(cfg[k], norms[g])) <=
                           0x1p-20 * coeff[k][g]);
        if (!out.skipped)
            fails += bits(out.clip_coeff) != bits(coeff[0][0]) ||
                     (s == 2 || s == 5) != (coeff[0][0] < 1.0f) || (s == 5) != (coeff[0][1] < 1.0f) ||
                     (s == 6) != (coeff[1][1] < 1.0f) || (coeff[1][0] != 1.0f && s != 6);
        for (int k = 0; k < 2; k++) {
            if (out.skipped) { /* LAYOUT-SKIP-1 */
                fails += memcmp(snap[k], u[k].p, u[k].l.size * 4) != 0 ||
                         memcmp(snap[k] + u[k].l.size, u[k].m, u[k].d.owned * 4) != 0 ||
                         memcmp(snap[k] + u[k].l.size + u[k].d.owned, u[k].v, u[k].d.owned * 4) != 0;
            } else {
                for (size_t i = 0; i < u[k].np; i++) {
                    size_t o = u[k].loff[i];
                    oc_fast_opts o1 = {1.0f, coeff[k][attr[k][i].mtp], OC_FAST_MODEL_NONE};
                    oc_fast_tensor one = {numel(&u[k].model[i]), u[k].p1 + o, u[k].g1 + o,
                                          {u[k].m1 + o, u[k].v1 + o, NULL}, NULL};
                    fails += adamw_step(&t, &o1, 1, &one) != OC_OK;
                    fails += memcmp(u[k].p + u[k].l.offset[i], u[k].p1 + o,
                                    numel(&u[k].model[i]) * 4) != 0;
                }
            }
            free(snap[k]);
        }
    }
    sub_free(&u[0]);
    sub_free(&u[1]);
    return fails;
}

int chain_suite(const oc_comm *world, const oc_comm *edp, const oc_comm *ep, int verbose)
{
    int fails = 0;
    for (int k = 0; k < OC_LAYOUT_KIND_COUNT; k++) {
        double ratio = 0.0;
        int bad = run(world, edp, ep, (oc_layout_kind)k, &ratio) != 0;
        fails += bad;
        world->allreduce_max_int(world->ctx, &bad);
        if (world->rank == 0 && (verbose || bad))
            printf("chained dense+expert %-15s ep=%d edp=%d: norm error/bound %.3f %s\n",
                   oc_layout_kind_name((oc_layout_kind)k), ep->size, edp->size, ratio,
                   bad ? "FAIL" : "ok");
    }
    return fails;
}
