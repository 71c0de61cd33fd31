#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "abi3.h"
#include "judge.h"
#include "safetensors.h"
#include "tolcap.h"
#include "vectors.h"

static oc_status bad_tol(const char *path, int tcid, const char *what, size_t i, double tol,
                         double max, const char *rule, oc_diag *d)
{
    return oc_fail(d, OC_ERR_FORMAT,
                   "%s: tcId %d: tolerance %s[%zu] = %g: must be finite, >= 0 and <= %g (%s)",
                   path, tcid, what, i, tol, max, rule);
}

oc_status oc_check_tol(const char *path, int tcid, const char *what, const double *tol, size_t n,
                       double max, oc_diag *d)
{
    for (size_t i = 0; i < n; i++)
        if (!(tol[i] >= 0 && tol[i] <= max)) /* NaN fails both */
            return bad_tol(path, tcid, what, i, tol[i], max, "VEC-FMT-18", d);
    return OC_OK;
}

/* VEC-TOL-1's absolute floor: the eta terms of the fp32 bounds, or one subnormal step of a
 * 16-bit output (MP-TOL-1). */
static double tol_floor(oc_format fmt) { return fmt == OC_FMT_F16 ? 0x1p-24 : 0x1p-100; }

static double finite_abs(double x) { return isfinite(x) ? fabs(x) : 0; }

oc_status oc_check_tol_entries(const char *path, int tcid, const char *what, const double *tol,
                               const double *f64, const float *in, size_t rows, size_t cols,
                               oc_format fmt, oc_diag *d)
{
    for (size_t j = 0; j < cols; j++) {
        double scale = in ? finite_abs(in[j]) : 0;
        for (size_t r = 0; r < rows; r++) {
            size_t i = r * cols + j;
            scale = fmax(scale, finite_abs(f64[i]));
            double max = 0x1p-4 * scale + tol_floor(fmt);
            if (!(tol[i] >= 0 && tol[i] <= max))
                return bad_tol(path, tcid, what, i, tol[i], max, "VEC-TOL-1", d);
        }
    }
    return OC_OK;
}

oc_status oc_check_tol_classes(const char *path, int tcid, const char *what, const double *tol,
                               const double *f64, size_t n, oc_diag *d)
{
    static const double u[OC_NCLASSES] = {0x1p-24, 0x1p-24, 0x1p-11, 0x1p-8}; /* NS-TOL-1 */
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += finite_abs(f64[i]) * finite_abs(f64[i]);
    for (size_t i = 0; i < 2 * OC_NCLASSES; i++) {
        double max = 0x1p24 * u[i / 2] * (i % 2 ? 2 : 1) * sqrt(sum) + 0x1p-100;
        if (!(tol[i] >= 0 && tol[i] <= max))
            return bad_tol(path, tcid, what, i, tol[i], max, "VEC-TOL-1", d);
    }
    return OC_OK;
}

oc_status oc_get_int(const char *path, int tcid, json_t *t, const char *key, int64_t lo,
                     int64_t hi, int64_t *out, oc_diag *d)
{
    json_t *v = json_object_get(t, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: '%s' missing or out of range", path,
                       tcid, key);
    *out = json_integer_value(v);
    return OC_OK;
}

/* The tensor name obj[key] of a case, in the family's tensors file (VEC-FMT-9: a family
 * without one has none). */
static oc_status reference(const oc_st_file *st, const char *path, int tcid, json_t *obj,
                           const char *key, const char **ref, oc_diag *d)
{
    *ref = json_string_value(json_object_get(obj, key));
    if (!*ref)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: missing tensor reference '%s'", path,
                       tcid, key);
    if (!st)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: tensor '%s' needs a tensors file, and "
                       "the family names none", path, tcid, *ref);
    return OC_OK;
}

static oc_status tensor_ref(const oc_st_file *st, const char *path, int tcid, json_t *obj,
                            const char *key, oc_dtype dt, size_t rows, size_t cols, void **out,
                            oc_diag *d)
{
    const char *ref;
    oc_status s = reference(st, path, tcid, obj, key, &ref, d);
    return s != OC_OK ? s : oc_st_tensor(st, ref, dt, rows, cols, out, d);
}

oc_status oc_tensor_ref(const oc_st_file *st, const char *path, int tcid, json_t *obj,
                        const char *key, oc_dtype dt, size_t rows, size_t cols, void **out,
                        oc_diag *d)
{
    return tensor_ref(st, path, tcid, obj, key, dt, rows, cols, out, d);
}

/* Reads tensor `key` of obj, stored in format fmt, widened to binary64. */
static oc_status widened_ref(const oc_st_file *st, const char *path, int tcid, json_t *obj,
                             const char *key, oc_format fmt, size_t rows, size_t cols,
                             double **out, oc_diag *d)
{
    const char *ref;
    oc_status s = reference(st, path, tcid, obj, key, &ref, d);
    return s != OC_OK ? s : oc_st_tensor_widened(st, ref, fmt, rows, cols, out, d);
}

/* Input tensor `key` in format fmt, widened exactly to binary32. */
static oc_status input_ref(const oc_st_file *st, const char *path, int tcid, json_t *obj,
                           const char *key, oc_format fmt, size_t n, float **out, oc_diag *d)
{
    double *w;
    oc_status s = widened_ref(st, path, tcid, obj, key, fmt, 1, n, &w, d);
    if (s != OC_OK)
        return s;
    *out = malloc((n + 1) * sizeof(float));
    for (size_t i = 0; *out && i < n; i++)
        (*out)[i] = (float)w[i]; /* exact: the values are binary32 or narrower */
    free(w);
    return *out ? OC_OK : oc_fail(d, OC_ERR_INTERNAL, "out of memory reading '%s'", key);
}

oc_status oc_load_tensor_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                              oc_diag *d)
{
    oc_status s;
    int64_t v = 0;
    if (!st)
        return oc_fail(d, OC_ERR_FORMAT, "%s: %s families need a tensors file", path,
                       c->algo->name);
    if ((s = oc_get_int(path, c->tcid, t, "n", 0, 1 << 26, &v, d)))
        return s;
    c->n = (size_t)v;
    if ((s = oc_get_int(path, c->tcid, t, "steps", 1, 1 << 20, &v, d)))
        return s;
    c->steps = (size_t)v;
    if ((s = oc_get_int(path, c->tcid, t, "firstStep", INT64_MIN / 2, INT64_MAX / 2, &c->first_step, d)))
        return s;
    if (json_object_get(t, "resumeAt") && /* VEC-FMT-20: a break after 0 .. steps updates */
        (s = oc_get_int(path, c->tcid, t, "resumeAt", 0, (int64_t)c->steps, &c->resume_at, d)))
        return s;
    json_t *in = json_object_get(t, "inputs"), *ex = json_object_get(t, "expected");
    if (!json_is_object(in))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: missing inputs", path, c->tcid);
    for (int k = 0; k < c->nstate; k++) /* VEC-FMT-4: inputs [n], g [steps, n] */
        if ((s = input_ref(st, path, c->tcid, in, c->names[k], c->fmt[k], c->n, &c->in[k], d)))
            return s;
    if ((s = tensor_ref(st, path, c->tcid, in, "g", OC_F32, c->steps, c->n, (void **)&c->g, d)))
        return s;
    if (c->result != OC_RESULT_VALID)
        return OC_OK;
    if (!json_is_object(ex))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: valid case without expected", path,
                       c->tcid);
    for (int k = 0; k < c->nstate; k++) { /* VEC-FMT-5: stored, f64, tolFp32, each [steps, n] */
        json_t *e = json_object_get(ex, c->names[k]);
        if (!json_is_object(e))
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: missing expected '%s'", path, c->tcid,
                           c->names[k]);
        if ((s = widened_ref(st, path, c->tcid, e, oc_format_name(c->fmt[k]), c->fmt[k], c->steps,
                             c->n, &c->exp[k].stored, d)) ||
            (s = tensor_ref(st, path, c->tcid, e, "f64", OC_F64, c->steps, c->n,
                            (void **)&c->exp[k].f64, d)) ||
            (s = tensor_ref(st, path, c->tcid, e, "tolFp32", OC_F64, c->steps, c->n,
                            (void **)&c->exp[k].tol, d)))
            return s;
        if ((s = oc_check_tol_entries(path, c->tcid, c->names[k], c->exp[k].tol, c->exp[k].f64,
                                      c->in[k], c->steps, c->n, c->fmt[k], d)))
            return s;
    }
    return OC_OK;
}

/* A group's optional "storage" (VEC-FMT-16): element-wise algorithms only; absent = fp32. */
static oc_status parse_storage(const char *path, const oc_algo *algo, json_t *h, oc_storage *s,
                               oc_diag *d)
{
    json_t *j = json_object_get(h, "storage");
    *s = (oc_storage){OC_FMT_F32, OC_FMT_F32};
    if (!j)
        return OC_OK;
    if (!algo->own_mutants || !json_is_object(j) ||
        oc_format_parse(json_string_value(json_object_get(j, "param")), &s->param) != OC_OK ||
        oc_format_parse(json_string_value(json_object_get(j, "state")), &s->state) != OC_OK)
        return oc_fail(d, OC_ERR_FORMAT,
                       "%s: hparams.storage must be {\"param\": F, \"state\": F} with F one of "
                       "f32, bf16, f16, and only for element-wise algorithms", path);
    return OC_OK;
}

static int format_precision(oc_format f) { return f == OC_FMT_BF16 ? 8 : f == OC_FMT_F16 ? 11 : 24; }

/* Names, formats and precisions of a case's outputs (MP-STORE-1..3): with a 16-bit parameter
 * the fp32 master follows it, then the state tensors. */
static void layout_outputs(oc_case *c)
{
    const int mixed = c->storage.param != OC_FMT_F32;
    int k = 0;
    for (int a = 0; a < c->nstate; a++) {
        c->names[k] = c->algo->state_names[a];
        c->fmt[k] = a == 0 ? c->storage.param : c->storage.state;
        c->precision[k] = c->algo->own_mutants ? format_precision(c->fmt[k]) : c->algo->precision;
        k++;
        if (a == 0 && mixed) {
            c->names[k] = "master";
            c->fmt[k] = OC_FMT_F32;
            c->precision[k++] = 24;
        }
    }
    c->nstate = k;
}

/* The key of the first hyper-parameter written "nan" (any sign or case) in j, searched through
 * nested objects and lists (the guarded step's sub-optimizers); NULL if none. */
static const char *nan_key(json_t *j, const char *key)
{
    const char *k, *found = NULL;
    json_t *v;
    size_t i;
    if (json_is_string(j)) {
        const char *s = json_string_value(j);
        s += *s == '-' || *s == '+';
        return strcasecmp(s, "nan") == 0 ? (key ? key : "?") : NULL;
    }
    if (json_is_object(j))
        json_object_foreach(j, k, v) if ((found = nan_key(v, k))) return found;
    if (json_is_array(j))
        json_array_foreach(j, i, v) if ((found = nan_key(v, key))) return found;
    return NULL;
}

static oc_status parse_case(const char *path, const oc_st_file *st, json_t *t, json_t *h,
                            const oc_algo *algo, const oc_hparams *hp, const oc_storage *sto,
                            oc_case *c, oc_diag *d)
{
    oc_status s;
    int64_t v = 0;
    memset(c, 0, sizeof *c);
    c->algo = algo;
    c->hp = *hp;
    c->storage = *sto;
    c->resume_at = -1;
    if ((s = oc_get_int(path, 0, t, "tcId", 1, INT32_MAX, &v, d)))
        return s;
    c->tcid = (int)v;
    c->test = t;
    c->comment = json_string_value(json_object_get(t, "comment"));
    c->flags = json_object_get(t, "flags");
    c->rules = json_object_get(t, "specRules");
    const char *res = json_string_value(json_object_get(t, "result"));
    if (!c->comment || !json_is_array(c->flags) || !json_is_array(c->rules) || !res)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: needs comment, flags, specRules, result",
                       path, c->tcid);
    if (strcmp(res, "valid") == 0)
        c->result = OC_RESULT_VALID;
    else if (strcmp(res, "invalid") == 0)
        c->result = OC_RESULT_INVALID;
    else if (strcmp(res, "acceptable") == 0)
        c->result = OC_RESULT_ACCEPTABLE;
    else
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: unknown result '%s'", path, c->tcid, res);
    const char *nan = NULL; /* VEC-FMT-18 */
    if (c->result == OC_RESULT_VALID &&
        ((nan = nan_key(h, NULL)) || (nan = nan_key(json_object_get(t, "optimizers"), NULL))))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: hyper-parameter '%s' is NaN in a valid "
                       "case (a NaN hyper-parameter makes a case invalid)", path, c->tcid, nan);
    c->nstate = algo->nstate(hp);
    layout_outputs(c);
    s = algo->load_case(path, st, t, c, d);
    return s ? s : oc_tolcap_check(path, c, NULL, d); /* VEC-TOL-2 */
}

static void case_free(oc_case *c)
{
    for (int k = 0; k < OC_MAX_STATE; k++) {
        free(c->in[k]);
        free(c->exp[k].stored);
        free(c->exp[k].f64);
        free(c->exp[k].tol);
    }
    free(c->g);
    free(c->positions);
    oc_mutant_runs_free(c->mutant_runs);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* VEC-FMT-2: no tcId twice, in O(n log n). */
static oc_status check_unique(const char *path, const oc_family *fam, oc_diag *d)
{
    int *ids = malloc((fam->ncases + 1) * sizeof *ids);
    oc_status s = OC_OK;
    if (!ids)
        return oc_fail(d, OC_ERR_INTERNAL, "%s: out of memory", path);
    for (size_t i = 0; i < fam->ncases; i++)
        ids[i] = fam->cases[i].tcid;
    qsort(ids, fam->ncases, sizeof *ids, cmp_int);
    for (size_t i = 1; i < fam->ncases && s == OC_OK; i++)
        if (ids[i] == ids[i - 1])
            s = oc_fail(d, OC_ERR_FORMAT, "%s: duplicate tcId %d", path, ids[i]);
    free(ids);
    return s;
}

/* VEC-ABI-1: whether family `name`, or the family its steps run on (without "resume-" and
 * "-mixed"), is one optcert knows with another algorithm than `algorithm` (into *known). */
static int family_algorithm_differs(const char *name, const char *algorithm,
                                    const oc_known_family **known)
{
    char base[128];
    int resume, mixed;
    oc_family_base(name, base, sizeof base, &resume, &mixed);
    const char *names[2] = {name, base};
    for (int k = 0; k < 2; k++)
        if ((*known = oc_known_family_find(names[k])) && strcmp((*known)->algorithm, algorithm))
            return 1;
    return 0;
}

oc_status oc_family_load(const char *json_path, oc_family *fam, oc_diag *d)
{
    memset(fam, 0, sizeof *fam);
    json_error_t je;
    oc_status s = oc_check_regular(json_path, d);
    if (s != OC_OK)
        return s;
    fam->json_path = strdup(json_path);
    fam->doc = json_load_file(json_path, 0, &je);
    if (!fam->doc) {
        oc_family_free(fam);
        FILE *fp = fopen(json_path, "r");
        if (!fp)
            return oc_fail(d, OC_ERR_IO, "%s: cannot open", json_path);
        fclose(fp);
        return oc_fail(d, OC_ERR_FORMAT, "%s: line %d: malformed JSON: %s", json_path, je.line,
                       je.text);
    }
    const oc_known_family *known = NULL;
    const char *schema = json_string_value(json_object_get(fam->doc, "schema"));
    const char *tensors = json_string_value(json_object_get(fam->doc, "tensors"));
    json_t *groups = json_object_get(fam->doc, "testGroups");
    fam->name = json_string_value(json_object_get(fam->doc, "family"));
    fam->algorithm = json_string_value(json_object_get(fam->doc, "algorithm"));
    fam->profile = json_string_value(json_object_get(fam->doc, "profile"));
    if (!schema || strcmp(schema, "optcert-vectors/1") != 0) {
        s = oc_fail(d, OC_ERR_FORMAT, "%s: schema must be \"optcert-vectors/1\"", json_path);
    } else if (!fam->name || !fam->algorithm || !fam->profile || !json_is_array(groups) ||
               (json_object_get(fam->doc, "tensors") && !tensors)) {
        s = oc_fail(d, OC_ERR_FORMAT,
                    "%s: missing one of family, algorithm, profile, testGroups, or a bad tensors",
                    json_path);
    } else if (!oc_algo_find(fam->algorithm)) {
        s = oc_fail(d, OC_ERR_FORMAT, "%s: unknown algorithm '%s'", json_path, fam->algorithm);
    } else if (family_algorithm_differs(fam->name, fam->algorithm, &known)) {
        /* VEC-ABI-1: an implementation's entry for that family has another algorithm's type */
        s = oc_fail(d, OC_ERR_FORMAT, "%s: family '%s' runs on %s's entry (algorithm '%s'), "
                    "not algorithm '%s'", json_path, fam->name, known->name, known->algorithm,
                    fam->algorithm);
    } else if (tensors && (!*tensors || strcmp(tensors, ".") == 0 || strchr(tensors, '/') ||
                           strstr(tensors, ".."))) {
        s = oc_fail(d, OC_ERR_FORMAT, "%s: tensors must be a file name in the same directory",
                    json_path);
    }
    if (s != OC_OK) {
        oc_family_free(fam);
        return s;
    }
    oc_st_file st = {0}, *stp = NULL; /* families with inline values have no tensors file */
    if (tensors) {
        char st_path[4096];
        const char *slash = strrchr(json_path, '/');
        int dirlen = slash ? (int)(slash - json_path + 1) : 0;
        snprintf(st_path, sizeof st_path, "%.*s%s", dirlen, json_path, tensors);
        if ((s = oc_st_open(st_path, &st, d)) != OC_OK) {
            oc_family_free(fam);
            return s;
        }
        stp = &st;
    }
    size_t total = 0, gi;
    json_t *g;
    json_array_foreach(groups, gi, g) total += json_array_size(json_object_get(g, "tests"));
    fam->cases = calloc(total ? total : 1, sizeof *fam->cases);
    json_array_foreach(groups, gi, g) {
        const oc_algo *algo = oc_algo_find(fam->algorithm);
        oc_hparams hp;
        oc_storage sto;
        json_t *tests = json_object_get(g, "tests"), *t, *h = json_object_get(g, "hparams");
        size_t ti;
        if (!json_is_array(tests)) {
            s = oc_fail(d, OC_ERR_FORMAT, "%s: testGroup %zu without tests", json_path, gi);
            break;
        }
        memset(&hp, 0, sizeof hp);
        if (!json_is_object(h)) {
            s = oc_fail(d, OC_ERR_FORMAT, "%s: testGroup %zu without hparams object", json_path, gi);
            break;
        }
        if ((s = algo->parse(json_path, fam->profile, h, &hp, d)) ||
            (s = parse_storage(json_path, algo, h, &sto, d)))
            break;
        json_array_foreach(tests, ti, t) {
            s = parse_case(json_path, stp, t, h, algo, &hp, &sto, &fam->cases[fam->ncases], d);
            fam->cases[fam->ncases++].family = fam->name;
            if (s)
                break;
        }
        if (s)
            break;
    }
    if (stp)
        oc_st_close(stp);
    if (s == OC_OK)
        s = check_unique(json_path, fam, d);
    if (s != OC_OK)
        oc_family_free(fam);
    return s;
}

void oc_family_free(oc_family *fam)
{
    for (size_t i = 0; i < fam->ncases; i++)
        case_free(&fam->cases[i]);
    free(fam->cases);
    free(fam->json_path);
    json_decref(fam->doc);
    memset(fam, 0, sizeof *fam);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

oc_status oc_family_list(const char *dir, char ***paths, oc_diag *d)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return oc_fail(d, OC_ERR_IO, "%s: cannot open vector directory", dir);
    size_t n = 0, cap = 8;
    char **list = calloc(cap + 1, sizeof *list);
    struct dirent *e;
    while ((e = readdir(dp))) {
        char p[4096];
        struct stat sb;
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s/%s.json", dir, e->d_name, e->d_name);
        if (stat(p, &sb) != 0) /* not a family; oc_family_load refuses a non-regular file */
            continue;
        if (n == cap) {
            cap *= 2;
            list = realloc(list, (cap + 1) * sizeof *list);
        }
        list[n++] = strdup(p);
        list[n] = NULL;
    }
    closedir(dp);
    qsort(list, n, sizeof *list, cmp_str);
    *paths = list;
    if (n == 0) {
        free(list);
        *paths = NULL;
        return oc_fail(d, OC_ERR_IO, "%s: no vector families found", dir);
    }
    return OC_OK;
}

void oc_free_list(char **list)
{
    for (size_t i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}
