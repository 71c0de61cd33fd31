/* optcert: the conformance harness command line (see README.md).
 * Exit status: 0 conforms, 1 does not conform, 2 bad usage or bad input. */
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "abi3.h"
#include "certify.h"
#include "isolate.h"
#include "manifest.h"
#include "selftest.h"
#include "trace.h"

#ifndef OPTCERT_SOURCE_DIR
#define OPTCERT_SOURCE_DIR "."
#endif
/* Where `cmake --install` puts the shipped vectors and the fast backends, relative to the
 * installed optcert's directory (cmake/install.cmake). */
#ifndef OPTCERT_REL_DATADIR
#define OPTCERT_REL_DATADIR "../share/optcert"
#endif
#ifndef OPTCERT_REL_PLUGINDIR
#define OPTCERT_REL_PLUGINDIR "../lib/optcert"
#endif

typedef struct options {
    const char *vectors, *impl, *results, *root, *cls, *family, *html;
    const char *reports[8];
    int nreports, verbose, no_isolation, locations;
    long precision;
    oc_isolation iso; /* for a plugin given by path, unless no_isolation */
} options;

/* The usage text: on standard output with status 0 when asked for (--help), else on standard
 * error with status 2 after msg (bad usage). */
static int usage_to(FILE *out, const char *msg)
{
    if (msg)
        fprintf(stderr, "optcert: %s\n", msg);
    fprintf(out,
            "usage:\n"
            "  optcert families [--vectors DIR]\n"
            "  optcert certify [--impl ref|fast-cpu|fast-cuda|mutant:[ALGO/]NAME|PATH.so] [--class exact|fp32|tf32|bf16] [--vectors DIR]\n"
            "                  [--family NAME] [--report table|json:FILE|junit:FILE|html:FILE]... [--html FILE] [--verbose]\n"
            "                  [--timeout SECONDS] [--memory MIB] [--no-isolation]\n"
            "  optcert judge --results FILE [--class exact|fp32|tf32|bf16] [--vectors DIR] [--family NAME]\n"
            "                [--report ...] [--html FILE] [--verbose]\n"
            "  optcert mutants [--vectors DIR] [--family NAME]\n"
            "  optcert vectors verify [--vectors DIR] [--precision BITS]\n"
            "  optcert vectors manifest [--vectors DIR]    (prints DIR/MANIFEST.sha256)\n"
            "  optcert vectors check [--vectors DIR]       (DIR's files against DIR/MANIFEST.sha256)\n"
            "  optcert selftest [--vectors DIR] [--family NAME]  (VEC-JUDGE-1: every output judged)\n"
            "  optcert trace [--root DIR] [--locations]    (--locations: where each rule is implemented)\n"
            "  optcert explain RULE-ID [--root DIR]        (the rule's text, the reference lines, vector\n"
            "                                               cases and tests that cite it)\n"
            "  optcert --help\n");
    return out == stdout ? 0 : 2;
}

static int usage(const char *msg) { return usage_to(stderr, msg); }

/* Whether s is a whole number in [1, max], into *out. */
static int positive(const char *s, long max, long *out)
{
    char *end;
    *out = strtol(s, &end, 10);
    return end != s && *end == '\0' && *out >= 1 && *out <= max;
}

/* The directory of this executable into dir; 0, or -1 when it cannot be found. */
static int exe_dir(char *dir, size_t size)
{
    ssize_t len = readlink("/proc/self/exe", dir, size - 1);
    if (len <= 0)
        return -1;
    dir[len] = '\0';
    *strrchr(dir, '/') = '\0';
    return 0;
}

/* The directory holding the shipped vectors/: beside an installed optcert (cmake --install, the
 * Python wheel; found by its manifest, VEC-SET-1) OPTCERT_REL_DATADIR from its directory, so the
 * installed tree can be moved; otherwise the source tree this optcert was built from. */
static const char *shipped_root(void)
{
    static char root[4200];
    char dir[4096], manifest[4600];
    struct stat sb;
    if (root[0])
        return root;
    snprintf(root, sizeof root, "%s", OPTCERT_SOURCE_DIR);
    if (exe_dir(dir, sizeof dir) == 0) {
        snprintf(manifest, sizeof manifest, "%s/%s/vectors/MANIFEST.sha256", dir,
                 OPTCERT_REL_DATADIR);
        if (stat(manifest, &sb) == 0)
            snprintf(root, sizeof root, "%s/%s", dir, OPTCERT_REL_DATADIR);
    }
    return root;
}

static int parse(int argc, char **argv, int first, options *o)
{
    static char vdir[4300];
    snprintf(vdir, sizeof vdir, "%s/vectors", shipped_root());
    *o = (options){.vectors = vdir, .impl = "ref", .root = OPTCERT_SOURCE_DIR, .precision = 256,
                   .iso = OC_ISOLATION_DEFAULT};
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        long n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1; /* usage on standard output, status 0 */
        if (strcmp(a, "--verbose") == 0)
            o->verbose = 1;
        else if (strcmp(a, "--locations") == 0)
            o->locations = 1;
        else if (strcmp(a, "--vectors") == 0 && has)
            o->vectors = argv[++i];
        else if (strcmp(a, "--family") == 0 && has)
            o->family = argv[++i];
        else if (strcmp(a, "--impl") == 0 && has)
            o->impl = argv[++i];
        else if (strcmp(a, "--results") == 0 && has)
            o->results = argv[++i];
        else if (strcmp(a, "--root") == 0 && has)
            o->root = argv[++i];
        else if (strcmp(a, "--class") == 0 && has)
            o->cls = argv[++i];
        else if (strcmp(a, "--precision") == 0 && has)
            o->precision = strtol(argv[++i], NULL, 10);
        else if (strcmp(a, "--no-isolation") == 0)
            o->no_isolation = 1;
        else if (strcmp(a, "--timeout") == 0 && has && positive(argv[++i], 86400, &n))
            o->iso.timeout_s = (int)n;
        else if (strcmp(a, "--memory") == 0 && has && positive(argv[++i], 1L << 30, &n))
            o->iso.memory_mib = (size_t)n;
        else if (strcmp(a, "--report") == 0 && has && o->nreports < 8)
            o->reports[o->nreports++] = argv[++i];
        else if (strcmp(a, "--html") == 0 && has) /* --report html:FILE beside the table */
            o->html = argv[++i];
        else {
            fprintf(stderr, "optcert: unknown or incomplete option '%s'\n", a);
            return -1;
        }
    }
    oc_class parsed;
    if (o->cls && oc_class_parse(o->cls, &parsed) != 0) {
        fprintf(stderr, "optcert: --class must be exact, fp32, tf32 or bf16\n");
        return -1;
    }
    return 0;
}

static int fail_input(const oc_diag *d)
{
    fprintf(stderr, "optcert: %s\n", d->msg);
    return 2;
}

/* Reads a whole file into a NUL-terminated string (NULL if it cannot). */
static char *slurp(const char *path)
{
    oc_diag d;
    if (oc_check_regular(path, &d) != OC_OK)
        return NULL;
    FILE *fp = fopen(path, "rb");
    char *b = NULL;
    size_t n = 0, got;
    char buf[4096];
    if (!fp)
        return NULL;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0) {
        b = realloc(b, n + got + 1);
        memcpy(b + n, buf, got);
        n += got;
    }
    fclose(fp);
    if (!b)
        b = calloc(1, 1);
    b[n] = '\0';
    return b;
}

/* VEC-SET-2: names the vector set in the certificate: its manifest's SHA-256, and whether it
 * is the shipped set (the files listed in the shipped vectors/MANIFEST.sha256). */
static int identify_vectors(oc_certificate *cert, const options *o)
{
    char path[4300], *text, *shipped;
    oc_diag d;
    if (oc_manifest_text(o->vectors, &text, &d) != OC_OK)
        return fail_input(&d);
    snprintf(path, sizeof path, "%s/vectors/MANIFEST.sha256", shipped_root());
    shipped = slurp(path);
    oc_sha256_hex(text, strlen(text), cert->vectors_sha256);
    cert->vectors_custom = !shipped || strcmp(shipped, text) != 0;
    free(text);
    free(shipped);
    return 0;
}

static int emit_reports(oc_certificate *cert, const options *o)
{
    if (identify_vectors(cert, o) != 0)
        return 2;
    int table = o->nreports == 0;
    for (int i = 0; i < o->nreports; i++) {
        const char *r = o->reports[i], *colon = strchr(r, ':');
        oc_diag d;
        oc_status st = OC_OK;
        if (strcmp(r, "table") == 0)
            table = 1;
        else if (colon && strncmp(r, "json:", 5) == 0)
            st = oc_report_json(cert, colon + 1, &d);
        else if (colon && strncmp(r, "junit:", 6) == 0)
            st = oc_report_junit(cert, colon + 1, &d);
        else if (colon && strncmp(r, "html:", 5) == 0)
            st = oc_report_html(cert, colon + 1, &d);
        else
            return usage("--report takes table, json:FILE, junit:FILE or html:FILE");
        if (st != OC_OK)
            return fail_input(&d);
    }
    oc_diag d;
    if (o->html && oc_report_html(cert, o->html, &d) != OC_OK)
        return fail_input(&d);
    if (table)
        oc_report_table(cert, stdout, o->verbose);
    return cert->conforms ? 0 : 1;
}

/* A loaded plugin: its v3 table if it exports OC_IMPL_V3_ENTRY_SYMBOL, else its v2 table. */
typedef struct plugin {
    const oc_impl *v2;
    const oc_impl_v3 *v3;
} plugin;

/* VEC-ABI-1: optcert_impl_v3 first, then the v2 entry optcert_impl_v1; the table checked. 0 on
 * success. The handle stays open for the life of the process. */
static int load_plugin(const char *path, plugin *out, oc_diag *d)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    *out = (plugin){NULL, NULL};
    if (!h) {
        oc_fail(d, OC_ERR_IO, "%s: cannot load plugin: %s", path, dlerror());
        return -1;
    }
    oc_impl_v3_entry_fn entry3;
    *(void **)&entry3 = dlsym(h, OC_IMPL_V3_ENTRY_SYMBOL);
    if (entry3) {
        oc_diag why;
        if (!(out->v3 = entry3()))
            return oc_fail(d, OC_ERR_FORMAT, "%s: %s() returned NULL", path,
                           OC_IMPL_V3_ENTRY_SYMBOL), -1;
        if (oc_abi3_check(out->v3, &why) != OC_OK)
            return oc_fail(d, OC_ERR_FORMAT, "%s: %s", path, why.msg), -1;
        return 0;
    }
    oc_impl_entry_fn entry;
    *(void **)&entry = dlsym(h, OC_IMPL_ENTRY_SYMBOL);
    if (!(out->v2 = entry ? entry() : NULL))
        return oc_fail(d, OC_ERR_FORMAT, "%s: no %s() (or %s()), or it returned NULL", path,
                       OC_IMPL_V3_ENTRY_SYMBOL, OC_IMPL_ENTRY_SYMBOL), -1;
    if (out->v2->abi_version != OC_IMPL_ABI_VERSION)
        return oc_fail(d, OC_ERR_UNSUPPORTED, "%s: plugin ABI version %u from %s(), which "
                       "gives version %u tables", path, out->v2->abi_version,
                       OC_IMPL_ENTRY_SYMBOL, OC_IMPL_ABI_VERSION), -1;
    /* VEC-ABI-4: a v2 table is read up to routed_step, its layout when ABI v3 came; the
     * harness never reads past the end of an older plugin's table */
    static oc_impl v2;
    memset(&v2, 0, sizeof v2);
    memcpy(&v2, out->v2, offsetof(oc_impl, te_storage));
    if (oc_abi2_later_caps(&v2))
        return oc_fail(d, OC_ERR_UNSUPPORTED, "%s: its v2 table claims a family added after "
                       "ABI v3 (te-storage, resume or adafactor: capabilities 0x%llx), which "
                       "only a v3 table (%s) can list", path,
                       (unsigned long long)oc_abi2_later_caps(&v2), OC_IMPL_V3_ENTRY_SYMBOL), -1;
    out->v2 = &v2;
    return 0;
}

/* For oc_probe_load: the load alone. */
static int probe_plugin(const char *path, oc_diag *d)
{
    plugin p;
    return load_plugin(path, &p, d);
}

#if defined OPTCERT_FAST_CPU_PLUGIN || defined OPTCERT_FAST_CUDA_PLUGIN
/* A fast backend built as build_path: an installed optcert loads the installed copy,
 * OPTCERT_REL_PLUGINDIR from its directory (cmake/install.cmake). */
static const char *backend_path(const char *build_path)
{
    static char path[8400];
    char dir[4096];
    if (strcmp(shipped_root(), OPTCERT_SOURCE_DIR) == 0 || exe_dir(dir, sizeof dir) != 0)
        return build_path;
    snprintf(path, sizeof path, "%s/%s/%s", dir, OPTCERT_REL_PLUGINDIR,
             strrchr(build_path, '/') + 1);
    return path;
}
#endif

#ifdef OPTCERT_FAST_CUDA_PLUGIN
/* The CUDA backend, after asking it whether a device can run it (FAST-CUDA-DEV-1). */
static void load_fast_cuda(plugin *p, oc_diag *d)
{
    const char *path = backend_path(OPTCERT_FAST_CUDA_PLUGIN);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const char *(*unavailable)(void) = NULL;
    if (h)
        *(void **)&unavailable = dlsym(h, "optcert_fast_cuda_unavailable");
    const char *why = unavailable ? unavailable() : NULL;
    if (why)
        oc_fail(d, OC_ERR_NO_DEVICE, "no CUDA device: %s", why);
    else
        load_plugin(path, p, d);
}
#endif

static int cmd_certify(const options *o)
{
    oc_diag d;
    int is_ref = strcmp(o->impl, "ref") == 0, is_path = 0;
    const oc_impl_v3 *impl = NULL;
    plugin p = {NULL, NULL}; /* a plugin loaded from a file, or the CUDA backend */
    oc_exit_trap_arm(); /* VEC-PLUG-1: from dlopen's constructors to the last case */
    if (is_ref)
        impl = oc_ref();
    else if (strncmp(o->impl, "mutant:", 7) == 0) { /* the reference with a known mistake */
        const char *name = o->impl + 7, *slash = strchr(name, '/');
        for (int a = 0; a < OC_NALGOS && !impl; a++) {
            const oc_algo *al = oc_algos[a];
            if (slash && (strncmp(name, al->name, (size_t)(slash - name)) != 0 ||
                          al->name[slash - name] != '\0'))
                continue;
            for (int mu = 1; mu < al->nmutants && !impl; mu++)
                if (strcmp(slash ? slash + 1 : name, al->mutant_name(mu)) == 0)
                    impl = oc_ref_mutant(al, mu);
        }
        if (!impl)
            oc_fail(&d, OC_ERR_BAD_PROFILE, "unknown mutant '%s' (see optcert mutants)", name);
    }
#ifdef OPTCERT_FAST_CPU_PLUGIN
    else if (strcmp(o->impl, "fast-cpu") == 0) /* the fast CPU backend (fast/cpu) */
        load_plugin(backend_path(OPTCERT_FAST_CPU_PLUGIN), &p, &d);
#endif
#ifdef OPTCERT_FAST_CUDA_PLUGIN
    else if (strcmp(o->impl, "fast-cuda") == 0) /* the CUDA backend (fast/cuda) */
        load_fast_cuda(&p, &d);
#else
    else if (strcmp(o->impl, "fast-cuda") == 0)
        oc_fail(&d, OC_ERR_NO_DEVICE, "no CUDA device: this optcert was built without the CUDA "
                "backend (CMake found no CUDA compiler)");
#endif
    else { /* VEC-PLUG-5: loaded first in a child, unless isolation is off */
        struct stat sb; /* a FIFO or a directory is refused before dlopen reads it */
        is_path = 1;
        if (stat(o->impl, &sb) == 0 && !S_ISREG(sb.st_mode))
            oc_fail(&d, OC_ERR_IO, "%s: not a regular file (--impl)", o->impl);
        else if (o->no_isolation || oc_probe_load(&o->iso, o->impl, probe_plugin, &d) == OC_OK)
            load_plugin(o->impl, &p, &d);
    }
    if (p.v3)
        impl = p.v3;
    if (!impl && !p.v2) {
        oc_exit_trap_disarm();
        return fail_input(&d);
    }
    oc_class cls = is_ref ? OC_CLASS_EXACT : OC_CLASS_FP32;
    if (o->cls)
        oc_class_parse(o->cls, &cls);
    oc_certificate cert;
    /* A plugin given by path runs in child processes (VEC-PLUG-1); the rest are ours. */
    const oc_isolation *iso = is_path && !o->no_isolation ? &o->iso : NULL;
    oc_status s = impl ? oc_certify_v3(impl, o->vectors, o->family, cls, iso, &cert, &d)
                       : oc_certify_v2(p.v2, o->vectors, o->family, cls, iso, &cert, &d);
    oc_exit_trap_disarm();
    if (s != OC_OK) {
        oc_certificate_free(&cert);
        return fail_input(&d);
    }
    int rc = emit_reports(&cert, o);
    oc_certificate_free(&cert);
    return rc;
}

static int cmd_judge(const options *o)
{
    oc_diag d;
    if (!o->results)
        return usage("judge needs --results FILE");
    oc_class cls = OC_CLASS_FP32;
    if (o->cls)
        oc_class_parse(o->cls, &cls);
    oc_certificate cert;
    if (oc_judge_results(o->results, o->vectors, o->family, cls, &cert, &d) != OC_OK) {
        oc_certificate_free(&cert);
        return fail_input(&d);
    }
    int rc = emit_reports(&cert, o);
    oc_certificate_free(&cert);
    return rc;
}

static int cmd_families(const options *o)
{
    oc_diag d;
    char **paths;
    if (oc_family_list(o->vectors, &paths, &d) != OC_OK)
        return fail_input(&d);
    int rc = 0, wn = 6, wp = 20; /* the name column as wide as the longest name */
    for (size_t i = 0; paths[i]; i++) {
        int len = (int)strlen(strrchr(paths[i], '/') + 1) - 5; /* DIR/NAME/NAME.json */
        wn = len > wn ? len : wn;
    }
    printf("%-*s %-*s %6s %6s %8s %10s  %s\n", wn, "family", wp, "profile", "valid", "invalid",
           "accept.", "elem-steps", "spec rules");
    for (size_t i = 0; paths[i] && rc == 0; i++) {
        oc_family fam;
        if (oc_family_load(paths[i], &fam, &d) != OC_OK) {
            rc = fail_input(&d);
            break;
        }
        size_t count[3] = {0}, work = 0;
        for (size_t k = 0; k < fam.ncases; k++) {
            count[fam.cases[k].result]++;
            work += fam.cases[k].steps * fam.cases[k].n;
        }
        printf("%-*s %-*s %6zu %6zu %8zu %10zu  ", wn, fam.name, wp, fam.profile, count[0], count[1],
               count[2], work);
        size_t j;
        json_t *r;
        json_array_foreach(json_object_get(fam.doc, "specRules"), j, r)
            printf("%s%s", j ? " " : "", json_string_value(r));
        printf("\n");
        oc_family_free(&fam);
    }
    oc_free_list(paths);
    return rc;
}

/* Whether mutant mu of algorithm a gives bit-identical results to the reference on every case
 * of the family at path: then it does not apply to that profile (e.g. AMSGrad mistakes where
 * there is no AMSGrad). */
static int mutant_equivalent(const oc_algo *a, int mu, const char *path)
{
    oc_family fam;
    oc_diag d;
    int same = 1;
    if (oc_family_load(path, &fam, &d) != OC_OK)
        return 0;
    for (size_t k = 0; k < fam.ncases && same; k++) {
        const oc_case *c = &fam.cases[k];
        oc_outputs x, y;
        oc_status sx, sy;
        int dirty;
        oc_run_case(oc_ref(), c, &x, &sx, &dirty);
        oc_run_case(oc_ref_mutant(a, mu), c, &y, &sy, &dirty);
        same = sx == sy;
        for (int s = 0; s < c->nstate && same && sx == OC_OK; s++)
            same = memcmp(x.out[s], y.out[s], c->steps * c->n * sizeof(double)) == 0;
        oc_outputs_free(&x);
        oc_outputs_free(&y);
    }
    oc_family_free(&fam);
    return same;
}

/* The width of a family's column in the kill matrix: its name, at least 12. */
static int column(const char *family) { return strlen(family) > 12 ? (int)strlen(family) : 12; }

/* Prints one algorithm's kill matrix; returns the number of surviving mutants, -1 on bad input. */
static int kill_matrix(const oc_algo *a, const options *o)
{
    int survivors = 0, header = 0;
    for (int mu = 1; mu < a->nmutants; mu++) {
        oc_certificate cert;
        oc_diag d;
        if (oc_certify(oc_ref_mutant(a, mu), o->vectors, o->family, OC_CLASS_FP32, &cert, &d) !=
            OC_OK) {
            oc_certificate_free(&cert);
            fprintf(stderr, "optcert: %s\n", d.msg);
            return -1;
        }
        size_t mine = 0;
        for (size_t f = 0; f < cert.nfams; f++)
            mine += strcmp(cert.fams[f].algorithm, a->name) == 0;
        if (mine == 0 && o->family) { /* --family selected another algorithm */
            oc_certificate_free(&cert);
            return 0;
        }
        if (!header) {
            printf("\n%s\n%-34s", a->name, "mutant");
            for (size_t f = 0; f < cert.nfams; f++)
                if (strcmp(cert.fams[f].algorithm, a->name) == 0)
                    printf(" %*s", column(cert.fams[f].name), cert.fams[f].name);
            printf(" %6s %11s  verdict\n", "kills", "worst/bound");
            header = 1;
        }
        size_t total = 0;
        int survived = 0, named = 0;
        double worst = 0; /* the largest error over the bound among the killing cases */
        printf("%-34s", a->mutant_name(mu));
        for (size_t f = 0; f < cert.nfams; f++) /* VEC-DIAG-1: named in some case it fails */
            for (size_t k = 0; k < cert.fams[f].ncases; k++) {
                const char *dg = cert.fams[f].cases[k].diagnosis;
                named |= dg && strcmp(dg, a->mutant_name(mu)) == 0;
            }
        for (size_t f = 0; f < cert.nfams; f++) {
            const oc_family_report *fr = &cert.fams[f];
            char path[4096];
            if (strcmp(fr->algorithm, a->name) != 0)
                continue;
            snprintf(path, sizeof path, "%s/%s/%s.json", o->vectors, fr->name, fr->name);
            total += fr->counts[OC_FAIL];
            for (size_t k = 0; k < fr->ncases; k++)
                if (fr->cases[k].verdict == OC_FAIL)
                    worst = fmax(worst, fr->cases[k].max_ratio);
            if (fr->counts[OC_FAIL])
                printf(" %*zu", column(fr->name), fr->counts[OC_FAIL]);
            else if (mutant_equivalent(a, mu, path))
                printf(" %*s", column(fr->name), "n/a");
            else {
                printf(" %*s", column(fr->name), "SURVIVED");
                survived = 1;
            }
        }
        survived |= total < 2; /* issue 19 item 5: at least two cases kill each mistake */
        int unnamed = !survived && !named && !o->family;
        printf(" %6zu %11.3g  %s\n", total, worst,
               total == 0 ? "SURVIVED"
               : survived ? "KILLED ONCE"
               : unnamed  ? "NEVER NAMED"
                          : "killed");
        survivors += survived || unnamed;
        oc_certificate_free(&cert);
    }
    return survivors;
}

/* optcert mutants: every catalogued mistake (the mutant tables of spec/) must be rejected in
 * every family where it changes any result, and named by the diagnosis (VEC-DIAG-1). */
static int cmd_mutants(const options *o)
{
    int survivors = 0, total = 0;
    printf("kill matrix: cases failed under the fp32 class (n/a: the mistake changes no result "
           "of that profile); kills: cases failed in all; worst/bound: the largest error over "
           "its bound in a failed case (class fp32: fp64 for the schedules; inf where an exact quantity or a non-finite value is "
           "wrong); every mistake must be killed by at least two cases and, over all families, "
           "named (\"behaves like\" it) in one\n");
    for (int a = 0; a < OC_NALGOS; a++) {
        int s = kill_matrix(oc_algos[a], o);
        if (s < 0)
            return 2;
        survivors += s;
        total += oc_algos[a]->nmutants - 1;
    }
    printf("\n%d of %d mutants killed by at least two cases%s\n", total - survivors, total,
           o->family ? "" : " and named");
    return survivors ? 1 : 0;
}

/* VEC-FMT-8: the regeneration is the generator's (MPFR), which this program does not link:
 * `optcert vectors verify` runs `optcert-gen verify` from the directory of this executable
 * with the same vector directory and precision, and exits with its status. */
static int cmd_verify(const options *o)
{
    char self[4096], gen[4200], prec[32];
    if (exe_dir(self, sizeof self) != 0) {
        fprintf(stderr, "optcert: cannot find the directory of this executable\n");
        return 2;
    }
    snprintf(gen, sizeof gen, "%s/optcert-gen", self);
    snprintf(prec, sizeof prec, "%ld", o->precision);
    fflush(stdout);
    execl(gen, gen, "verify", "--vectors", o->vectors, "--precision", prec, (char *)NULL);
    fprintf(stderr, "optcert: vectors verify runs %s, which cannot be started\n", gen);
    return 2;
}

/* optcert vectors manifest: VEC-SET-1's manifest of the families under --vectors. */
static int cmd_manifest(const options *o)
{
    char *text;
    oc_diag d;
    if (oc_manifest_text(o->vectors, &text, &d) != OC_OK)
        return fail_input(&d);
    fputs(text, stdout);
    free(text);
    return 0;
}

/* optcert vectors check: the files under --vectors against its MANIFEST.sha256 (VEC-SET-1):
 * 0 when they match, 1 naming every line that differs, 2 without a manifest. */
static int cmd_check(const options *o)
{
    char path[4096], *text, *want;
    oc_diag d;
    snprintf(path, sizeof path, "%s/MANIFEST.sha256", o->vectors);
    if (!(want = slurp(path))) {
        fprintf(stderr, "optcert: %s: cannot read the manifest\n", path);
        return 2;
    }
    if (oc_manifest_text(o->vectors, &text, &d) != OC_OK) {
        free(want);
        return fail_input(&d);
    }
    int rc = strcmp(text, want) != 0;
    for (int pass = 0; rc && pass < 2; pass++) { /* lines only in one of the two */
        const char *a = pass ? want : text, *b = pass ? text : want;
        for (const char *line = a; *line;) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line + 1) : strlen(line);
            int found = 0;
            for (const char *p = b; !found && *p;) {
                const char *e = strchr(p, '\n');
                size_t l = e ? (size_t)(e - p + 1) : strlen(p);
                found = l == len && memcmp(p, line, len) == 0;
                p += l;
            }
            if (!found)
                printf("%s %.*s\n", pass ? "manifest only:" : "files only:   ",
                       (int)(len - (line[len - 1] == '\n')), line);
            line += len;
        }
    }
    printf("%s: %s\n", path, rc ? "DOES NOT MATCH the files" : "matches the files");
    free(text);
    free(want);
    return rc;
}

/* Whether the vector directory exists; if not, says so (exit 2 follows). */
static int is_directory(const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        fprintf(stderr, "optcert: %s: no such directory (--vectors)\n", dir);
        return 0;
    }
    if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "optcert: %s: not a directory (--vectors)\n", dir);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    if (argc < 2)
        return usage(NULL);
    const char *cmd = argv[1];
    int first = 2;
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0)
        return usage_to(stdout, NULL);
    if (strcmp(cmd, "vectors") == 0) {
        if (argc < 3 || (strcmp(argv[2], "verify") != 0 && strcmp(argv[2], "manifest") != 0 &&
                         strcmp(argv[2], "check") != 0))
            return usage("unknown vectors subcommand");
        first = 3;
    }
    const char *rule = NULL; /* explain's RULE-ID */
    if (strcmp(cmd, "explain") == 0 && argc > 2 && argv[2][0] != '-') {
        rule = argv[2];
        first = 3;
    }
    int parsed = parse(argc, argv, first, &o);
    if (parsed != 0)
        return parsed > 0 ? usage_to(stdout, NULL) : usage(NULL);
    if (o.family && oc_family_renamed(o.family)) {
        fprintf(stderr, "optcert: family '%s' is now named '%s' (VEC-NAME-1)\n", o.family,
                oc_family_renamed(o.family));
        return 2;
    }
    int on_tree = strcmp(cmd, "trace") == 0 || strcmp(cmd, "explain") == 0;
    if (!on_tree && !is_directory(o.vectors))
        return 2; /* every command but trace and explain reads the vector directory */
    if (strcmp(cmd, "families") == 0)
        return cmd_families(&o);
    if (strcmp(cmd, "certify") == 0)
        return cmd_certify(&o);
    if (strcmp(cmd, "judge") == 0)
        return cmd_judge(&o);
    if (strcmp(cmd, "mutants") == 0)
        return cmd_mutants(&o);
    if (strcmp(cmd, "selftest") == 0) {
        oc_diag d;
        int rc = oc_selftest(o.vectors, o.family, stdout, &d);
        return rc < 0 ? fail_input(&d) : rc;
    }
    if (strcmp(cmd, "vectors") == 0 && strcmp(argv[2], "manifest") == 0)
        return cmd_manifest(&o);
    if (strcmp(cmd, "vectors") == 0 && strcmp(argv[2], "check") == 0)
        return cmd_check(&o);
    if (strcmp(cmd, "vectors") == 0)
        return cmd_verify(&o);
    if (strcmp(cmd, "trace") == 0) {
        int p = oc_trace(o.root, o.locations, stdout);
        return p < 0 ? 2 : p > 0;
    }
    if (strcmp(cmd, "explain") == 0) {
        if (!rule)
            return usage("explain needs a RULE-ID (as defined in spec/*.md: optcert trace lists them)");
        return oc_explain(o.root, rule, stdout, stderr) < 0 ? 2 : 0;
    }
    return usage("unknown command");
}
