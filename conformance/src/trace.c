#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"

#define MAX_RULES 512
enum { IN_IMPL, IN_VECTORS, IN_TESTS, NWHERE };

typedef struct rule {
    char id[48];
    char file[64];
    int cited[NWHERE];
} rule;

typedef struct trace {
    rule rules[MAX_RULES];
    int nrules;
    char prefixes[16][16];
    int nprefixes;
    int problems;
    FILE *out;
} trace;

static int is_id_char(int c) { return isupper(c) || isdigit(c) || c == '-'; }

/* Reads the rule-shaped token at s (PREFIX-...-X); returns its length or 0. */
static size_t id_at(const char *s)
{
    size_t n = 0;
    int dashes = 0;
    if (!isupper((unsigned char)s[0]))
        return 0;
    while (is_id_char((unsigned char)s[n])) {
        dashes += s[n] == '-';
        n++;
    }
    while (n > 0 && s[n - 1] == '-') {
        n--;
        dashes--;
    }
    return dashes >= 2 ? n : 0;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) == (size_t)n)
        b[n] = '\0';
    else {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static rule *find(trace *t, const char *id, size_t len)
{
    for (int i = 0; i < t->nrules; i++)
        if (strlen(t->rules[i].id) == len && strncmp(t->rules[i].id, id, len) == 0)
            return &t->rules[i];
    return NULL;
}

static int known_prefix(const trace *t, const char *s)
{
    for (int i = 0; i < t->nprefixes; i++) {
        size_t l = strlen(t->prefixes[i]);
        if (strncmp(s, t->prefixes[i], l) == 0 && s[l] == '-')
            return 1;
    }
    return 0;
}

/* Definitions are "**ID**" in the Markdown files of spec/. */
static void collect_definitions(trace *t, const char *path, const char *name)
{
    char *text = slurp(path);
    for (char *s = text; s && (s = strstr(s, "**")); s += 2) {
        size_t n = id_at(s + 2);
        if (n && strncmp(s + 2 + n, "**", 2) == 0 && t->nrules < MAX_RULES &&
            !find(t, s + 2, n)) {
            rule *r = &t->rules[t->nrules++];
            memset(r, 0, sizeof *r);
            snprintf(r->id, sizeof r->id, "%.*s", (int)n, s + 2);
            snprintf(r->file, sizeof r->file, "%s", name);
            size_t p = strcspn(r->id, "-");
            int seen = 0;
            for (int i = 0; i < t->nprefixes; i++)
                seen |= strlen(t->prefixes[i]) == p && strncmp(t->prefixes[i], r->id, p) == 0;
            if (!seen && t->nprefixes < 16 && p < 16) {
                memcpy(t->prefixes[t->nprefixes], r->id, p);
                t->prefixes[t->nprefixes++][p] = '\0';
            }
        }
        if (!s)
            break;
    }
    free(text);
}

/* Marks citations in one file; reports citations of undefined rules. */
static void scan_citations(trace *t, const char *path, int where)
{
    char *text = slurp(path);
    for (char *s = text; s && *s; s++) {
        if ((s != text && is_id_char((unsigned char)s[-1])) || !known_prefix(t, s))
            continue;
        size_t n = id_at(s);
        if (!n)
            continue;
        rule *r = find(t, s, n);
        if (r)
            r->cited[where] = 1;
        else if (!isalpha((unsigned char)s[n]) && s[n] != '_') {
            fprintf(t->out, "  undefined rule %.*s cited in %s\n", (int)n, s, path);
            t->problems++;
        }
        s += n - 1;
    }
    free(text);
}

static int scan_dir(trace *t, const char *root, const char *sub, const char *ext, int where,
                    int definitions)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    DIR *dp = opendir(dir);
    if (!dp)
        return -1;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name), el = strlen(ext);
        char path[8192];
        if (e->d_name[0] == '.' || l <= el || strcmp(e->d_name + l - el, ext) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (definitions)
            collect_definitions(t, path, e->d_name);
        else
            scan_citations(t, path, where);
    }
    closedir(dp);
    return 0;
}

/* Case-level specRules of every committed vector file. */
static void scan_vectors(trace *t, const char *root)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/vectors", root);
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        char path[8192];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s.json", dir, e->d_name, e->d_name);
        json_t *doc = json_load_file(path, 0, NULL), *g, *c, *r;
        size_t i, j, k;
        json_array_foreach(json_object_get(doc, "testGroups"), i, g)
            json_array_foreach(json_object_get(g, "tests"), j, c)
                json_array_foreach(json_object_get(c, "specRules"), k, r) {
                    const char *id = json_string_value(r);
                    rule *ru = id ? find(t, id, strlen(id)) : NULL;
                    if (ru)
                        ru->cited[IN_VECTORS] = 1;
                    else {
                        fprintf(t->out, "  undefined rule %s cited in %s\n", id ? id : "?", path);
                        t->problems++;
                    }
                }
        json_decref(doc);
    }
    if (dp)
        closedir(dp);
}

/* Tolerance and format rules are implemented by the generator and the harness. */
static int harness_rule(const rule *r)
{
    return strncmp(r->id, "VEC-", 4) == 0 || strstr(r->id, "-TOL-") != NULL;
}

/* The fast backends and the layouts (spec/fast.md, spec/layouts.md): implemented under fast/,
 * checked by fast/tests (bit-identity, layout maps), not by vector files. */
static const char *const fast_impl_dirs[][2] = {
    {"fast/common", ".h"}, {"fast/include/optcert", ".h"}, {"fast/cpu", ".c"},
    {"fast/cpu", ".inc"}, {"fast/comm", ".c"}, {"fast/layout", ".c"},
    {"fast/cuda", ".c"}, {"fast/cuda", ".cu"}, {"fast/cuda", ".h"}};

static int backend_rule(const rule *r)
{
    return strncmp(r->id, "FAST-", 5) == 0 || strncmp(r->id, "LAYOUT-", 7) == 0;
}

int oc_trace(const char *root, FILE *out)
{
    trace *t = calloc(1, sizeof *t);
    t->out = out;
    if (scan_dir(t, root, "spec", ".md", 0, 1) != 0 || t->nrules == 0) {
        fprintf(out, "%s/spec: no rules found\n", root);
        free(t);
        return -1;
    }
    scan_dir(t, root, "ref", ".c", IN_IMPL, 0);
    scan_dir(t, root, "include/optcert", ".h", IN_IMPL, 0);
    for (int i = 0; i < (int)(sizeof fast_impl_dirs / sizeof *fast_impl_dirs); i++)
        scan_dir(t, root, fast_impl_dirs[i][0], fast_impl_dirs[i][1], IN_IMPL, 0);
    rule saved[MAX_RULES];
    memcpy(saved, t->rules, sizeof saved);
    scan_dir(t, root, "vectors/gen", ".c", IN_IMPL, 0);
    scan_dir(t, root, "conformance/src", ".c", IN_IMPL, 0);
    for (int i = 0; i < t->nrules; i++) /* only harness rules may be implemented there */
        if (!harness_rule(&t->rules[i]))
            t->rules[i].cited[IN_IMPL] = saved[i].cited[IN_IMPL];
    scan_dir(t, root, "conformance/tests", ".c", IN_TESTS, 0);
    scan_dir(t, root, "conformance/tests/hostile", ".c", IN_TESTS, 0);
    scan_dir(t, root, "fast/tests", ".c", IN_TESTS, 0);
    scan_dir(t, root, "fast/cuda/tests", ".c", IN_TESTS, 0);
    scan_vectors(t, root);

    fprintf(out, "%-22s %-12s %-6s %-8s %-6s\n", "rule", "spec", "impl", "vectors", "tests");
    for (int i = 0; i < t->nrules; i++) {
        rule *r = &t->rules[i];
        int need_vec = strncmp(r->id, "VEC-", 4) != 0 && !backend_rule(r);
        int ok = r->cited[IN_IMPL] && r->cited[IN_TESTS] && (!need_vec || r->cited[IN_VECTORS]);
        fprintf(out, "%-22s %-12s %-6s %-8s %-6s%s\n", r->id, r->file,
                r->cited[IN_IMPL] ? "yes" : "NO",
                need_vec ? (r->cited[IN_VECTORS] ? "yes" : "NO") : "n/a",
                r->cited[IN_TESTS] ? "yes" : "NO", ok ? "" : "   <-- missing");
        t->problems += !ok;
    }
    int problems = t->problems;
    fprintf(out, "\n%d rules, %d problem(s)\n", t->nrules, problems);
    free(t);
    return problems;
}
