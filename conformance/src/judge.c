#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "abi3.h"
#include "judge.h"

double oc_ulp(double x, int precision)
{
    /* binary16, bfloat16 and binary32 (same exponent range), binary64 */
    int emin = precision == 11 ? -14 : precision <= 24 ? -126 : -1022;
    int e;
    x = fabs(x);
    if (x < ldexp(1.0, emin))
        return ldexp(1.0, emin - precision + 1);
    frexp(x, &e); /* x = f * 2^e, f in [0.5, 1) */
    return ldexp(1.0, e - precision);
}

double oc_ulp32(double x) { return oc_ulp(x, 24); }

/* VEC-PLUG-3: a buffer handed to an implementation is 64-byte aligned and followed, inside
 * the same allocation, by GUARD_BYTES of a known pattern: a write past its end is seen here,
 * with or without a sanitizer. */
#define GUARD_BYTES 64
#define GUARD_FILL 0xA5

void *oc_alloc_guarded(size_t bytes)
{
    size_t total = (bytes + GUARD_BYTES + 63) / 64 * 64;
    unsigned char *b = aligned_alloc(64, total);
    if (b)
        memset(b + bytes, GUARD_FILL, total - bytes);
    return b;
}

static int guard_intact(const void *buf, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)buf + bytes;
    for (size_t i = 0; i < GUARD_BYTES; i++)
        if (b[i] != GUARD_FILL)
            return 0;
    return 1;
}

void oc_outputs_free(oc_outputs *o)
{
    for (int k = 0; k < OC_MAX_STATE; k++) {
        free(o->out[k]);
        o->out[k] = NULL;
    }
}

/* The option a storage combination needs of a "-mixed" family (spec/mixed.md MP-COMB-1,
 * VEC-ABI-2); NULL if none exists. */
static const char *storage_option(const oc_storage *s)
{
    if (s->param == OC_FMT_BF16)
        return s->state == OC_FMT_F32 ? "bf16" : s->state == OC_FMT_BF16 ? "bf16-state" : NULL;
    return s->param == OC_FMT_F16 && s->state == OC_FMT_F32 ? "f16" : NULL;
}

/* The entry of `family` in impl if it lists the family with every option in `options` (NULL
 * entries ignored), else NULL. */
static const oc_family_entry *listed(const oc_impl_v3 *impl, const char *family,
                                     const char *const *options, int n)
{
    const oc_family_entry *e = oc_abi3_find(impl, family);
    for (int o = 0; o < n && e; o++)
        if (options[o] && !oc_abi3_has_option(e->options, options[o]))
            e = NULL;
    return e;
}

/* The options case c needs of its family's entry (VEC-ABI-2): need[o] is the algorithm's option
 * o when the case needs it, else NULL. */
static void needed_options(const oc_case *c, const char *need[OC_MAX_OPTIONS])
{
    unsigned bits = c->algo->needs ? c->algo->needs(&c->hp) : 0;
    for (int o = 0; o < OC_MAX_OPTIONS; o++)
        need[o] = bits & (1u << o) ? c->algo->options[o] : NULL;
}

oc_claim oc_impl_runner(const oc_impl_v3 *impl, const oc_case *c, oc_runner *r)
{
    char base[128];
    int resume, mixed;
    const char *need[OC_MAX_OPTIONS];
    *r = (oc_runner){.ctx = impl->ctx};
    if (!c->family)
        return OC_UNCLAIMED_ALGORITHM;
    oc_family_base(c->family, base, sizeof base, &resume, &mixed);
    /* the entry is cast to the case's algorithm's type: only a family of that algorithm's
     * (the loader refuses a file that says otherwise) */
    const oc_known_family *k = oc_known_family_find(base);
    if (!k || strcmp(k->algorithm, c->algo->name) != 0)
        return OC_UNCLAIMED_ALGORITHM;
    needed_options(c, need);
    const oc_family_entry *e = listed(impl, base, need, OC_MAX_OPTIONS);
    if (!e)
        return oc_abi3_find(impl, base) ? OC_UNCLAIMED_OPTION : OC_UNCLAIMED_ALGORITHM;
    r->entry = e->entry;
    if (resume && !(e = oc_abi3_find(impl, c->family)))
        return OC_UNCLAIMED_RESUME; /* VEC-ABI-3 */
    r->state_io = resume ? e->entry : NULL;
    const char *storage = storage_option(&c->storage);
    const oc_family_entry *m = mixed ? oc_abi3_find(impl, c->family + (resume ? 7 : 0)) : NULL;
    r->mixed = m ? m->entry : NULL;
    if (c->storage.param == OC_FMT_F32 && c->storage.state == OC_FMT_F32)
        return OC_CLAIMED;
    return storage && m && oc_abi3_has_option(m->options, storage) ? OC_CLAIMED
                                                                   : OC_UNCLAIMED_MIXED;
}

int oc_impl_supports(const oc_impl_v3 *impl, const oc_case *c)
{
    oc_runner r;
    return oc_impl_runner(impl, c, &r) == OC_CLAIMED;
}

/* VEC-RESUME-2: a resumed run equals the implementation's own unbroken run of the same case,
 * bit for bit; the first difference goes to o->unbroken. */
static void compare_unbroken(const oc_runner *impl, const oc_case *c, oc_outputs *o)
{
    oc_case whole = *c;
    oc_outputs u;
    oc_status st;
    int dirty;
    whole.resume_at = -1;
    memset(&u, 0, sizeof u);
    c->algo->run(impl, &whole, &u, &st, &dirty);
    for (size_t j = 0; st == OC_OK && !u.fault[0] && j < c->steps * c->n; j++)
        for (int k = 0; k < c->nstate; k++)
            if (memcmp(&u.out[k][j], &o->out[k][j], sizeof(double)) != 0) {
                snprintf(o->unbroken, sizeof o->unbroken, "resumed run differs from its own "
                         "unbroken run: %s after step %zu, element %zu (VEC-RESUME-2)", c->names[k],
                         j / c->n + 1, j % c->n);
                j = c->steps * c->n;
                break;
            }
    oc_outputs_free(&u);
}

void oc_run_case(const oc_impl_v3 *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                 int *dirty)
{
    oc_runner r;
    memset(o, 0, sizeof *o);
    *dirty = 0;
    *st = OC_ERR_UNSUPPORTED;
    if (oc_impl_runner(impl, c, &r) != OC_CLAIMED)
        return;
    /* VEC-PLUG-2: the implementation gets the hyper-parameters of a copy of the case, compared
     * with the case's own after the run (a plugin that casts away const changes only the copy) */
    oc_case run = *c;
    c->algo->run(&r, &run, o, st, dirty);
    oc_check_unchanged(o, "hyper-parameters", &run.hp, &c->hp, sizeof c->hp);
    if (c->resume_at >= 0 && *st == OC_OK && !o->fault[0])
        compare_unbroken(&r, c, o);
}

static size_t format_width(oc_format f) { return f == OC_FMT_F32 ? sizeof(float) : sizeof(uint16_t); }

static float load_value(oc_format f, const void *t, size_t i)
{
    return f == OC_FMT_F32 ? ((const float *)t)[i] : oc_widen(f, ((const uint16_t *)t)[i]);
}

/* One step through the implementation: the algorithm's fp32 entry point when everything is
 * fp32, else mixed_step with the buffers in their storage formats (spec/mixed.md). */
static oc_status step_once(const oc_runner *impl, const oc_case *c, int64_t t, void *const *s,
                           const float *g)
{
    if (c->storage.param == OC_FMT_F32 && c->storage.state == OC_FMT_F32)
        return c->algo->step(impl, &c->hp, t, c->n, (float *const *)s, g);
    const int m = c->storage.param != OC_FMT_F32; /* outputs: p, [master], state... */
    oc_mixed_step_fn mixed = (oc_mixed_step_fn)impl->mixed;
    return mixed(impl->ctx, c->algo->alg, &c->hp, &c->storage, t, c->n, s[0], m ? s[1] : NULL,
                 s + 1 + m, g);
}

void *oc_guarded_copy(const void *orig, size_t bytes)
{
    void *b = oc_alloc_guarded(bytes);
    if (b && bytes)
        memcpy(b, orig, bytes);
    return b;
}

int oc_check_unchanged(oc_outputs *o, const char *name, const void *copy, const void *orig,
                       size_t bytes)
{
    if (!o->fault[0] && memcmp(copy, orig, bytes) != 0)
        snprintf(o->fault, sizeof o->fault, "wrote to its input %s", name);
    return !o->fault[0];
}

int oc_check_input(oc_outputs *o, const char *name, const void *copy, const void *orig,
                   size_t bytes)
{
    if (oc_check_unchanged(o, name, copy, orig, bytes) && !guard_intact(copy, bytes))
        snprintf(o->fault, sizeof o->fault, "wrote to its input %s", name);
    return !o->fault[0];
}

int oc_check_output(oc_outputs *o, const char *name, const void *buf, size_t bytes)
{
    if (!o->fault[0] && !guard_intact(buf, bytes))
        snprintf(o->fault, sizeof o->fault, "wrote past the end of its output %s (%zu bytes)",
                 name, bytes);
    return !o->fault[0];
}

/* After one step call: g unchanged (gbuf a copy of want), no state written past its end. */
static int check_buffers(const oc_case *c, void *const *s, const size_t *bytes,
                         const float *gbuf, const float *want, oc_outputs *o)
{
    oc_check_input(o, "g", gbuf, want, c->n * sizeof(float));
    for (int k = 0; k < c->nstate; k++)
        oc_check_output(o, c->names[k], s[k], bytes[k]);
    return !o->fault[0];
}

/* Poison for the fresh buffers a restore writes (VEC-RESUME-1): every byte 0xFF, a NaN in
 * fp32, bf16 and fp16. */
#define POISON 0xFF
/* The largest save the harness allocates (VEC-ABI-3). */
#define MAX_SAVE ((size_t)1 << 30)

/* VEC-RESUME-1: the state in s[] saved through the implementation's own serialisation, fresh
 * poisoned buffers put in s[] and restored from the save; *steps_done in and out. Returns
 * the status of the failing call (OC_OK when all passed); faults go to o->fault. */
oc_status oc_save_and_restore(const oc_runner *impl, const oc_saved_state *ss, void **s,
                              int64_t *steps_done, oc_outputs *o)
{
    size_t cap = 0, len;
    oc_state_io_fn io = (oc_state_io_fn)impl->state_io;
    oc_status st = io(impl->ctx, OC_STATE_SIZE, ss->alg, ss->hp, ss->storage, ss->n, s, steps_done,
                      NULL, &cap);
    if (st != OC_OK)
        return st;
    if (cap == 0 || cap > MAX_SAVE) {
        snprintf(o->fault, sizeof o->fault, "asked for a save of %zu bytes (1 to 2^30)", cap);
        return OC_OK;
    }
    unsigned char *save = oc_alloc_guarded(cap), *copy = NULL;
    void *before[OC_MAX_STATE] = {0}, *fresh[OC_MAX_STATE] = {0};
    int64_t saved_steps = *steps_done;
    for (int k = 0; k < ss->nbuf; k++)
        before[k] = oc_guarded_copy(s[k], ss->bytes[k]);
    len = cap;
    st = io(impl->ctx, OC_STATE_SAVE, ss->alg, ss->hp, ss->storage, ss->n, s, steps_done, save,
            &len);
    oc_check_output(o, "save", save, cap);
    for (int k = 0; k < ss->nbuf; k++)
        oc_check_unchanged(o, ss->names[k], s[k], before[k], ss->bytes[k]);
    oc_check_unchanged(o, "step count", steps_done, &saved_steps, sizeof saved_steps);
    if (st == OC_OK && !o->fault[0] && len > cap)
        snprintf(o->fault, sizeof o->fault, "save reported %zu bytes written into a buffer of "
                 "%zu", len, cap);
    if (st == OC_OK && !o->fault[0]) {
        copy = oc_guarded_copy(save, len);
        for (int k = 0; k < ss->nbuf; k++) { /* the fresh instance */
            fresh[k] = oc_alloc_guarded(ss->bytes[k]);
            memset(fresh[k], POISON, ss->bytes[k]);
            free(s[k]);
            s[k] = fresh[k];
        }
        *steps_done = -1;
        st = io(impl->ctx, OC_STATE_RESTORE, ss->alg, ss->hp, ss->storage, ss->n, s, steps_done,
                copy, &len);
        oc_check_input(o, "save", copy, save, len);
        for (int k = 0; k < ss->nbuf; k++)
            oc_check_output(o, ss->names[k], s[k], ss->bytes[k]);
    }
    for (int k = 0; k < ss->nbuf; k++)
        free(before[k]);
    free(save);
    free(copy);
    return st;
}

static void record_row(const oc_case *c, void *const *s, size_t row, oc_outputs *o)
{
    for (int k = 0; k < c->nstate; k++)
        for (size_t i = 0; i < c->n; i++)
            o->out[k][row * c->n + i] = load_value(c->fmt[k], s[k], i);
}

void oc_run_elementwise(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                        int *dirty)
{
    void *s[OC_MAX_STATE] = {0}, *snap[OC_MAX_STATE] = {0};
    size_t bytes[OC_MAX_STATE] = {0};
    float *g = oc_alloc_guarded(c->n * sizeof(float)); /* the caller's copy stays untouched */
    int64_t t = c->first_step;
    *st = OC_OK;
    for (int k = 0; k < c->nstate; k++) {
        bytes[k] = c->n * format_width(c->fmt[k]);
        s[k] = oc_alloc_guarded(bytes[k]);
        snap[k] = malloc(bytes[k] ? bytes[k] : 1);
        o->out[k] = malloc((c->steps * c->n + 1) * sizeof(double));
        for (size_t i = 0; i < c->n; i++) /* exact: inputs lie on their format's grid */
            if (c->fmt[k] == OC_FMT_F32)
                ((float *)s[k])[i] = c->in[k][i];
            else
                ((uint16_t *)s[k])[i] = oc_narrow(c->fmt[k], c->in[k][i]);
    }
    for (size_t step = 0; step <= c->steps; step++) {
        if (c->resume_at == (int64_t)step) { /* VEC-RESUME-1: the break after `step` updates */
            int64_t done = t - 1;
            const oc_saved_state ss = {c->algo->alg, &c->hp, &c->storage, c->n, c->nstate,
                                       bytes, c->names};
            *st = oc_save_and_restore(impl, &ss, s, &done, o);
            if (*st != OC_OK || o->fault[0])
                break;
            t = done + 1;
            if (step > 0) /* the restored state is judged as the state after that update */
                record_row(c, s, step - 1, o);
        }
        if (step == c->steps)
            break;
        const float *want = c->g + step * c->n;
        for (int k = 0; k < c->nstate; k++)
            memcpy(snap[k], s[k], bytes[k]);
        memcpy(g, want, c->n * sizeof(float));
        *st = step_once(impl, c, t++, s, g);
        if (!check_buffers(c, s, bytes, g, want, o))
            break;
        if (*st != OC_OK) {
            for (int k = 0; k < c->nstate; k++)
                *dirty |= memcmp(snap[k], s[k], bytes[k]) != 0;
            break;
        }
        record_row(c, s, step, o);
    }
    for (int k = 0; k < c->nstate; k++) {
        free(s[k]);
        free(snap[k]);
    }
    free(g);
}

void oc_judge_outputs(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r)
{
    r->verdict = OC_PASS;
    r->max_ulps = 0;
    r->max_ratio = 0;
    memset(&r->plot, 0, sizeof r->plot);
    if (c->algo->judge)
        c->algo->judge(c, o, (int)cls, r);
    else
        oc_judge_elementwise(c, o, cls, r);
}

/* One entry j of output k against its expected value: within the class's bound (ADAM-TOL-1/2
 * and the other element-wise families; overflow and NaN judged exactly, ADAM-STORE-2), its
 * error in ulps of the exact value and over the fp32 bound. */
static int entry_ok(const oc_case *c, int k, size_t j, double got, oc_class cls, double *ulps,
                    double *ratio)
{
    double e = c->exp[k].stored[j], x = c->exp[k].f64[j], tol = c->exp[k].tol[j];
    int ok;
    if (!isfinite(e)) {
        ok = (isnan(e) && isnan(got)) || e == got;
        *ulps = *ratio = ok ? 0 : INFINITY;
    } else if (!isfinite(got)) {
        ok = 0;
        *ulps = *ratio = INFINITY;
    } else {
        *ulps = fabs(got - x) / oc_ulp(x, c->precision[k]);
        *ratio = tol > 0 ? fabs(got - e) / tol : (got == e ? 0 : INFINITY);
        /* MP-TOL-4: a 16-bit output also within its narrowing extent in the exact class */
        int narrowed_ok = c->precision[k] >= 24 || fabs(got - e) <= tol;
        ok = cls == OC_CLASS_EXACT ? *ulps <= 1.0 && narrowed_ok : fabs(got - e) <= tol;
    }
    return ok;
}

void oc_judge_elementwise(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r)
{
    size_t first_wrong = SIZE_MAX; /* the plots: the first entry index j out of its bound */
    oc_plot_steps_begin(&r->plot, c->steps, c->first_step);
    for (size_t step = 0; step < c->steps; step++)
        for (int k = 0; k < c->nstate; k++)
            for (size_t i = 0; i < c->n; i++) {
                size_t j = step * c->n + i;
                double got = o->out[k][j], ulps, ratio;
                int ok = entry_ok(c, k, j, got, cls, &ulps, &ratio);
                r->max_ulps = fmax(r->max_ulps, ulps);
                r->max_ratio = fmax(r->max_ratio, ratio);
                oc_plot_step_ratio(&r->plot, step, ratio);
                if (!ok && j < first_wrong)
                    first_wrong = j;
                if (!ok && r->verdict == OC_PASS) {
                    r->verdict = OC_FAIL;
                    int digits = c->precision[k] == 53 ? 17 : 9;
                    snprintf(r->detail, sizeof r->detail,
                             "step %lld, %s[%zu]: got %.*g, expected %.*g (exact %.17g): "
                             "%.3g ulp, bound %.3g",
                             (long long)(c->first_step + (int64_t)step), c->names[k], i,
                             digits, got, digits, c->exp[k].stored[j], c->exp[k].f64[j], ulps,
                             c->exp[k].tol[j]);
                }
            }
    oc_plot_trajectory(c, o, first_wrong, &r->plot);
}

/* The quantity entry j of output k holds (oc_algo.quantity), else the output's name. */
const char *oc_quantity(const oc_case *c, int k, size_t j)
{
    return c->algo->quantity ? c->algo->quantity(c, k, j) : c->names[k];
}

#define LOC_MAX 16 /* quantities listed per step */

/* VEC-DIAG-1: entry i of p at step `step` against the terms of its update: one step of the
 * reference from the expected state before the step, with the case's weight decay and without
 * it; the decay term is their difference, the rest the update without it. "" where the
 * algorithm has no decay term or its value is 0, or the storage is not fp32. */
static void against_terms(const oc_case *c, size_t step, size_t i, double err, char *buf,
                          size_t size)
{
    oc_hparams hp[2] = {c->hp, c->hp};
    double *wd = c->algo->decay ? c->algo->decay(&hp[1]) : NULL, update[2];
    oc_runner ref;
    buf[0] = '\0';
    if (!wd || *wd == 0 || !c->algo->step || c->storage.param != OC_FMT_F32 ||
        c->storage.state != OC_FMT_F32 || oc_impl_runner(oc_ref(), c, &ref) != OC_CLAIMED)
        return;
    *wd = 0;
    for (int h = 0; h < 2; h++) {
        float *s[OC_MAX_STATE] = {0};
        for (int k = 0; k < c->nstate; k++) {
            s[k] = malloc(c->n * sizeof(float));
            for (size_t e = 0; e < c->n; e++)
                s[k][e] = step ? (float)c->exp[k].stored[(step - 1) * c->n + e] : c->in[k][e];
        }
        float before = s[0][i];
        oc_status st = c->algo->step(&ref, &hp[h], c->first_step + (int64_t)step, c->n, s,
                                     c->g + step * c->n);
        update[h] = st == OC_OK ? (double)s[0][i] - before : NAN;
        for (int k = 0; k < c->nstate; k++)
            free(s[k]);
    }
    double decay = update[0] - update[1], rest = update[1];
    if (isfinite(decay) && isfinite(rest) && decay != 0 && rest != 0)
        snprintf(buf, size, "; against the terms of the update of p: %+.3g x the weight decay "
                 "term (%+.3g), %+.3g x the rest (%+.3g)", err / decay, decay, err / rest, rest);
}

/* Issue 19 item 6, VEC-DIAG-1: where a failure no catalogued mistake reproduces goes wrong
 * (element-wise judgement only): the first step with a wrong entry, each quantity wrong there
 * (how many entries, how far past the bound) and each still within bound, and the first wrong
 * entry's error against the change the step should have made to it. */
static void localise(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r)
{
    for (size_t step = 0; step < c->steps; step++) {
        const char *name[LOC_MAX];
        size_t bad[LOC_MAX] = {0}, total[LOC_MAX] = {0};
        double worst[LOC_MAX] = {0};
        int nq = 0, first_k = -1;
        size_t first_j = 0;
        for (int k = 0; k < c->nstate; k++)
            for (size_t i = 0; i < c->n; i++) {
                size_t j = step * c->n + i;
                double ulps, ratio;
                int ok = entry_ok(c, k, j, o->out[k][j], cls, &ulps, &ratio), q = 0;
                const char *qn = oc_quantity(c, k, i);
                while (q < nq && strcmp(name[q], qn) != 0)
                    q++;
                if (q == LOC_MAX)
                    continue;
                if (q == nq)
                    name[nq++] = qn;
                total[q]++;
                if (!ok) {
                    bad[q]++;
                    worst[q] = fmax(worst[q], ratio);
                    if (first_k < 0) {
                        first_k = k;
                        first_j = j;
                    }
                }
            }
        if (first_k < 0)
            continue;
        char wrong[160] = "", right[96] = "";
        size_t w = 0, g = 0;
        for (int q = 0; q < nq; q++) {
            if (bad[q] && w < sizeof wrong)
                w += (size_t)snprintf(wrong + w, sizeof wrong - w, "%s%s (%zu of %zu, up to %.3g x "
                                      "the bound)", w ? ", " : "", name[q], bad[q], total[q],
                                      worst[q]);
            else if (!bad[q] && g < sizeof right)
                g += (size_t)snprintf(right + g, sizeof right - g, "%s%s", g ? ", " : "", name[q]);
        }
        /* the first wrong entry against the change the step should make to it */
        size_t i = first_j % c->n;
        double got = o->out[first_k][first_j], e = c->exp[first_k].stored[first_j];
        double before = step ? c->exp[first_k].stored[first_j - c->n]
                        : c->in[first_k] ? c->in[first_k][i] : NAN;
        double change = e - before, err = got - e;
        char versus[96] = "", terms[160] = "";
        if (isfinite(change) && change != 0 && isfinite(err))
            snprintf(versus, sizeof versus, " = %+.3g x the step's change of it (%+.3g)",
                     err / change, change);
        if (first_k == 0 && isfinite(err))
            against_terms(c, step, i, err, terms, sizeof terms);
        char off[64]; /* a non-finite value on either side has no error, only the two values */
        if (isfinite(err))
            snprintf(off, sizeof off, "off by %+.3g", err);
        else
            snprintf(off, sizeof off, "%.9g where %.9g is expected", got, e);
        snprintf(r->locate, sizeof r->locate,
                 "first wrong at step %lld: %s; within bound there: %s%s; %s[%zu] %s%s%s",
                 (long long)(c->first_step + (int64_t)step), wrong, g ? right : "nothing",
                 g ? " (the error is not in them)" : "", oc_quantity(c, first_k, i), i, off, versus,
                 terms);
        return;
    }
}

void oc_explain_failure(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r)
{
    r->diagnosis = oc_diagnose(c, o);
    if (!r->diagnosis && !c->algo->judge)
        localise(c, o, cls, r);
}

/* One mutant's run on a case: its outputs, status and whether it fails the case at fp32 (a
 * mutant that passes a case cannot explain a failure of it). */
typedef struct oc_mutant_run {
    oc_outputs out;
    oc_status st;
    int fails, done;
} oc_mutant_run;

struct oc_mutant_runs {
    int n;
    oc_mutant_run run[];
};

static void run_mutant(const oc_case *c, int mu, oc_mutant_run *m)
{
    int dirty;
    oc_case_result mr;
    oc_run_case(oc_ref_mutant(c->algo, mu), c, &m->out, &m->st, &dirty);
    m->fails = 0;
    if (m->st == OC_OK) {
        oc_judge_outputs(c, &m->out, OC_CLASS_FP32, &mr);
        m->fails = mr.verdict == OC_FAIL;
    }
    m->done = 1;
}

int oc_keep_mutant_runs(oc_case *c)
{
    if (c->mutant_runs)
        return 0;
    int n = c->algo->nmutants;
    c->mutant_runs = calloc(1, sizeof *c->mutant_runs + (size_t)n * sizeof(oc_mutant_run));
    if (!c->mutant_runs)
        return -1;
    c->mutant_runs->n = n;
    return 0;
}

void oc_mutant_runs_free(struct oc_mutant_runs *runs)
{
    if (!runs)
        return;
    for (int mu = 0; mu < runs->n; mu++)
        if (runs->run[mu].done)
            oc_outputs_free(&runs->run[mu].out);
    free(runs);
}

const char *oc_diagnose(const oc_case *c, const oc_outputs *o)
{
    for (int mu = 1; mu < c->algo->nmutants; mu++) {
        oc_mutant_run own = {0}, *m = c->mutant_runs ? &c->mutant_runs->run[mu] : &own;
        if (!m->done)
            run_mutant(c, mu, m);
        int match = m->st == OC_OK && m->fails;
        if (match && c->algo->explains)
            match = c->algo->explains(c, o, &m->out);
        for (int k = 0; k < c->nstate && match && !c->algo->explains; k++)
            for (size_t j = 0; j < c->steps * c->n && match; j++) {
                double got = o->out[k][j], want = m->out.out[k][j];
                if (!isfinite(want) || !isfinite(got))
                    match = (isnan(got) && isnan(want)) || got == want;
                else /* VEC-DIAG-1: within the entry's own bound, nothing more */
                    match = fabs(got - want) <= c->exp[k].tol[j];
            }
        if (m == &own)
            oc_outputs_free(&own.out);
        if (match)
            return c->algo->mutant_name(mu);
    }
    return NULL;
}

/* The verdict of a run that wrote only where it may and returned an oc_status. */
static void judge_run(const oc_case *c, const oc_outputs *o, oc_status st, int dirty,
                      oc_class cls, oc_case_result *r)
{
    switch (c->result) {
    case OC_RESULT_VALID:
        if (st != OC_OK) {
            r->verdict = OC_FAIL;
            snprintf(r->detail, sizeof r->detail, "rejected a valid input: %s", oc_status_str(st));
        } else {
            oc_judge_outputs(c, o, cls, r);
            if (r->verdict == OC_FAIL)
                oc_explain_failure(c, o, cls, r);
        }
        break;
    case OC_RESULT_INVALID: /* VEC-FMT-3, ADAM-ERR-1 */
        r->verdict = st != OC_OK && !dirty ? OC_PASS : OC_FAIL;
        snprintf(r->detail, sizeof r->detail, "%s",
                 st == OC_OK ? "accepted an invalid input"
                 : dirty     ? "rejected the input but modified the state"
                             : oc_status_str(st));
        break;
    case OC_RESULT_ACCEPTABLE:
        r->verdict = st == OC_OK ? OC_ACCEPTED : dirty ? OC_FAIL : OC_REJECTED;
        snprintf(r->detail, sizeof r->detail, "%s",
                 st == OC_OK ? "accepted (implementation-defined)"
                 : dirty     ? "rejected the input but modified the state"
                             : oc_status_str(st));
        break;
    }
}

/* The skip detail of a case whose family impl lists without an option the case needs. */
static void unlisted_options(const oc_impl_v3 *impl, const oc_case *c, char *out, size_t size)
{
    char base[128], names[OC_OPTIONS_TEXT] = "";
    int resume, mixed, n = 0;
    const char *need[OC_MAX_OPTIONS];
    oc_family_base(c->family, base, sizeof base, &resume, &mixed);
    needed_options(c, need);
    const oc_family_entry *e = oc_abi3_find(impl, base);
    for (int o = 0; o < OC_MAX_OPTIONS; o++)
        if (need[o] && !oc_abi3_has_option(e->options, need[o]))
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%s'",
                     n++ ? ", " : "", need[o]);
    snprintf(out, size, "not claimed by the implementation (the case needs option%s %s, which its "
             "%s entry does not list: VEC-ABI-1)", n > 1 ? "s" : "", names, base);
}

void oc_certify_case(const oc_impl_v3 *impl, const oc_case *c, oc_class cls, oc_case_result *r)
{
    oc_runner run;
    oc_claim claim = oc_impl_runner(impl, c, &run);
    memset(r, 0, sizeof *r);
    r->tcid = c->tcid;
    if (claim != OC_CLAIMED) {
        r->verdict = OC_SKIP;
        if (claim == OC_UNCLAIMED_ALGORITHM)
            snprintf(r->detail, sizeof r->detail, "not claimed by the implementation (no %s "
                     "capability for this profile)", c->algo->name);
        else if (claim == OC_UNCLAIMED_OPTION)
            unlisted_options(impl, c, r->detail, sizeof r->detail);
        else if (claim == OC_UNCLAIMED_RESUME)
            snprintf(r->detail, sizeof r->detail, "not claimed by the implementation (no "
                     "resume entry point, VEC-ABI-3)");
        else
            snprintf(r->detail, sizeof r->detail, "not claimed by the implementation (no "
                     "mixed-precision capability for %s parameters with %s state)",
                     oc_format_name(c->storage.param), oc_format_name(c->storage.state));
        return;
    }
    oc_outputs o;
    oc_status st;
    int dirty;
    oc_run_case(impl, c, &o, &st, &dirty);
    if (o.fault[0]) { /* VEC-PLUG-2, VEC-PLUG-3 */
        r->verdict = OC_FAIL;
        snprintf(r->detail, sizeof r->detail, "%s", o.fault);
    } else if ((unsigned)st > OC_ERR_PEER) { /* the last oc_status */
        r->verdict = OC_FAIL;
        snprintf(r->detail, sizeof r->detail, "returned %d, which is no oc_status", (int)st);
    } else
        judge_run(c, &o, st, dirty, cls, r);
    if (r->verdict == OC_PASS && o.unbroken[0]) { /* VEC-RESUME-2, after the tolerance */
        r->verdict = OC_FAIL;
        snprintf(r->detail, sizeof r->detail, "%s", o.unbroken);
    }
    oc_outputs_free(&o);
}
