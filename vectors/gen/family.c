#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "family.h"

json_t *hexfloat(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%a", x);
    return json_string(buf);
}

int family_init(family *f, const char *name, const char *algorithm, const char *profile,
                const char *const *rules, const gen_options *opt)
{
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    json_t *jr = json_array();
    for (int i = 0; rules[i]; i++)
        json_array_append_new(jr, json_string(rules[i]));
    char st_name[96];
    snprintf(st_name, sizeof st_name, "%s.safetensors", name);
    f->groups = json_array();
    f->doc = json_pack("{s:s,s:s,s:s,s:s,s:o,s:{s:s,s:s,s:s,s:I,s:I,s:s},s:s,s:i,s:{},s:O}",
                       "schema", "optcert-vectors/1", "family", name, "algorithm", algorithm,
                       "profile", profile, "specRules", jr,
                       "generator", "tool", "optcert-gen", "version", "1", "mpfr",
                       mpfr_get_version(), "precision", (json_int_t)opt->prec, "seed",
                       (json_int_t)opt->seed, "level", opt->level,
                       "tensors", st_name, "numberOfTests", 0, "notes", "testGroups",
                       f->groups);
    json_decref(f->groups); /* the document holds the reference */
    f->tensors = st_writer_new();
    f->next_tcid = 1;
    return f->doc && f->tensors ? 0 : -1;
}

void family_inline(family *f)
{
    json_object_del(f->doc, "tensors");
    st_writer_free(f->tensors);
    f->tensors = NULL;
}

void family_free(family *f)
{
    json_decref(f->doc);
    st_writer_free(f->tensors);
}

/* VEC-FMT-6: every flag is defined once in notes. */
void family_note(family *f, const char *flag, const char *bug_type, const char *description,
                 const char *effect, const char *link)
{
    json_t *links = json_array();
    if (link)
        json_array_append_new(links, json_string(link));
    json_object_set_new(json_object_get(f->doc, "notes"), flag,
                        json_pack("{s:s,s:s,s:s,s:o}", "bugType", bug_type, "description",
                                  description, "effect", effect, "links", links));
}

void family_group(family *f, const char *type, json_t *hparams)
{
    if (f->group && json_equal(json_object_get(f->group, "hparams"), hparams)) {
        json_decref(hparams);
        return;
    }
    f->group = json_pack("{s:s,s:o,s:[]}", "type", type, "hparams", hparams, "tests");
    json_array_append_new(f->groups, f->group);
}

int family_test(family *f, json_t *test)
{
    int id = f->next_tcid++;
    json_t *full = json_pack("{s:i}", "tcId", id);
    json_object_update(full, test);
    json_decref(test);
    json_array_append_new(json_object_get(f->group, "tests"), full);
    f->count++;
    json_object_set_new(f->doc, "numberOfTests", json_integer(f->count));
    return id;
}

int family_save(family *f, const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, f->name);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return -1;
    snprintf(path, sizeof path, "%s/%s/%s.json", dir, f->name, f->name);
    if (json_dump_file(f->doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0)
        return -1;
    FILE *fp = fopen(path, "a"); /* trailing newline for a tidy text file */
    if (!fp || fputc('\n', fp) == EOF || fclose(fp) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s/%s.safetensors", dir, f->name, f->name);
    return f->tensors ? st_writer_save(f->tensors, path) : 0;
}

float gen_store(mpfr_t x, gen_golden *out, int k)
{
    out->f64[k] = mpfr_get_d(x, MPFR_RNDN);
    out->f32[k] = mpfr_get_flt(x, MPFR_RNDN);
    mpfr_set_flt(x, out->f32[k], MPFR_RNDN);
    return out->f32[k];
}

double gen_round_format(oc_format f, double x)
{
    if (f == OC_FMT_F32 || !isfinite(x) || x == 0)
        return f == OC_FMT_F32 ? (float)x : x;
    const int p = f == OC_FMT_BF16 ? 8 : 11, emin = f == OC_FMT_BF16 ? -126 : -14;
    const double max = f == OC_FMT_BF16 ? 0x1.fep127 : 65504.0;
    int e;
    frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
    double quantum = ldexp(1.0, (e - 1 > emin ? e - 1 : emin) - (p - 1));
    double r = nearbyint(x / quantum) * quantum; /* exact scaling; nearbyint: ties to even */
    return fabs(r) > max ? copysign(INFINITY, r) : r;
}

/* The sharp fp32-class bound on a 16-bit storage point (spec/mixed.md MP-TOL-1): an implementation
 * whose fp32 value lies within E of the golden fp32 value b stores a value in
 * [RN(b - E), RN(b + E)], RN being monotone. Returns the largest distance to RN(b); 0 when no
 * rounding boundary lies within E of b. */
static double narrow_bound(oc_format f, double b, double E)
{
    double r = gen_round_format(f, b);
    if (E == 0 || !isfinite(r)) /* non-finite values are judged exactly (MP-TOL-1) */
        return 0;
    double lo = gen_round_format(f, nextafter(b - E, -INFINITY));
    double hi = gen_round_format(f, nextafter(b + E, INFINITY));
    return fmax(fabs(r - lo), fabs(hi - r));
}

/* grad: 2 roundings and their product term (2 + u, l2.g); nesterov, interp: 4 roundings, and
 * the lerp order's product terms (4 + 3u, lerp_same.g): 2^-20 covers them (ADAM-TOL-3) */
const gen_tol gen_tol_generator = {.grad = 2 + 0x1p-20, .moment = 6, .square = 6,
                                   .nesterov = 4 + 0x1p-20, .interp = 4 + 0x1p-20, .param = 8,
                                   .param_lion = 6};
const gen_tol *gen_tol_model = &gen_tol_generator;
gen_tolcheck *gen_tolcheck_active;

void gen_tol_range(int inside)
{
    if (gen_tolcheck_active && gen_tol_model == gen_tolcheck_active->proven && !inside)
        gen_tolcheck_active->outside++;
}

/* tolcheck: the same element step with the proven model, from the same stored state and the
 * proven bound carried in Ep; each output's two bounds compared (ADAM-TOL-3). */
static void tolcheck_element(const gen_stepper *s, float grad, const float *state, double *Ep,
                             const gen_golden *o)
{
    float st[GEN_MAX_STATE];
    gen_golden op;
    memcpy(st, state, sizeof st);
    gen_tol_model = gen_tolcheck_active->proven;
    s->element(s->ctx, grad, st, Ep, &op);
    gen_tol_model = &gen_tol_generator;
    for (int k = 0; k < s->nstate; k++)
        if (o->tol[k] != 0 || op.tol[k] != 0) /* else judged exactly in both */
            gen_tolcheck_entry(o->tol[k], op.tol[k]);
}

/* tolcheck (spec/mixed.md MP-TOL-3): a narrowing of b to format f, the generator's bound from
 * its fp32 bound E against the proven one from the same E; returns the proven narrowing of the
 * proven fp32 bound Ep, carried on by the proven model. */
static double tolcheck_narrowing(oc_format f, float b, double E, double Ep)
{
    gen_tolcheck *tc = gen_tolcheck_active;
    double gen = narrow_bound(f, b, E), proven = gen_tolcheck_narrow(f, b, E);
    tc->narrowings++;
    tc->narrow_boundary += proven > 0;
    tc->narrow_unsound += !(gen >= proven);
    tc->narrow_wider += gen > proven;
    return gen_tolcheck_narrow(f, b, Ep);
}

double gen_bound_up(double e)
{
    return nextafter(e * (1 + 0x1p-40), INFINITY);
}

void gen_case_alloc(gen_case *c, size_t n, size_t steps)
{
    c->n = n;
    c->steps = steps;
    for (int k = 0; k < GEN_MAX_STATE; k++)
        c->in[k] = calloc(n ? n : 1, sizeof(float));
    c->g = calloc(n * steps + 1, sizeof(float));
}

static json_t *strings(const char *const *s, size_t max)
{
    json_t *a = json_array();
    for (size_t i = 0; i < max && s[i]; i++)
        json_array_append_new(a, json_string(s[i]));
    return a;
}

static void add_tensor(family *f, int id, const char *name, const char *dtype, size_t rows,
                       size_t cols, int two_dim, const void *data, json_t *obj, const char *field)
{
    char key[64];
    snprintf(key, sizeof key, "%d/%s", id, name);
    st_writer_add(f->tensors, key, dtype, rows, cols, two_dim, data);
    json_object_set_new(obj, field, json_string(key));
}

/* Output slots of a case: the parameter, then with a 16-bit parameter the fp32 master, then
 * the state tensors (MP-STORE-1..3). The stepper's state a lands in slot out_slot(a). */
#define GEN_MAX_OUT (GEN_MAX_STATE + 1)
static int mixed_param(const gen_case *c) { return c->storage.param != OC_FMT_F32; }
static int out_slot(const gen_case *c, int a) { return a == 0 ? mixed_param(c) : a + mixed_param(c); }
static int out_count(const gen_stepper *s, const gen_case *c) { return s->nstate + mixed_param(c); }
static oc_format out_format(const gen_case *c, int slot)
{
    return slot == 0 ? c->storage.param : slot == 1 && mixed_param(c) ? OC_FMT_F32 : c->storage.state;
}

/* The golden trajectory of a valid case: stored value, f64 and tol of every output slot,
 * [steps*n]. 16-bit state is narrowed from its fp32 value at the end of each step and the
 * parameter written back from the master (spec/mixed.md MP-STORE-2, MP-CONV-1). */
static void compute(const gen_stepper *s, const gen_case *c, float **stored, double **f64,
                    double **tol)
{
    float state[GEN_MAX_STATE];
    double *bound = calloc(c->n * GEN_MAX_STATE, sizeof(double));
    double *proven = calloc(c->n * GEN_MAX_STATE, sizeof(double)); /* tolcheck only */
    float *st = malloc(c->n * GEN_MAX_STATE * sizeof(float));
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < GEN_MAX_STATE; k++)
            st[i * GEN_MAX_STATE + k] = c->in[k][i];
    for (size_t step = 0; step < c->steps; step++) {
        s->begin_step(s->ctx, c->first_step + (int64_t)step);
        for (size_t i = 0; i < c->n; i++) {
            gen_golden o;
            size_t j = step * c->n + i;
            double *E = bound + i * GEN_MAX_STATE;
            for (int k = 0; k < GEN_MAX_STATE; k++)
                state[k] = st[i * GEN_MAX_STATE + k];
            float before[GEN_MAX_STATE];
            memcpy(before, state, sizeof before);
            s->element(s->ctx, c->g[j], state, E, &o);
            double *Ep = proven + i * GEN_MAX_STATE;
            if (gen_tolcheck_active) /* the fp32 bounds, before any narrowing */
                tolcheck_element(s, c->g[j], before, Ep, &o);
            for (int k = 1; k < s->nstate && c->storage.state != OC_FMT_F32; k++) {
                if (gen_tolcheck_active)
                    Ep[k] = tolcheck_narrowing(c->storage.state, o.f32[k], E[k], Ep[k]);
                o.tol[k] = E[k] = narrow_bound(c->storage.state, o.f32[k], E[k]);
                o.f32[k] = state[k] = (float)gen_round_format(c->storage.state, o.f32[k]);
            }
            for (int k = 0; k < GEN_MAX_STATE; k++)
                st[i * GEN_MAX_STATE + k] = state[k];
            for (int k = 0; k < s->nstate; k++) {
                stored[out_slot(c, k)][j] = o.f32[k];
                f64[out_slot(c, k)][j] = o.f64[k];
                tol[out_slot(c, k)][j] = o.tol[k];
            }
            if (mixed_param(c)) {
                stored[0][j] = (float)gen_round_format(c->storage.param, o.f32[0]);
                f64[0][j] = o.f64[0];
                tol[0][j] = narrow_bound(c->storage.param, o.f32[0], E[0]);
                if (gen_tolcheck_active) /* the write-back; the master keeps Ep[0] */
                    tolcheck_narrowing(c->storage.param, o.f32[0], E[0], 0);
            }
        }
    }
    free(bound);
    free(proven);
    free(st);
}

/* The formats' names in the vectors (VEC-FMT-16: f32, bf16, f16), in enum order. */
static const char *const format_names[OC_FMT_COUNT] = {
    [OC_FMT_F32] = "f32", [OC_FMT_BF16] = "bf16", [OC_FMT_F16] = "f16"};

/* The 16-bit encoding of v, a value on the grid of format fmt (MP-FMT-1): sign bit, biased
 * exponent field (8 bits for bf16, 5 for f16; 0 for zeros and subnormals, all ones for
 * infinities and NaN) and the stored significand, read off v exactly by frexp/ldexp. A NaN is
 * the quiet NaN of its sign. */
static uint16_t encode16(oc_format fmt, float v)
{
    const int ebits = fmt == OC_FMT_BF16 ? 8 : 5, mbits = fmt == OC_FMT_BF16 ? 7 : 10;
    const int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
    const unsigned sign = signbit(v) ? 0x8000u : 0, ones = ((1u << ebits) - 1) << mbits;
    double a = fabs((double)v);
    if (isnan(v))
        return (uint16_t)(sign | ones | 1u << (mbits - 1));
    if (isinf(v))
        return (uint16_t)(sign | ones);
    if (a == 0)
        return (uint16_t)sign;
    int e;
    frexp(a, &e); /* a in [2^(e-1), 2^e) */
    int normal = e - 1 >= emin, exp = normal ? e - 1 : emin;
    double sig = ldexp(a, mbits - exp); /* the significand as an integer, leading bit included */
    if (sig != floor(sig)) {
        fprintf(stderr, "optcert-gen: %a is not a %s value\n", (double)v, format_names[fmt]);
        abort();
    }
    unsigned field = normal ? (unsigned)(exp + bias) : 0;
    unsigned frac = (unsigned)sig - (normal ? 1u << mbits : 0);
    return (uint16_t)(sign | field << mbits | frac);
}

/* A tensor of values in format f (on its grid) with dtype F32, BF16 or F16. */
static void add_values(family *f, int id, const char *name, oc_format fmt, size_t rows,
                       size_t cols, int two_dim, const float *v, json_t *obj, const char *field)
{
    static const char *const dtypes[OC_FMT_COUNT] = {"F32", "BF16", "F16"};
    if (fmt == OC_FMT_F32) {
        add_tensor(f, id, name, "F32", rows, cols, two_dim, v, obj, field);
        return;
    }
    uint16_t *h = malloc(rows * cols * sizeof(uint16_t) + 2);
    for (size_t i = 0; i < rows * cols; i++)
        h[i] = encode16(fmt, v[i]); /* exact: v is on the grid */
    add_tensor(f, id, name, dtypes[fmt], rows, cols, two_dim, h, obj, field);
    free(h);
}

static const char *slot_name(const gen_stepper *s, const gen_case *c, int slot)
{
    if (mixed_param(c))
        return slot == 0 ? s->state_names[0] : slot == 1 ? "master" : s->state_names[slot - 1];
    return s->state_names[slot];
}

void family_emit(family *f, const gen_stepper *s, json_t *hparams, gen_case *c)
{
    json_t *test = json_pack("{s:s,s:o,s:o,s:s,s:I,s:I,s:I}", "comment", c->comment, "flags",
                             strings(c->flags, 6), "specRules", strings(c->rules, 8), "result",
                             c->result, "n", (json_int_t)c->n, "firstStep",
                             (json_int_t)c->first_step, "steps", (json_int_t)c->steps);
    const int nout = out_count(s, c);
    if (c->resume) /* VEC-FMT-20 */
        json_object_set_new(test, "resumeAt", json_integer((json_int_t)c->resume_at));
    if (c->storage.param != OC_FMT_F32 || c->storage.state != OC_FMT_F32) /* VEC-FMT-16 */
        json_object_set_new(hparams, "storage",
                            json_pack("{s:s,s:s}", "param", format_names[c->storage.param],
                                      "state", format_names[c->storage.state]));
    family_group(f, s->group_type, hparams);
    int id = f->next_tcid;
    json_t *inputs = json_object();
    float *param = malloc((c->n + 1) * sizeof(float));
    for (size_t i = 0; i < c->n; i++) { /* MP-STORE-1: the parameter is the master's write-back */
        param[i] = (float)gen_round_format(c->storage.param, c->in[0][i]);
        for (int k = 1; k < s->nstate; k++)
            c->in[k][i] = (float)gen_round_format(c->storage.state, c->in[k][i]);
    }
    for (int k = 0; k < nout; k++) {
        const char *name = slot_name(s, c, k);
        const float *v = k == 0 ? param : k == 1 && mixed_param(c) ? c->in[0] : c->in[k - mixed_param(c)];
        add_values(f, id, name, out_format(c, k), 1, c->n, 0, v, inputs, name);
    }
    free(param);
    add_tensor(f, id, "g", "F32", c->steps, c->n, 1, c->g, inputs, "g");
    json_object_set_new(test, "inputs", inputs);
    if (strcmp(c->result, "valid") == 0) {
        size_t total = c->steps * c->n + 1;
        float *stored[GEN_MAX_OUT];
        double *f64[GEN_MAX_OUT], *tol[GEN_MAX_OUT];
        for (int k = 0; k < GEN_MAX_OUT; k++) {
            stored[k] = malloc(total * sizeof(float));
            f64[k] = malloc(total * sizeof(double));
            tol[k] = malloc(total * sizeof(double));
        }
        compute(s, c, stored, f64, tol);
        json_t *expected = json_object();
        for (int k = 0; k < nout; k++) { /* VEC-FMT-5: stored value keyed by its format */
            char name[32];
            const char *sn = slot_name(s, c, k);
            json_t *e = json_object();
            snprintf(name, sizeof name, "%s.out", sn);
            add_values(f, id, name, out_format(c, k), c->steps, c->n, 1, stored[k], e,
                       format_names[out_format(c, k)]);
            snprintf(name, sizeof name, "%s.out.f64", sn);
            add_tensor(f, id, name, "F64", c->steps, c->n, 1, f64[k], e, "f64");
            snprintf(name, sizeof name, "%s.tol", sn);
            add_tensor(f, id, name, "F64", c->steps, c->n, 1, tol[k], e, "tolFp32");
            json_object_set_new(expected, sn, e);
        }
        json_object_set_new(test, "expected", expected);
        for (int k = 0; k < GEN_MAX_OUT; k++) {
            free(stored[k]);
            free(f64[k]);
            free(tol[k]);
        }
    }
    family_test(f, test);
    for (int k = 0; k < GEN_MAX_STATE; k++)
        free(c->in[k]);
    free(c->g);
}

void family_add_tensor(family *f, int id, const char *name, const char *dtype, size_t rows,
                       size_t cols, const void *data, json_t *obj, const char *field)
{
    add_tensor(f, id, name, dtype, rows, cols, 1, data, obj, field);
}
