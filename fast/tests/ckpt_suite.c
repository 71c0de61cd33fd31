/* The checkpoint suite (spec/checkpoint.md). The model: dense parameters split over pipeline
 * stages (the last stage also holding a copy of the embedding, tied: gradients summed over the
 * embedding group), some split over the TP ranks on dim 0 (column-parallel), the projections
 * on dim 1 (row-parallel, CKPT-FMT-3: a piece per row), the others replicated over TP,
 * stepped by a mixed-precision AdamW-AMSGrad (bf16 model copy, fp32 master, m, v, vmax) over
 * the data-parallel group; experts spread over the EP ranks, stepped by an fp32 SGD with Nesterov
 * momentum over the expert-data-parallel group; both under one chained step with a Megatron
 * loss scaler (found_inf skips both), a schedule position, a step count per sub-optimizer.
 * Steps 2 and 5 overflow: the hysteresis tracker is 1 at the checkpoint (step 3), so step 5
 * backs off only if it was restored. The logical gradient of every element does not depend
 * on the rank count (rank contributions k_r * 2^e summing exactly to k * 2^e), so a run on any
 * grid under any layout has one trajectory; the checks compare bytes. A resumed run equal to
 * the unbroken one exercises the whole format (CKPT-FMT-1, CKPT-FMT-2: every field restored,
 * else a later step differs), the writers (CKPT-OWN-1: a save whose pieces do not tile a
 * parameter is refused) and the reassembly (CKPT-RESHARD-1). */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ckpt_suite.h"
#include "optcert/formats.h"
#include "suite_data.h"

enum { SAVE_STEP = 3, TOTAL_STEPS = 6, NDENSE = 9, NEXPERT = 4, EXPERT_PARAMS = 2 };

static const struct dense_param {
    const char *name;
    size_t dim0, dim1;
    int stage;    /* pipeline stage when pp = 2 */
    int tp_split; /* split over TP: 1 on dim 0, 2 on dim 1 (0: replicated over TP) */
} dense[NDENSE] = {
    {"embedding", 250, 24, 0, 1}, {"layer0.qkv", 96, 24, 0, 1},  {"layer0.proj", 24, 48, 0, 2},
    {"layer0.norm", 24, 1, 0, 0}, {"layer1.qkv", 96, 24, 1, 1},  {"layer1.proj", 24, 48, 1, 2},
    {"layer1.norm", 24, 1, 1, 0}, {"output", 130, 24, 1, 1},     {"final.bias", 7, 1, 1, 0},
};
static const size_t expert_shape[EXPERT_PARAMS][2] = {{48, 24}, {24, 48}};

static const oc_adam_hparams adam = {OC_ADAM_TORCH, 1e-3, 0.8, 0.99, 1e-6, 0.01, 0, 1, 1, 1, 0};
static const oc_sgd_hparams sgd = {OC_SGD_TORCH, 1e-2, 0.9, 0, 1e-3, 1, 0};
static const oc_loss_scaler scaler_cfg = {OC_LS_MEGATRON, 16.0f, 1.0f, 2.0f, 0.5f, 3, 2};
static const char *const adam_states[] = {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
static const char *const sgd_states[] = {"momentum_buffer"};

ckpt_grid ckpt_grid_of(int n)
{
    ckpt_grid g = {n % 4 == 0 ? 2 : 1, n == 8 ? 2 : 1, 1, n % 2 == 0 ? 2 : 1, 1};
    g.dp = n / (g.tp * g.pp);
    g.edp = n / g.ep;
    return g;
}

void ckpt_place(const ckpt_grid *g, int w, int color[CKPT_NGROUPS], int key[CKPT_NGROUPS])
{
    int tp_rank = w % g->tp, dp_rank = w / g->tp % g->dp, pp_stage = w / (g->tp * g->dp);
    color[CKPT_DP] = pp_stage * g->tp + tp_rank, key[CKPT_DP] = dp_rank;
    color[CKPT_MP] = dp_rank, key[CKPT_MP] = pp_stage * g->tp + tp_rank;
    color[CKPT_EDP] = w % g->ep, key[CKPT_EDP] = w / g->ep;
    color[CKPT_EP] = w / g->ep, key[CKPT_EP] = w % g->ep;
    color[CKPT_EMB] = dp_rank * g->tp + tp_rank, key[CKPT_EMB] = pp_stage;
}

/* One sub-optimizer on this rank. */
typedef struct sub_run {
    size_t np;
    oc_layout_param shape[NEXPERT * EXPERT_PARAMS + NDENSE];
    oc_ckpt_param cp[NEXPERT * EXPERT_PARAMS + NDENSE];
    char names[NEXPERT * EXPERT_PARAMS + NDENSE][32];
    size_t id[NEXPERT * EXPERT_PARAMS + NDENSE]; /* the gradient data's parameter id */
    oc_layout l;
    oc_dist d;
    float *params, *master, *grads, *state[3];
    uint16_t *model;
    oc_dist_buffers b;
    int64_t step;
    size_t tied; /* the last stage's copy of the embedding (pp = 2), else (size_t)-1 */
} sub_run;

/* The whole trainer on this rank. */
typedef struct trainer {
    const ckpt_comms *c;
    ckpt_grid g;
    sub_run u[2]; /* dense, expert */
    oc_loss_scale_state scaler;
    int64_t position;
    size_t emb;   /* the embedding's (or its copy's) index in u[0] on the first and last stage */
    oc_dist_control ctl[2];
    oc_ckpt_sub cs[2];
    oc_ckpt_state state;
} trainer;

static oc_status dense_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    return oc_fast_adam_step(&adam, *(const int64_t *)ctx + 1, o, nt, t, NULL);
}
static oc_status expert_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    return oc_fast_sgd_step(&sgd, *(const int64_t *)ctx + 1, o, nt, t, NULL);
}

/* Parameter `name` of global shape d0 x d1, split into `split` parts on dim `dim` (0 or 1), of
 * which this rank holds part `part`. */
static void add_param(sub_run *u, const char *name, size_t id, size_t d0, size_t d1, int dim,
                      size_t split, size_t part, int replica)
{
    size_t i = u->np++;
    snprintf(u->names[i], sizeof u->names[i], "%s", name);
    u->id[i] = id;
    if (dim == 1) {
        u->shape[i] = (oc_layout_param){d0, d1 / split, 2, 0};
        u->cp[i] = (oc_ckpt_param){u->names[i], d0, d1, part * (d1 / split), replica, d1 / split};
    } else {
        u->shape[i] = (oc_layout_param){d0 / split, d1, d1 == 1 ? 1 : 2, 0};
        u->cp[i] = (oc_ckpt_param){u->names[i], d0, d1, part * (d0 / split) * d1, replica, 0};
    }
}

/* The global (logical) index of local element j of parameter p: what the initial values and
 * the gradients are functions of, so that every grid has one trajectory. */
static size_t global_of(const oc_ckpt_param *p, size_t j)
{
    return p->cols ? j / p->cols * p->dim1 + p->base + j % p->cols : p->base + j;
}

static void sub_free(sub_run *u)
{
    free(u->params), free(u->master), free(u->grads), free(u->model);
    for (int k = 0; k < 3; k++)
        free(u->state[k]);
    oc_dist_free(&u->d);
    oc_layout_free(&u->l);
}

/* The layout and the buffers, parameters from init_param of `seed` (a fresh instance loads
 * over other values). */
static int sub_init(sub_run *u, oc_layout_kind kind, const oc_comm *group, int mixed,
                    int nstates, size_t seed)
{
    static const oc_layout_opts buckets = {2000, 0};
    if (oc_layout_build(kind, group->size, u->shape, u->np, &buckets, &u->l) != OC_OK)
        return 1;
    if (oc_dist_init(&u->d, &u->l, group) != OC_OK) {
        oc_layout_free(&u->l);
        return 1;
    }
    size_t owned = u->d.owned + 1;
    u->grads = calloc(u->l.size + 1, 4);
    u->params = mixed ? NULL : calloc(u->l.size + 1, 4);
    u->master = mixed ? calloc(owned, 4) : NULL;
    u->model = mixed ? calloc(u->l.size + 1, 2) : NULL;
    int bad = !u->grads || (mixed ? !u->master || !u->model : !u->params);
    for (int k = 0; k < nstates; k++)
        bad |= !(u->state[k] = calloc(owned, 4));
    for (size_t i = 0; !bad && i < u->np; i++)
        for (size_t j = 0; j < u->l.numel[i]; j++) {
            float x = init_param(u->id[i] + seed, global_of(&u->cp[i], j));
            if (mixed)
                u->model[u->l.offset[i] + j] = oc_narrow(OC_FMT_BF16, x);
            else
                u->params[u->l.offset[i] + j] = x;
        }
    for (size_t k = 0, pos = 0; !bad && mixed && k < u->d.nseg; pos += u->d.seg[k].len, k++)
        for (size_t j = 0; j < u->d.seg[k].len; j++)
            u->master[pos + j] = init_param(u->id[u->d.seg[k].param] + seed,
                                            global_of(&u->cp[u->d.seg[k].param],
                                                      u->d.seg[k].off + j));
    u->b = (oc_dist_buffers){u->params, u->master, u->model, u->grads,
                             {u->state[0], u->state[1], u->state[2]}};
    return bad;
}

static void trainer_free(trainer *t)
{
    sub_free(&t->u[0]);
    sub_free(&t->u[1]);
}

static int trainer_init(trainer *t, const ckpt_comms *c, oc_layout_kind kind, size_t seed)
{
    memset(t, 0, sizeof *t);
    t->c = c;
    t->g = ckpt_grid_of(c->world->size);
    int color[CKPT_NGROUPS], key[CKPT_NGROUPS];
    ckpt_place(&t->g, c->world->rank, color, key);
    int tp_rank = c->world->rank % t->g.tp, stage = key[CKPT_MP] / t->g.tp;
    t->u[0].tied = t->u[1].tied = (size_t)-1;
    for (size_t i = 0; i < NDENSE; i++)
        if (t->g.pp == 1 || dense[i].stage == stage)
            add_param(&t->u[0], dense[i].name, i, dense[i].dim0, dense[i].dim1,
                      dense[i].tp_split == 2, dense[i].tp_split ? (size_t)t->g.tp : 1,
                      dense[i].tp_split ? (size_t)tp_rank : 0, !dense[i].tp_split && tp_rank);
    /* the output layer of the last stage tied to the embedding (Megatron's shared embedding):
     * a replica the checkpoint does not hold twice (CKPT-OWN-1) */
    t->emb = 0;
    if (t->g.pp == 2 && stage == 1) {
        t->emb = t->u[0].tied = t->u[0].np;
        add_param(&t->u[0], dense[0].name, 0, dense[0].dim0, dense[0].dim1, 0, (size_t)t->g.tp,
                  (size_t)tp_rank, 1);
    }
    t->u[0].shape[t->emb].shared_embedding = 1;
    int per = NEXPERT / t->g.ep, ep_rank = key[CKPT_EP];
    for (int e = ep_rank * per; e < (ep_rank + 1) * per; e++)
        for (int j = 0; j < EXPERT_PARAMS; j++) {
            char name[32];
            snprintf(name, sizeof name, "expert%d.fc%d", e, j + 1);
            add_param(&t->u[1], name, 100 + (size_t)(e * EXPERT_PARAMS + j), expert_shape[j][0],
                      expert_shape[j][1], 0, 1, 0, 0);
        }
    if (sub_init(&t->u[0], kind, c->group[CKPT_DP], 1, 3, seed) ||
        sub_init(&t->u[1], kind, c->group[CKPT_EDP], 0, 1, seed)) {
        trainer_free(t);
        return 1;
    }
    oc_ref_loss_scale_init(&scaler_cfg, &t->scaler);
    /* the run (seed 0) starts with an expert optimizer that has done 10 updates: the two step
     * counts differ, so each must be restored as its own; a fresh instance has 0 and 0 */
    t->u[1].step = seed == 0 ? 10 : 0;
    const oc_comm *mp = c->group[CKPT_MP]->size > 1 ? c->group[CKPT_MP] : NULL;
    const oc_comm *ep = c->group[CKPT_EP]->size > 1 ? c->group[CKPT_EP] : NULL;
    t->ctl[0] = (oc_dist_control){NULL, NULL, tp_rank, stage, mp};
    t->ctl[1] = (oc_dist_control){NULL, NULL, 0, 0, ep};
    t->cs[0] = (oc_ckpt_sub){&t->u[0].d, &t->u[0].b, OC_FAST_MODEL_BF16, 3, adam_states,
                             t->u[0].cp, &t->u[0].step};
    t->cs[1] = (oc_ckpt_sub){&t->u[1].d, &t->u[1].b, OC_FAST_MODEL_NONE, 1, sgd_states,
                             t->u[1].cp, &t->u[1].step};
    t->state = (oc_ckpt_state){c->world, t->g.tp, t->g.pp, t->g.ep, 2, t->cs, &t->scaler,
                               &t->position};
    return 0;
}

/* This rank's part of the gradient of step s: the logical k * 2^e of every element split
 * into dp parts that add up to k exactly (the tied copy: 0, the first stage's part is summed
 * into it by oc_dist_tie_grads). */
static void fill_grads(sub_run *u, const oc_comm *group, int s)
{
    for (size_t i = 0; i < u->np; i++)
        for (size_t j = 0; j < u->l.numel[i]; j++) {
            size_t gj = global_of(&u->cp[i], j);
            int k = i == u->tied ? 0 : grad_k(0, u->id[i], gj, s), part = k / group->size;
            int mine = group->rank == 0 ? k - part * (group->size - 1) : part;
            u->grads[u->l.offset[i] + j] = (float)mine * grad_scale(u->id[i], gj);
        }
}

/* One iteration: scaled step of the chain, loss-scaler update, counters (STEP-ORDER-1). */
static int train_step(trainer *t, int s)
{
    fill_grads(&t->u[0], t->c->group[CKPT_DP], s);
    fill_grads(&t->u[1], t->c->group[CKPT_EDP], s);
    if ((s == 2 || s == 5) && t->c->world->rank == t->c->world->size - 1)
        t->u[1].grads[t->u[1].l.offset[0]] = INFINITY;
    if (t->g.pp == 2 &&
        oc_dist_tie_grads(&t->u[0].d, &t->u[0].b, t->c->group[CKPT_EMB], t->emb) != OC_OK)
        return 1;
    oc_fast_opts o = {1.0f / t->scaler.scale, 1.0f, OC_FAST_MODEL_BF16};
    oc_dist_sub chain[2] = {
        {.d = &t->u[0].d, .b = &t->u[0].b, .sc = &t->ctl[0], .step = dense_step, .ctx = &t->u[0].step},
        {.d = &t->u[1].d, .b = &t->u[1].b, .sc = &t->ctl[1], .step = expert_step, .ctx = &t->u[1].step}};
    oc_dist_outcome out;
    if (oc_dist_chained_step(2, chain, &o, &out) != OC_OK ||
        oc_fast_loss_scale_update(&scaler_cfg, &t->scaler, out.found_inf) != OC_OK)
        return 1;
    if (!out.skipped) {
        t->u[0].step++, t->u[1].step++;
        t->position += 64;
    }
    return out.skipped != (s == 2 || s == 5);
}

/* Everything this rank holds of the training state, as bytes (the resumed and the unbroken
 * runs use the same grid and layout, so equal bytes on every rank is an equal state). */
static unsigned char *snapshot(const trainer *t, size_t *n)
{
    size_t len = sizeof t->scaler + sizeof t->position;
    for (int k = 0; k < 2; k++) {
        const sub_run *u = &t->u[k];
        len += sizeof u->step + u->l.size * (u->model ? 2 : 4) + (u->master ? u->d.owned * 4 : 0) +
               (size_t)(k ? 1 : 3) * u->d.owned * 4;
    }
    unsigned char *b = calloc(len, 1), *p = b;
    if (!b)
        return NULL;
#define PUT(src, bytes) (memcpy(p, (src), (bytes)), p += (bytes))
    PUT(&t->scaler.scale, sizeof t->scaler.scale);
    PUT(&t->scaler.growth_tracker, sizeof t->scaler.growth_tracker);
    PUT(&t->scaler.hysteresis_tracker, sizeof t->scaler.hysteresis_tracker);
    PUT(&t->position, sizeof t->position);
    for (int k = 0; k < 2; k++) {
        const sub_run *u = &t->u[k];
        PUT(&u->step, sizeof u->step);
        if (u->model)
            PUT(u->model, u->l.size * 2);
        else
            PUT(u->params, u->l.size * 4);
        if (u->master)
            PUT(u->master, u->d.owned * 4);
        for (int f = 0; f < (k ? 1 : 3); f++)
            PUT(u->state[f], u->d.owned * 4);
    }
#undef PUT
    *n = (size_t)(p - b);
    return b;
}

static int same(const unsigned char *a, size_t na, const unsigned char *b, size_t nb)
{
    return a && b && na == nb && memcmp(a, b, na) == 0;
}

/* Whether any rank sees x. */
static int any(const oc_comm *c, int x)
{
    return c->allreduce_max_int(c->ctx, &x) != OC_OK || x;
}

int ckpt_save_run(const ckpt_comms *c, oc_layout_kind kind, const char *dir)
{
    trainer t;
    if (trainer_init(&t, c, kind, 0))
        return 1;
    int fails = 0;
    for (int s = 1; s <= SAVE_STEP; s++)
        fails += train_step(&t, s);
    char msg[512], path[4096];
    oc_status st = oc_ckpt_save(&t.state, dir, msg, sizeof msg);
    if (st != OC_OK && st != OC_ERR_PEER)
        fprintf(stderr, "rank %d: save %s: %s\n", c->world->rank, dir, msg);
    /* CKPT-ATOMIC-1: after a save the index is there and no temporary file is left */
    DIR *dp = st == OC_OK && c->world->rank == 0 ? opendir(dir) : NULL;
    for (struct dirent *e; dp && (e = readdir(dp));) {
        size_t len = strlen(e->d_name);
        fails += len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0;
    }
    if (dp)
        closedir(dp);
    snprintf(path, sizeof path, "%s/index.json", dir);
    fails += st == OC_OK && access(path, R_OK) != 0;
    trainer_free(&t);
    return fails + (st != OC_OK);
}

/* Whether a segment of this rank starts strictly inside a saved piece (then the piece-offset
 * mutant reads wrong data; when every segment starts where a piece does it cannot). */
static int splits_pieces(const trainer *t, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/index.json", dir);
    json_t *index = json_load_file(path, 0, NULL), *params = json_object_get(index, "params");
    int split = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < t->u[k].d.nseg; i++) {
            const oc_layout_segment *s = &t->u[k].d.seg[i];
            const oc_ckpt_param *p = &t->u[k].cp[s->param];
            size_t at = global_of(p, s->off), j;
            json_t *e;
            json_array_foreach(json_object_get(json_object_get(params, p->name), "pieces"), j, e) {
                size_t ps = (size_t)json_integer_value(json_object_get(e, "start"));
                split |= ps < at && at < ps + (size_t)json_integer_value(json_object_get(e, "len"));
            }
        }
    json_decref(index);
    return split;
}

/* Loads dir into a fresh trainer with mutant mu and continues; the number of states (at the
 * saved step and after each later one) that differ from the unbroken run on some rank, or -1
 * when the checkpoint was refused. */
static int resumed_differences(const ckpt_comms *c, oc_layout_kind kind, const char *dir,
                               oc_ckpt_mutant mu, unsigned char *const *gold, const size_t *ngold,
                               int *failed)
{
    trainer t;
    char msg[512];
    if (trainer_init(&t, c, kind, 7)) {
        (*failed)++;
        return 0;
    }
    oc_status st = oc_ckpt_load(&t.state, dir, mu, msg, sizeof msg);
    if (st != OC_OK) {
        if (st != OC_ERR_PEER)
            fprintf(stderr, "rank %d: load %s (%s): %s\n", c->world->rank, dir,
                    oc_ckpt_mutant_name(mu), msg);
        trainer_free(&t);
        return -1; /* the same status on every rank */
    }
    int diffs = 0;
    for (int s = SAVE_STEP; s <= TOTAL_STEPS; s++) {
        /* (a mutant's run may skip differently: only its state counts) */
        int bad = s > SAVE_STEP && train_step(&t, s);
        *failed += mu == OC_CKPT_CORRECT && bad;
        size_t n;
        unsigned char *now = snapshot(&t, &n);
        diffs += any(c->world, !same(now, n, gold[s - SAVE_STEP], ngold[s - SAVE_STEP]));
        free(now);
    }
    trainer_free(&t);
    return diffs;
}

int ckpt_resume_run(const ckpt_comms *c, oc_layout_kind kind, const char *dir, FILE *log,
                    int *refused)
{
    trainer u;
    unsigned char *gold[TOTAL_STEPS - SAVE_STEP + 1] = {0};
    size_t ngold[TOTAL_STEPS - SAVE_STEP + 1] = {0};
    if (trainer_init(&u, c, kind, 0))
        return 1;
    int fails = 0;
    /* the unbroken run under this layout and grid */
    for (int s = 1; s <= TOTAL_STEPS; s++) {
        fails += train_step(&u, s);
        if (s >= SAVE_STEP)
            gold[s - SAVE_STEP] = snapshot(&u, &ngold[s - SAVE_STEP]);
    }
    int split = any(c->world, splits_pieces(&u, dir));
    trainer_free(&u);
    /* CKPT-RESUME-1: the resumed states equal the unbroken run's, bytes */
    int diffs = resumed_differences(c, kind, dir, OC_CKPT_CORRECT, gold, ngold, &fails);
    if (diffs < 0) { /* refused: the mutants would be too */
        *refused = 1;
        for (int s = 0; s <= TOTAL_STEPS - SAVE_STEP; s++)
            free(gold[s]);
        return fails + 1;
    }
    fails += diffs != 0;
    if (diffs && c->world->rank == 0)
        fprintf(stderr, "%s loaded as %s on %d ranks: %d states differ from the unbroken run\n",
                dir, oc_layout_kind_name(kind), c->world->size, diffs);
    /* CKPT-MUT-1: every mutant's resumed run differs (the piece-offset mutant where a piece is
     * split by the new layout) */
    char caught[256] = "";
    for (int mu = 1; mu < OC_CKPT_MUTANT_COUNT; mu++) {
        int d = resumed_differences(c, kind, dir, (oc_ckpt_mutant)mu, gold, ngold, &fails);
        int expect = mu != OC_CKPT_MUT_PIECE_OFFSET || split;
        fails += (expect && d == 0) || d < 0;
        if (expect && d == 0 && c->world->rank == 0)
            fprintf(stderr, "%s loaded as %s: mutant %s not caught\n", dir,
                    oc_layout_kind_name(kind), oc_ckpt_mutant_name((oc_ckpt_mutant)mu));
        if (d)
            snprintf(caught + strlen(caught), sizeof caught - strlen(caught), " %s",
                     oc_ckpt_mutant_name((oc_ckpt_mutant)mu));
    }
    for (int s = 0; s <= TOTAL_STEPS - SAVE_STEP; s++)
        free(gold[s]);
    if (log)
        fprintf(log, "%s -> %s on %d ranks: resumed steps %d-%d bit-identical %s; mutants caught:%s\n",
                dir, oc_layout_kind_name(kind), c->world->size, SAVE_STEP, TOTAL_STEPS,
                diffs ? "NO" : "yes", caught);
    return fails;
}

/* CKPT-LOAD-1, CKPT-LOAD-2: one damaged copy refused with a message naming `names`, nothing
 * written. */
static int refused(const ckpt_comms *c, oc_layout_kind kind, const char *dir, const char *names,
                   int reshape)
{
    trainer t;
    char msg[512] = "";
    if (trainer_init(&t, c, kind, 7))
        return 1;
    t.u[0].cp[0].dim1 += (size_t)reshape; /* the model changed since: its first parameter */
    size_t n0, n1;
    unsigned char *before = snapshot(&t, &n0);
    oc_status st = oc_ckpt_load(&t.state, dir, OC_CKPT_CORRECT, msg, sizeof msg);
    unsigned char *after = snapshot(&t, &n1);
    int named = st != OC_ERR_PEER && strstr(msg, names) != NULL;
    int fails = st == OC_OK || !same(before, n0, after, n1) || !any(c->world, named);
    if (fails && c->world->rank == 0)
        fprintf(stderr, "damaged %s: status %d, message '%s'\n", dir, (int)st, msg);
    free(before), free(after);
    trainer_free(&t);
    return fails;
}

static int copy_file(const char *from, const char *to, long keep)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    int ok = in && out;
    for (long i = 0; ok && (keep < 0 || i < keep); i++) {
        int ch = fgetc(in);
        if (ch == EOF)
            break;
        ok = fputc(ch, out) != EOF;
    }
    if (in)
        fclose(in);
    if (out)
        ok = fclose(out) == 0 && ok;
    return !ok;
}

/* The first piece start of the index at path turned into a string; 1 on failure. */
static int retype_start(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = f ? calloc(1 << 20, 1) : NULL;
    size_t n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    char *at = text ? strstr(text, "\"start\"") : NULL;
    int bad = !at || !(f = fopen(path, "wb"));
    if (!bad) {
        fwrite(text, 1, (size_t)(at - text), f);
        fputs("\"start\": \"0\", \"was\"", f);
        fwrite(at + 7, 1, n - (size_t)(at + 7 - text), f);
        bad = fclose(f) != 0;
    }
    free(text);
    return bad;
}

/* out := a/b; 1 if it does not fit. */
static int join(char out[4096], const char *a, const char *b)
{
    return (size_t)snprintf(out, 4096, "%s/%s", a, b) >= 4096;
}

int ckpt_damage_run(const ckpt_comms *c, oc_layout_kind kind, const char *dir, const char *scratch)
{
    static const char *const cases[] = {"truncated", "missing", "changed", "no-index",
                                        "bad-index"};
    char shard[64], from[4096], to[4096];
    int fails = 0, size = 0;
    /* the saved rank count: the shards are named shard-R-of-N */
    for (int n = 1; n <= 64 && !size; n++) {
        snprintf(from, sizeof from, "%s/shard-00000-of-%05d.safetensors", dir, n);
        size = access(from, F_OK) == 0 ? n : 0;
    }
    snprintf(shard, sizeof shard, "shard-%05d-of-%05d.safetensors", size - 1, size);
    if (c->world->rank == 0)
        mkdir(scratch, 0755);
    for (int k = 0; k < 5; k++) {
        char sub[4096];
        fails += join(sub, scratch, cases[k]);
        if (c->world->rank == 0) {
            mkdir(sub, 0755);
            for (int r = 0; r < size; r++) {
                char name[64];
                snprintf(name, sizeof name, "shard-%05d-of-%05d.safetensors", r, size);
                fails += join(from, dir, name) + join(to, sub, name);
                int mine = r == size - 1;
                struct stat sb;
                fails += stat(from, &sb) != 0;
                if (!(k == 1 && mine))
                    fails += copy_file(from, to, k == 0 && mine ? (long)sb.st_size / 2 : -1);
            }
            fails += join(from, dir, "index.json") + join(to, sub, "index.json");
            if (k != 3)
                fails += copy_file(from, to, -1);
            if (k == 4) /* valid JSON, a piece's start a string */
                fails += retype_start(to);
            if (k == 2) { /* one byte of the last shard's data changed, its size kept */
                fails += join(to, sub, shard);
                FILE *f = fopen(to, "r+b");
                fails += !f || fseek(f, -3, SEEK_END) != 0 || fputc(0x5a, f) == EOF;
                if (f)
                    fclose(f);
            }
        }
        any(c->world, 0); /* the copies exist before any rank reads them */
        fails += refused(c, kind, sub, k >= 3 ? "index.json" : shard, 0);
    }
    /* an intact checkpoint of another model: a parameter of another global shape */
    return fails + refused(c, kind, dir, dense[0].name, 1);
}

int ckpt_overlap_run(const ckpt_comms *c, const char *dir)
{
    trainer t;
    if (trainer_init(&t, c, OC_LAYOUT_ZERO1_FLAT, 0))
        return 1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < t.u[k].np; i++)
            t.u[k].cp[i].replica = 0; /* every TP rank writes its copy */
    char msg[512] = "", path[4096];
    oc_status st = oc_ckpt_save(&t.state, dir, msg, sizeof msg);
    int fails = st == OC_OK || (c->world->rank == 0 && !strstr(msg, "do not tile"));
    fails += join(path, dir, "index.json") || access(path, F_OK) == 0;
    if (fails)
        fprintf(stderr, "rank %d: overlapping pieces: status %d, message '%s'\n", c->world->rank,
                (int)st, msg);
    trainer_free(&t);
    return fails;
}

static void kind_dir(char *out, size_t cap, const char *dir, int k)
{
    snprintf(out, cap, "%s/%s", dir, oc_layout_kind_name((oc_layout_kind)k));
}

int ckpt_save_all(const ckpt_comms *c, const char *dir)
{
    char sub[4096];
    int fails = 0;
    if (c->world->rank == 0)
        mkdir(dir, 0755);
    for (int k = 0; k < OC_LAYOUT_KIND_COUNT; k++) {
        kind_dir(sub, sizeof sub, dir, k);
        fails += ckpt_save_run(c, (oc_layout_kind)k, sub);
    }
    return fails;
}

int ckpt_resume_all(const ckpt_comms *c, const char *dir, int shift, int verbose, int *refused)
{
    char sub[4096];
    int fails = 0;
    FILE *log = verbose && c->world->rank == 0 ? stdout : NULL;
    for (int k = 0; k < OC_LAYOUT_KIND_COUNT; k++) {
        kind_dir(sub, sizeof sub, dir, k);
        fails += ckpt_resume_run(c, (oc_layout_kind)((k + shift) % OC_LAYOUT_KIND_COUNT), sub,
                                 log, refused);
    }
    return fails;
}
