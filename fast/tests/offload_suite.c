/* The CPU-offload suite (spec/layouts.md §10), on however many ranks c has. Under each layout,
 * for each family, fp32 parameters and bf16 model copies, offload fractions 0, 0.3, 0.5 and 1,
 * with overlap (AdamW also without), two runs of the same controlled step
 * (oc_dist_controlled_step: loss scale 8, a clip at every step, a found_inf skip at step 3) side
 * by side: one with the family's step, one with oc_offload_step over the split of
 * LAYOUT-OFFLOAD-2. Checks:
 *   LAYOUT-OFFLOAD-4  after every step: the same norm, coefficient and decision bits; the
 *                     gathered parameters (fp32) or model copy (bf16) bit-identical; every
 *                     owned state and master, read where it lives (the host copy for the host
 *                     group), bit-identical;
 *   LAYOUT-OFFLOAD-3  the device state and master slots of the host group, poisoned after
 *                     creation, are still the poison at the end (neither read nor written);
 *   LAYOUT-OFFLOAD-6  after step 2 the optimizer is offloaded to the CPU, the device copies it
 *                     left are poisoned, and it is restored: the next steps stay bit-identical;
 *                     a step while offloaded and a restore without an offload are refused;
 *   LAYOUT-OFFLOAD-5  all of this with overlap (streams, a host step per piece) and, for
 *                     AdamW, without (in turn, one host call);
 *   LAYOUT-OFFLOAD-2  the split is the shortest prefix of the rank's pieces in flat order
 *                     whose numel reaches fraction * owned (LAYOUT-OFFLOAD-1's walk,
 *                     recomputed here; offload_megatron.py compares it with Megatron's code),
 *                     and 0.3 and 0.5 leave both groups non-empty in at least half of their
 *                     runs on some rank;
 *   LAYOUT-OFFLOAD-7  the engine asks its copier to pin exactly the host buffers Megatron pins
 *                     (a recording copier; every combination of pin_cpu_grads and
 *                     pin_cpu_params), and frees each as it was made. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "layout_suite.h"
#include "offload_suite.h"
#include "optcert/offload.h"
#include "suite_data.h"

static const oc_layout_param model[] = {
    {96, 32, 2, 0}, {32, 1, 1, 0}, {65, 64, 2, 0}, {17, 5, 2, 0}, {128, 33, 2, 0},
    {3, 1, 1, 0},   {32, 96, 2, 0}, {1, 1, 1, 0},
};
enum { NP = sizeof model / sizeof model[0], STEPS = 4, INF_STEP = 3, PARK_AFTER = 2 };
static const double fractions[] = {0.0, 0.3, 0.5, 1.0};
static const uint32_t POISON = 0x7fa5a5a5u; /* a signalling NaN no step writes */

/* One side of the comparison: the rank's buffers. */
typedef struct side {
    float *params, *master, *grads, *state[3];
    uint16_t *model;
    oc_dist d;
    oc_dist_buffers b;
} side;

static int side_init(side *s, const oc_layout *l, const oc_comm *c, fam_kind f, oc_fast_dtype mode)
{
    memset(s, 0, sizeof *s);
    if (oc_dist_init(&s->d, l, c) != OC_OK)
        return 1;
    size_t owned = s->d.owned + 1;
    s->params = calloc(l->size, sizeof(float));
    s->grads = calloc(l->size, sizeof(float));
    s->master = mode ? calloc(owned, sizeof(float)) : NULL;
    s->model = mode ? calloc(l->size, sizeof(uint16_t)) : NULL;
    for (int k = 0; k < nstates(f); k++)
        s->state[k] = calloc(owned, sizeof(float));
    for (size_t i = 0; s->params && i < NP; i++)
        for (size_t j = 0; j < model[i].dim0 * model[i].dim1; j++)
            s->params[l->offset[i] + j] = init_param(i, j);
    for (size_t k = 0, pos = 0; s->master && k < s->d.nseg; pos += s->d.seg[k].len, k++)
        for (size_t j = 0; j < s->d.seg[k].len; j++)
            s->master[pos + j] = init_param(s->d.seg[k].param, s->d.seg[k].off + j);
    s->b = (oc_dist_buffers){s->params, s->master, s->model, s->grads,
                             {s->state[0], s->state[1], s->state[2]}};
    return !s->params || !s->grads || (mode && (!s->master || !s->model)) ||
           (nstates(f) && !s->state[nstates(f) - 1]);
}

static void side_free(side *s)
{
    free(s->params), free(s->master), free(s->grads), free(s->model);
    for (int k = 0; k < 3; k++)
        free(s->state[k]);
    oc_dist_free(&s->d);
}

/* This rank's contribution at step s, loss-scaled by 8 (exact), an inf at INF_STEP on the last
 * rank. */
static void fill_grads(const oc_layout *l, const oc_comm *c, float *g, int s)
{
    memset(g, 0, l->size * sizeof(float));
    for (size_t i = 0; i < NP; i++)
        for (size_t j = 0; j < model[i].dim0 * model[i].dim1; j++)
            g[l->offset[i] + j] = (float)grad_k(c->rank, i, j, s) * grad_scale(i, j) * 8.0f;
    if (s == INF_STEP && c->rank == c->size - 1)
        g[l->offset[NP / 2]] = INFINITY;
}

static void poison(float *p, size_t n)
{
    for (size_t j = 0; p && j < n; j++)
        memcpy(&p[j], &POISON, 4);
}

static size_t not_poison(const float *p, size_t n)
{
    size_t bad = 0;
    for (size_t j = 0; p && j < n; j++)
        bad += memcmp(&p[j], &POISON, 4) != 0;
    return bad;
}

/* The optimizer's device buffers of the pieces flagged `which` (1: host group, 0: device
 * group): states, and masters in mixed mode. */
static void poison_group(const oc_fast_tensor *t, size_t nt, const unsigned char *host, int which)
{
    for (size_t i = 0; i < nt; i++)
        if (host[i] == which) {
            for (int k = 0; k < 3; k++)
                poison(t[i].state[k], t[i].n);
            if (t[i].model)
                poison(t[i].param, t[i].n);
        }
}

/* LAYOUT-OFFLOAD-4: what differs between the runs (each piece's state and master read where
 * it lives; the gathered flat parameters or model copy), plus LAYOUT-OFFLOAD-3's poison. */
static size_t differences(const side *a, const side *b, const oc_offload *off,
                          const unsigned char *host, size_t size)
{
    size_t diff = a->model ? memcmp(a->model, b->model, size * 2) != 0
                           : memcmp(a->params, b->params, size * 4) != 0;
    const oc_fast_tensor *ta = a->d.t, *tb = b->d.t;
    for (size_t i = 0; i < a->d.nseg; i++) {
        oc_fast_tensor h = oc_offload_host_tensor(off, i);
        const oc_fast_tensor *live = host[i] ? &h : &tb[i];
        size_t n = ta[i].n, bytes = n * 4;
        diff += live->n != n || memcmp(ta[i].param, live->param, bytes) != 0;
        for (int k = 0; k < 3; k++)
            diff += (ta[i].state[k] != NULL) != (live->state[k] != NULL) ||
                    (ta[i].state[k] && memcmp(ta[i].state[k], live->state[k], bytes) != 0);
        if (host[i]) { /* the device slots of the host group: never touched */
            for (int k = 0; k < 3; k++)
                diff += not_poison(tb[i].state[k], n) != 0;
            diff += tb[i].model && not_poison(tb[i].param, n) != 0;
        }
    }
    return diff;
}

/* LAYOUT-OFFLOAD-1, -2 recomputed: the offloaded pieces are the shortest prefix, in flat
 * order, whose numel is at least fraction * owned numel (all when fraction = 1, none at 0). */
static int check_split(const oc_dist *d, const unsigned char *host, double fraction)
{
    size_t total = 0, offloaded = 0, first_device = (size_t)-1, last_host = 0, nhost = 0;
    for (size_t i = 0; i < d->nseg; i++) {
        total += d->seg[i].len;
        offloaded += host[i] ? d->seg[i].len : 0;
        nhost += host[i];
        if (host[i] && d->seg[i].flat > last_host)
            last_host = d->seg[i].flat;
        if (!host[i] && d->seg[i].flat < first_device)
            first_device = d->seg[i].flat;
    }
    size_t before_last = 0; /* numel offloaded before the last host piece */
    for (size_t i = 0; i < d->nseg; i++)
        before_last += host[i] && d->seg[i].flat < last_host ? d->seg[i].len : 0;
    int bad = nhost && first_device != (size_t)-1 && first_device < last_host; /* a prefix */
    bad += (double)offloaded < (double)total * fraction;                       /* reaches it */
    bad += nhost && !((double)before_last < (double)total * fraction);        /* shortest */
    return bad;
}

typedef struct run_cfg {
    oc_layout_kind kind;
    fam_kind f;
    oc_fast_dtype mode;
    double fraction;
    int overlap;
    int pin_cpu_grads, pin_cpu_params;
} run_cfg;

/* A copier that records each host buffer the engine makes and whether it asked to pin it
 * (LAYOUT-OFFLOAD-7); memcpy for the copies. */
enum { MAX_BUFFERS = 8 * NP };
typedef struct recorder {
    void *p[MAX_BUFFERS];
    int pinned[MAX_BUFFERS];
    int n, bad_free;
} recorder;

static void *record_alloc(void *ctx, size_t bytes, int pinned)
{
    recorder *r = ctx;
    void *p = r->n < MAX_BUFFERS ? malloc(bytes) : NULL;
    if (p)
        r->p[r->n] = p, r->pinned[r->n++] = pinned;
    return p;
}

static void record_free(void *ctx, void *p, int pinned)
{
    recorder *r = ctx;
    int i = 0;
    while (i < r->n && r->p[i] != p)
        i++;
    r->bad_free += i == r->n || r->pinned[i] != pinned; /* unknown, or freed as the other kind */
    if (i < r->n)
        r->p[i] = NULL;
    free(p);
}

/* Whether p was made pinned (-1: not made by the recorder). */
static int recorded_pin(const recorder *r, const void *p)
{
    for (int i = 0; p && i < r->n; i++)
        if (r->p[i] == p)
            return r->pinned[i];
    return -1;
}

/* LAYOUT-OFFLOAD-7, recomputed from Megatron's hybrid_optimizer.py (d98e8a64 L108-111,
 * L273-281): failed checks over the host group's buffers. */
static int check_pins(const recorder *r, const oc_offload *off, const run_cfg *rc, size_t nt,
                      const unsigned char *host)
{
    int bad = 0;
    for (size_t i = 0; i < nt; i++) {
        if (!host[i])
            continue;
        oc_fast_tensor h = oc_offload_host_tensor(off, i);
        int bf16 = rc->mode != OC_FAST_MODEL_NONE;
        bad += recorded_pin(r, h.param) != (!bf16 || rc->pin_cpu_params); /* L274, L279-280 */
        bad += recorded_pin(r, h.grad) != rc->pin_cpu_grads;               /* L110 */
        bad += bf16 && recorded_pin(r, h.model) != 1;                      /* L274 */
        for (int k = 0; k < nstates(rc->f); k++)
            bad += recorded_pin(r, h.state[k]) != 0;
    }
    return bad;
}

/* One run: returns the number of failed checks on this rank; *split: both groups are
 * non-empty on this rank. */
static int run(const run_cfg *rc, const oc_comm *c, int *split)
{
    oc_layout l;
    side ref, off_side;
    oc_offload *off = NULL;
    if (oc_layout_build(rc->kind, c->size, model, NP, NULL, &l) != OC_OK)
        return 1;
    int fails = side_init(&ref, &l, c, rc->f, rc->mode);
    fails += side_init(&off_side, &l, c, rc->f, rc->mode);
    size_t nt = off_side.d.nseg;
    unsigned char *host = calloc(nt + 1, 1);
    step_ctx sc_ref = {rc->f, 0}, sc_off = {rc->f, 0};
    const oc_fast_tensor *dev = oc_dist_tensors(&off_side.d, &off_side.b);
    oc_dist_tensors(&ref.d, &ref.b);
    fails += !host || oc_offload_split_layout(&l, c->rank, rc->fraction, host) != OC_OK;
    recorder rec = {0};
    oc_offload_copier copier = oc_offload_copier_memcpy();
    copier.ctx = &rec, copier.host_alloc = record_alloc, copier.host_free = record_free;
    oc_offload_config cfg = {host, rc->overlap, family_step, &sc_off, family_step, &sc_off,
                             copier, rc->pin_cpu_grads, rc->pin_cpu_params};
    fails += fails || oc_offload_create(&cfg, nt, dev, &off) != OC_OK;
    if (fails)
        goto out;
    fails += check_split(&off_side.d, host, rc->fraction);
    fails += check_pins(&rec, off, rc, nt, host);
    *split = memchr(host, 0, nt) && memchr(host, 1, nt);
    poison_group(dev, nt, host, 1);
    oc_clip_config clip = {OC_CLIP_MEGATRON, 1.0, 0, INFINITY, rc->kind != OC_LAYOUT_REPLICATED,
                           1, 1, c->size};
    oc_dist_control ctl = {&clip, NULL, 0, 0, NULL};
    oc_fast_opts o = {0.125f, 1.0f, rc->mode};
    for (int s = 1; s <= STEPS; s++) { /* every rank runs every step: collectives */
        fill_grads(&l, c, ref.grads, s);
        fill_grads(&l, c, off_side.grads, s);
        oc_dist_outcome out_ref, out_off;
        sc_ref.step = sc_off.step = s;
        fails += oc_dist_controlled_step(&ref.d, &ref.b, &o, &ctl, family_step, &sc_ref,
                                         &out_ref) != OC_OK;
        fails += oc_dist_controlled_step(&off_side.d, &off_side.b, &o, &ctl, oc_offload_step, off,
                                         &out_off) != OC_OK;
        fails += memcmp(&out_ref, &out_off, sizeof out_ref) != 0;
        fails += out_ref.skipped != (s == INF_STEP) ||
                 (!out_ref.skipped && !(out_ref.clip_coeff < 1.0f)); /* it really clips */
        fails += differences(&ref, &off_side, off, host, l.size) != 0;
        if (s == PARK_AFTER) { /* LAYOUT-OFFLOAD-6 */
            fails += oc_offload_restore_from_cpu(off, nt, dev) != OC_ERR_BAD_HPARAM;
            fails += oc_offload_to_cpu(off, nt, dev) != OC_OK;
            poison_group(dev, nt, host, 0);
            fails += oc_offload_step(off, &o, nt, dev) != OC_ERR_BAD_HPARAM;
            fails += oc_offload_restore_from_cpu(off, nt, dev) != OC_OK;
        }
    }
    if (fails)
        fprintf(stderr, "rank %d: offload %s %s %s fraction %.1f overlap %d: FAIL\n", c->rank,
                oc_layout_kind_name(rc->kind), fam_names[rc->f], rc->mode ? "bf16" : "fp32",
                rc->fraction, rc->overlap);
out:
    oc_offload_free(off);
    for (int i = 0; i < rec.n; i++)
        fails += rec.p[i] != NULL; /* LAYOUT-OFFLOAD-7: every host buffer freed */
    fails += rec.bad_free;
    free(host);
    side_free(&ref);
    side_free(&off_side);
    oc_layout_free(&l);
    return fails;
}

int offload_suite(const oc_comm *c, int verbose)
{
    static const oc_layout_kind kinds[] = {OC_LAYOUT_REPLICATED, OC_LAYOUT_ZERO1_FLAT,
                                           OC_LAYOUT_FSDP2_DIM0, OC_LAYOUT_LAYERWISE};
    static const fam_kind fams[] = {ADAMW, ADAM_AMS, SGD_NEST, LION};
    int fails = 0, runs = 0, splits = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++)
            for (int m = 0; m < 2; m++)
                for (size_t x = 0; x < sizeof fractions / sizeof fractions[0]; x++)
                    for (int overlap = fams[f] != ADAMW; overlap < 2; overlap++) {
                        run_cfg rc = {kinds[k], fams[f],
                                      m ? OC_FAST_MODEL_BF16 : OC_FAST_MODEL_NONE, fractions[x],
                                      overlap, 0, 0};
                        /* every pin combination with a non-empty host group, in both modes */
                        int pins = (int)((x + 2 * (size_t)m + (size_t)overlap) % 4);
                        rc.pin_cpu_grads = pins & 1, rc.pin_cpu_params = pins >> 1;
                        int split = 0, bad = run(&rc, c, &split) != 0;
                        splits += split;
                        if (c->allreduce_max_int(c->ctx, &bad) != OC_OK)
                            return fails + 1;
                        fails += bad;
                        runs++;
                    }
    /* the fractions 0.3 and 0.5 really split: on some rank, both groups are non-empty in at
     * least half of their runs */
    int most = splits;
    if (c->allreduce_max_int(c->ctx, &most) != OC_OK)
        return fails + 1;
    fails += most < runs / 4;
    if (c->rank == 0 && (verbose || fails))
        printf("offload (LAYOUT-OFFLOAD-*): %d runs of %d steps on %d ranks, %d with both groups "
               "non-empty on some rank, %d failed\n", runs, STEPS, c->size, most, fails);
    return fails;
}
