#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "trace.h"

/* Where a rule is cited. IN_HARNESS (vectors/gen, conformance/src) counts as IN_IMPL for the
 * tolerance and format rules only (harness_rule). */
enum { IN_IMPL, IN_VECTORS, IN_TESTS, IN_HARNESS, NWHERE };

typedef struct rule {
    char id[48];
    char file[64]; /* its spec page */
    long line;     /* of its definition */
    int cited[NWHERE];
} rule;

/* One citation: a line of a source file, or a vector case. */
typedef struct site {
    int rule, where;
    char *file; /* relative to the root; for a vector case, its family */
    long line;  /* from 1; for a vector case, its tcId */
    char *text; /* the line without surrounding blanks; for a vector case, its comment */
} site;

typedef struct trace {
    rule *rules;
    size_t nrules, maxrules;
    char (*prefixes)[48]; /* the distinct PREFIX of every PREFIX-... rule */
    size_t nprefixes, maxprefixes;
    site *sites;
    size_t nsites, maxsites;
    int problems;
    int unreadable; /* files refused as not regular (exit 2) */
    FILE *out; /* where undefined citations are reported; NULL: not reported */
} trace;

/* Room for element n of the array *p of capacity *cap; the new element is zeroed. */
static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        p = realloc(p, *cap * size);
        if (!p) {
            fprintf(stderr, "optcert: out of memory\n");
            exit(2);
        }
    }
    memset((char *)p + n * size, 0, size);
    return p;
}

static char *copy(const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (!c) {
        fprintf(stderr, "optcert: out of memory\n");
        exit(2);
    }
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

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

/* Whether path is a regular file. One that exists but is not (a FIFO would block the read, a
 * directory has no text) is refused: reported on stderr and counted (issue 18 item 3). */
static int regular(trace *t, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    if (S_ISREG(sb.st_mode))
        return 1;
    fprintf(stderr, "optcert: %s: not a regular file\n", path);
    if (t)
        t->unreadable++;
    return 0;
}

static char *slurp(trace *t, const char *path)
{
    FILE *f = regular(t, path) ? fopen(path, "rb") : NULL;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
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
    for (size_t i = 0; i < t->nrules; i++)
        if (strlen(t->rules[i].id) == len && strncmp(t->rules[i].id, id, len) == 0)
            return &t->rules[i];
    return NULL;
}

static int known_prefix(const trace *t, const char *s)
{
    for (size_t i = 0; i < t->nprefixes; i++) {
        size_t l = strlen(t->prefixes[i]);
        if (strncmp(s, t->prefixes[i], l) == 0 && s[l] == '-')
            return 1;
    }
    return 0;
}

/* Tolerance and format rules are implemented by the generator and the harness. */
static int harness_rule(const rule *r)
{
    return strncmp(r->id, "VEC-", 4) == 0 || strstr(r->id, "-TOL-") != NULL;
}

/* The fast backends, the layouts and the checkpoints (spec/fast.md, spec/layouts.md,
 * spec/checkpoint.md): implemented under fast/, checked by fast/tests (bit-identity, layout
 * maps, resumed trajectories), not by vector files. */
static const char *const fast_impl_dirs[][2] = {
    {"fast/common", ".h"}, {"fast/include/optcert", ".h"}, {"fast/cpu", ".c"},
    {"fast/cpu", ".inc"}, {"fast/comm", ".c"}, {"fast/layout", ".c"},
    {"fast/checkpoint", ".c"}, {"fast/cuda", ".c"}, {"fast/cuda", ".cu"}, {"fast/cuda", ".h"}};

static int backend_rule(const rule *r)
{
    return strncmp(r->id, "FAST-", 5) == 0 || strncmp(r->id, "LAYOUT-", 7) == 0 ||
           strncmp(r->id, "CKPT-", 5) == 0;
}

/* Whether the rule must be exercised by a vector case (algorithm rules). */
static int needs_vectors(const rule *r) { return strncmp(r->id, "VEC-", 4) != 0 && !backend_rule(r); }

/* Records a citation of r; text[0..len) is trimmed of surrounding blanks. */
static void cite(trace *t, rule *r, int where, const char *file, long line, const char *text,
                 size_t len)
{
    if (where == IN_HARNESS) {
        if (!harness_rule(r))
            return; /* only harness rules may be implemented there */
        where = IN_IMPL;
    }
    r->cited[where] = 1;
    while (len && isspace((unsigned char)text[0])) {
        text++;
        len--;
    }
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    t->sites = grow(t->sites, &t->maxsites, t->nsites, sizeof *t->sites);
    site *s = &t->sites[t->nsites++];
    *s = (site){(int)(r - t->rules), where, copy(file, strlen(file)), line, copy(text, len)};
}

/* Definitions are "**ID**" in the Markdown files of spec/ (the first occurrence). */
static void collect_definitions(trace *t, const char *path, const char *name)
{
    char *text = slurp(t, path);
    const char *counted = text;
    long line = 1;
    for (char *s = text; s && (s = strstr(s, "**")); s += 2) {
        size_t n = id_at(s + 2);
        if (!n || strncmp(s + 2 + n, "**", 2) != 0 || find(t, s + 2, n))
            continue;
        for (; counted < s; counted++)
            line += *counted == '\n';
        t->rules = grow(t->rules, &t->maxrules, t->nrules, sizeof *t->rules);
        rule *r = &t->rules[t->nrules++];
        snprintf(r->id, sizeof r->id, "%.*s", (int)n, s + 2);
        snprintf(r->file, sizeof r->file, "%s", name);
        r->line = line;
        size_t p = strcspn(r->id, "-");
        int seen = 0;
        for (size_t i = 0; i < t->nprefixes; i++)
            seen |= strlen(t->prefixes[i]) == p && strncmp(t->prefixes[i], r->id, p) == 0;
        if (!seen) {
            t->prefixes = grow(t->prefixes, &t->maxprefixes, t->nprefixes, sizeof *t->prefixes);
            memcpy(t->prefixes[t->nprefixes++], r->id, p);
        }
    }
    free(text);
}

/* Records the citations in path (rel: relative to the root) with their lines; reports citations
 * of undefined rules. */
static void scan_citations(trace *t, const char *path, const char *rel, int where)
{
    char *text = slurp(t, path);
    const char *bol = text; /* the beginning of the current line */
    long line = 1;
    for (char *s = text; s && *s; s++) {
        if (*s == '\n') {
            line++;
            bol = s + 1;
            continue;
        }
        if ((s != text && is_id_char((unsigned char)s[-1])) || !known_prefix(t, s))
            continue;
        size_t n = id_at(s);
        if (!n)
            continue;
        rule *r = find(t, s, n);
        if (r)
            cite(t, r, where, rel, line, bol, strcspn(bol, "\n"));
        else if (!isalpha((unsigned char)s[n]) && s[n] != '_') {
            if (t->out)
                fprintf(t->out, "  undefined rule %.*s cited in %s:%ld\n", (int)n, s, rel, line);
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
        char path[8192], rel[4096];
        if (e->d_name[0] == '.' || l <= el || strcmp(e->d_name + l - el, ext) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(rel, sizeof rel, "%s/%s", sub, e->d_name);
        if (definitions)
            collect_definitions(t, path, e->d_name);
        else
            scan_citations(t, path, rel, where);
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
        json_t *doc = regular(t, path) ? json_load_file(path, 0, NULL) : NULL, *g, *c, *r;
        size_t i, j, k;
        json_array_foreach(json_object_get(doc, "testGroups"), i, g)
            json_array_foreach(json_object_get(g, "tests"), j, c) {
                long tc = (long)json_integer_value(json_object_get(c, "tcId"));
                const char *comment = json_string_value(json_object_get(c, "comment"));
                json_array_foreach(json_object_get(c, "specRules"), k, r) {
                    const char *id = json_string_value(r);
                    rule *ru = id ? find(t, id, strlen(id)) : NULL;
                    if (ru)
                        cite(t, ru, IN_VECTORS, e->d_name, tc, comment ? comment : "",
                             comment ? strlen(comment) : 0);
                    else {
                        if (t->out)
                            fprintf(t->out, "  undefined rule %s cited in %s tcId %ld\n",
                                    id ? id : "?", path, tc);
                        t->problems++;
                    }
                }
            }
        json_decref(doc);
    }
    if (dp)
        closedir(dp);
}

/* By rule, kind of citation, file (the reference, ref/, first), line. */
static int site_order(const void *a, const void *b)
{
    const site *x = a, *y = b;
    int c, xref = strncmp(x->file, "ref/", 4) == 0, yref = strncmp(y->file, "ref/", 4) == 0;
    if (x->rule != y->rule)
        return x->rule < y->rule ? -1 : 1;
    if (x->where != y->where)
        return x->where < y->where ? -1 : 1;
    if (xref != yref)
        return yref - xref;
    if ((c = strcmp(x->file, y->file)) != 0)
        return c;
    return (x->line > y->line) - (x->line < y->line);
}

static void release(trace *t)
{
    for (size_t i = 0; i < t->nsites; i++) {
        free(t->sites[i].file);
        free(t->sites[i].text);
    }
    free(t->sites);
    free(t->rules);
    free(t->prefixes);
    free(t);
}

/* Every definition and citation under root, the sites in site_order; NULL if spec/ has no rule.
 * Undefined citations are reported on out unless it is NULL. */
static trace *load(const char *root, FILE *out)
{
    trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->out = out;
    if (scan_dir(t, root, "spec", ".md", 0, 1) != 0 || t->nrules == 0) {
        release(t);
        return NULL;
    }
    scan_dir(t, root, "ref", ".c", IN_IMPL, 0);
    scan_dir(t, root, "include/optcert", ".h", IN_IMPL, 0);
    for (int i = 0; i < (int)(sizeof fast_impl_dirs / sizeof *fast_impl_dirs); i++)
        scan_dir(t, root, fast_impl_dirs[i][0], fast_impl_dirs[i][1], IN_IMPL, 0);
    scan_dir(t, root, "vectors/gen", ".c", IN_HARNESS, 0);
    scan_dir(t, root, "conformance/src", ".c", IN_HARNESS, 0);
    scan_dir(t, root, "conformance/tests", ".c", IN_TESTS, 0);
    scan_dir(t, root, "conformance/tests/hostile", ".c", IN_TESTS, 0);
    scan_dir(t, root, "conformance/tests/hostile/wrap", ".c", IN_TESTS, 0);
    scan_dir(t, root, "fast/tests", ".c", IN_TESTS, 0);
    scan_dir(t, root, "fast/cuda/tests", ".c", IN_TESTS, 0);
    scan_vectors(t, root);
    if (t->nsites) /* qsort(NULL, 0) is undefined: a tree with no citation */
        qsort(t->sites, t->nsites, sizeof *t->sites, site_order);
    return t;
}

/* Whether the rule is implemented, tested and (where needed) exercised by a vector case. */
static int complete(const rule *r)
{
    return r->cited[IN_IMPL] && r->cited[IN_TESTS] && (!needs_vectors(r) || r->cited[IN_VECTORS]);
}

int oc_trace(const char *root, int locations, FILE *out)
{
    trace *t = load(root, out);
    if (!t || t->unreadable) {
        if (t)
            release(t);
        else
            fprintf(out, "%s/spec: no rules found\n", root);
        return -1;
    }
    const site *first = t->sites, *end = t->sites + t->nsites;
    fprintf(out, "%-22s %-12s %-6s %-8s %-6s%s\n", "rule", "spec", "impl", "vectors", "tests",
            locations ? " implemented at" : "");
    for (size_t i = 0; i < t->nrules; i++) {
        rule *r = &t->rules[i];
        int ok = complete(r);
        fprintf(out, "%-22s %-12s %-6s %-8s %-6s", r->id, r->file, r->cited[IN_IMPL] ? "yes" : "NO",
                needs_vectors(r) ? (r->cited[IN_VECTORS] ? "yes" : "NO") : "n/a",
                r->cited[IN_TESTS] ? "yes" : "NO");
        while (first < end && first->rule < (int)i)
            first++;
        if (locations && first < end && first->rule == (int)i && first->where == IN_IMPL)
            fprintf(out, " %s:%ld", first->file, first->line);
        else if (locations)
            fprintf(out, " -");
        fprintf(out, "%s\n", ok ? "" : "   <-- missing");
        t->problems += !ok;
    }
    int problems = t->problems;
    fprintf(out, "\n%zu rules, %d problem(s)\n", t->nrules, problems);
    release(t);
    return problems;
}

/* Whether the line at s is indented (continues a Markdown list item). */
static int indented(const char *s) { return (*s == ' ' || *s == '\t') && s[strspn(s, " \t")] != '\n'; }

/* The definition's bullet: its line and the lines that continue it (indented, possibly after
 * blank lines, as a Markdown list item continues). */
static void print_definition(const char *root, const rule *r, FILE *out)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/spec/%s", root, r->file);
    char *text = slurp(NULL, path);
    const char *s = text;
    for (long l = 1; s && l < r->line; l++)
        s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
    fprintf(out, "%s  spec/%s:%ld\n", r->id, r->file, r->line);
    for (int first = 1; s && *s; first = 0) {
        const char *next = s + strspn(s, " \t\n"); /* the next non-blank line, or the end */
        while (next > s && next[-1] != '\n')
            next--;
        if (!first && !indented(next))
            break;
        for (; s <= next && *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] == '\n'))
            fprintf(out, "%s%.*s\n", *s == '\n' ? "" : "  ", (int)strcspn(s, "\n"), s);
    }
    free(text);
}

/* The citations of one kind in [from, to), without repeats (a line citing the rule twice). */
static void print_sites(const site *from, const site *to, int where, const char *what,
                        const char *unit, const char *none, FILE *out)
{
    size_t n = 0;
    for (const site *s = from; s < to; s++)
        n += s->where == where && (s == from || site_order(s - 1, s) != 0);
    if (n == 0) {
        fprintf(out, "\n%s: %s\n", what, none);
        return;
    }
    fprintf(out, "\n%s (%zu %s):\n", what, n, unit);
    for (const site *s = from; s < to; s++) {
        if (s->where != where || (s != from && site_order(s - 1, s) == 0))
            continue;
        if (where == IN_VECTORS)
            fprintf(out, "  %-28s tcId %-4ld %s\n", s->file, s->line, s->text);
        else
            fprintf(out, "  %s:%ld: %s\n", s->file, s->line, s->text);
    }
}

/* An unknown id: says so, with the rules of the same prefix (or the prefixes). */
static void suggest(const trace *t, const char *id, FILE *err)
{
    size_t p = strcspn(id, "-"), n = 0;
    fprintf(err, "optcert: no rule %s is defined in spec/*.md\n", id);
    for (size_t i = 0; i < t->nrules; i++)
        if (strcspn(t->rules[i].id, "-") == p && strncasecmp(t->rules[i].id, id, p) == 0)
            fprintf(err, "%s%s", n++ ? " " : "  rules with that prefix: ", t->rules[i].id);
    if (n == 0)
        for (size_t i = 0; i < t->nprefixes; i++)
            fprintf(err, "%s%s", i ? " " : "  rule prefixes: ", t->prefixes[i]);
    fprintf(err, "\n");
}

int oc_explain(const char *root, const char *id, FILE *out, FILE *err)
{
    trace *t = load(root, NULL);
    if (!t || t->unreadable) {
        if (t)
            release(t);
        else
            fprintf(err, "optcert: %s/spec: no rules found (--root: the optcert source tree)\n",
                    root);
        return -1;
    }
    size_t i = 0;
    while (i < t->nrules && strcasecmp(t->rules[i].id, id) != 0)
        i++;
    if (i == t->nrules) {
        suggest(t, id, err);
        release(t);
        return -1;
    }
    const rule *r = &t->rules[i];
    const site *from = t->sites, *to;
    while (from < t->sites + t->nsites && from->rule < (int)i)
        from++;
    for (to = from; to < t->sites + t->nsites && to->rule == (int)i;)
        to++;
    print_definition(root, r, out);
    print_sites(from, to, IN_IMPL, "implemented by", "lines", "nothing (optcert trace: missing)",
                out);
    print_sites(from, to, IN_VECTORS, "exercised by vector cases", "cases: family, tcId, comment",
                needs_vectors(r) ? "none (optcert trace: missing)"
                                 : "none needed (a harness, backend or layout rule)",
                out);
    print_sites(from, to, IN_TESTS, "checked by tests", "lines", "none (optcert trace: missing)",
                out);
    fprintf(out, "\ntrace: %s\n", complete(r) ? "complete" : "INCOMPLETE");
    release(t);
    return 0;
}
