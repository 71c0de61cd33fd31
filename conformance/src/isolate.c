/* Process isolation of an implementation under certification (spec/vectors.md §3). */
#define _GNU_SOURCE /* on_exit, sigabbrev_np */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "isolate.h"

/* One message from the child. The diagnosis of a result points at a mutant name, a string
 * constant of this executable: the forked child has the parent's address space layout. */
typedef struct record {
    char kind; /* 'S' case started, 'R' case result, 'X' exit() called, 'L' loaded, 'D' done */
    int value; /* S: the tcId; X: the exit status; L: the oc_status of the load */
    oc_case_result r;
} record;

static struct {
    int armed, registered;
    int fd; /* the child's end of the pipe; -1 in the parent */
    const char *family; /* the case running, for the report of an exit() */
    int tcid;
} trap = {.fd = -1};

static void send_record(const record *rec)
{
    const char *p = (const char *)rec;
    size_t left = sizeof *rec;
    while (left > 0) {
        ssize_t n = write(trap.fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            _exit(3); /* the parent is gone */
        p += n;
        left -= (size_t)n;
    }
}

/* VEC-PLUG-1: an exit() while armed is the implementation's. */
static void on_trapped_exit(int status, void *arg)
{
    (void)arg;
    if (!trap.armed)
        return;
    if (trap.fd >= 0) {
        send_record(&(record){.kind = 'X', .value = status});
        _exit(status);
    }
    if (trap.family)
        fprintf(stderr, "optcert: the implementation called exit(%d) in %s tcId %d; "
                        "no certificate (VEC-PLUG-1)\n", status, trap.family, trap.tcid);
    else
        fprintf(stderr, "optcert: the implementation called exit(%d) while loading; "
                        "no certificate (VEC-PLUG-1)\n", status);
    _exit(1);
}

void oc_exit_trap_arm(void)
{
    if (!trap.registered)
        trap.registered = on_exit(on_trapped_exit, NULL) == 0;
    trap.armed = 1;
}

void oc_exit_trap_disarm(void) { trap.armed = 0; }

/* The case loop: results into fr in process, to the parent from a child. */
static void run_cases(oc_case_fn fn, void *ctx, const oc_family *fam, oc_family_report *fr)
{
    for (size_t k = 0; k < fam->ncases; k++) {
        record rec = {.kind = 'S', .value = fam->cases[k].tcid};
        trap.family = fam->name;
        trap.tcid = rec.value;
        if (trap.fd >= 0)
            send_record(&rec);
        fn(ctx, fam, &fam->cases[k], &rec.r);
        rec.kind = 'R';
        if (trap.fd >= 0)
            send_record(&rec);
        else
            oc_family_add_result(fr, &rec.r);
    }
    trap.family = NULL;
}

/* RLIMIT_AS: what the process maps now (with a sanitizer, terabytes of shadow) plus mib. */
static void limit_memory(size_t mib)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld", &pages) != 1)
        pages = 0;
    if (f)
        fclose(f);
    rlim_t lim = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)mib << 20);
    setrlimit(RLIMIT_AS, &(struct rlimit){lim, lim});
}

/* The work a child does between its set-up and its 'D' record. */
typedef void (*child_body)(void *arg);

/* The child: the plugin's stdout on stderr (VEC-PLUG-4), the limits, the exit trap, then the
 * body; it ends only here, after 'D'. It stays in optcert's process group, so that a Ctrl-C
 * stops it too. */
static void child(const oc_isolation *iso, int fd, child_body body, void *arg)
{
    dup2(STDERR_FILENO, STDOUT_FILENO);
    limit_memory(iso->memory_mib);
    trap.fd = fd;
    oc_exit_trap_arm();
    body(arg);
    send_record(&(record){.kind = 'D'});
    _exit(0);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What the parent saw of a child. */
typedef struct seen {
    int outcome;           /* 1: 'D' received, 0: end of file before it, -1: timeout */
    size_t started;        /* cases started */
    int last;              /* the tcId of the last one */
    int exited, exit_code; /* an exit() was reported, with this status */
    int loaded;            /* an 'L' record came: */
    record load;           /* the load's status and message (in load.r.detail) */
} seen;

/* Reads the child's records into fr until 'D', end of file or the deadline. */
static void collect(int fd, double deadline, oc_family_report *fr, seen *s)
{
    record rec;
    size_t got = 0;
    for (;;) {
        double left = deadline - now();
        if (left <= 0) {
            s->outcome = -1;
            return;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int ready = poll(&p, 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1);
        if (ready == 0 || (ready < 0 && errno == EINTR))
            continue; /* look at the clock again */
        ssize_t n = ready > 0 ? read(fd, (char *)&rec + got, sizeof rec - got) : -1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->outcome = 0;
            return;
        }
        got += (size_t)n;
        if (got < sizeof rec)
            continue;
        got = 0;
        if (rec.kind == 'S') {
            s->started++;
            s->last = rec.value;
        } else if (rec.kind == 'R')
            oc_family_add_result(fr, &rec.r);
        else if (rec.kind == 'X') {
            s->exited = 1;
            s->exit_code = rec.value;
        } else if (rec.kind == 'L') {
            s->loaded = 1;
            s->load = rec;
        } else if (rec.kind == 'D') {
            s->outcome = 1;
            return;
        }
    }
}

/* VEC-PLUG-1: why a child ended without all its results, "" if it did not. */
static void cause(const seen *s, int wstatus, int timeout_s, char *why, size_t size)
{
    *why = '\0';
    if (s->outcome < 0)
        snprintf(why, size, "timed out after %d s", timeout_s);
    else if (s->exited)
        snprintf(why, size, "called exit(%d)", s->exit_code);
    else if (WIFSIGNALED(wstatus)) {
        const char *abbrev = sigabbrev_np(WTERMSIG(wstatus));
        snprintf(why, size, "killed by signal %d (SIG%s)", WTERMSIG(wstatus),
                 abbrev ? abbrev : "?");
    } else if (s->outcome == 0 || WEXITSTATUS(wstatus) != 0)
        snprintf(why, size, "ended with status %d without its results (_exit(), or a "
                 "sanitizer's report on stderr)", WEXITSTATUS(wstatus));
}

/* Runs body in a forked child under iso's limits, its records into fr and *s; *why says how the
 * child ended if it did not end by sending 'D' ("" if it did). */
static void in_child(const oc_isolation *iso, child_body body, void *arg, oc_family_report *fr,
                     seen *s, char *why, size_t size)
{
    int fds[2] = {-1, -1};
    *why = '\0';
    fflush(NULL); /* nothing buffered here is written twice by the child */
    pid_t pid = pipe(fds) == 0 ? fork() : -1;
    if (pid < 0) {
        snprintf(why, size, "could not start a process: %s", strerror(errno));
        if (fds[0] >= 0) {
            close(fds[0]);
            close(fds[1]);
        }
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child(iso, fds[1], body, arg);
    }
    int wstatus = 0;
    close(fds[1]);
    collect(fds[0], now() + iso->timeout_s, fr, s);
    if (s->outcome < 0)
        kill(pid, SIGKILL);
    close(fds[0]);
    waitpid(pid, &wstatus, 0);
    cause(s, wstatus, iso->timeout_s, why, size);
}

typedef struct family_job {
    oc_case_fn fn;
    void *ctx;
    const oc_family *fam;
} family_job;

static void family_body(void *arg)
{
    const family_job *j = arg;
    run_cases(j->fn, j->ctx, j->fam, NULL);
}

static void isolated(const oc_isolation *iso, oc_case_fn fn, void *ctx, const oc_family *fam,
                     oc_family_report *fr)
{
    seen s = {.outcome = 0, .last = -1};
    char why[160];
    in_child(iso, family_body, &(family_job){fn, ctx, fam}, fr, &s, why, sizeof why);
    if (!why[0])
        return;
    oc_case_result r = {.tcid = s.last, .verdict = OC_FAIL};
    snprintf(r.detail, sizeof r.detail, "%s%s; %zu later cases not run", why,
             s.started ? "" : " before its first case", fam->ncases - s.started);
    oc_family_add_result(fr, &r);
}

void oc_run_family(const oc_isolation *iso, oc_case_fn fn, void *ctx, const oc_family *fam,
                   oc_family_report *fr)
{
    if (iso)
        isolated(iso, fn, ctx, fam, fr);
    else
        run_cases(fn, ctx, fam, fr);
}

typedef struct load_job {
    const char *path;
    oc_load_fn load;
} load_job;

/* Loads the plugin and says how it went ('L'). */
static void load_body(void *arg)
{
    const load_job *j = arg;
    oc_diag d = {""};
    record rec = {.kind = 'L', .value = j->load(j->path, &d) == 0 ? OC_OK : OC_ERR_FORMAT};
    snprintf(rec.r.detail, sizeof rec.r.detail, "%s", d.msg);
    send_record(&rec);
}

oc_status oc_probe_load(const oc_isolation *iso, const char *path, oc_load_fn load, oc_diag *d)
{
    seen s = {.outcome = 0, .last = -1};
    char why[160];
    in_child(iso, load_body, &(load_job){path, load}, NULL, &s, why, sizeof why);
    if (why[0] || !s.loaded)
        return oc_fail(d, OC_ERR_FORMAT, "%s: cannot load plugin: the process loading it "
                       "(constructors, then %s()) ended: %s (VEC-PLUG-5)", path,
                       OC_IMPL_ENTRY_SYMBOL, why[0] ? why : "without a word");
    if (s.load.value != OC_OK)
        return oc_fail(d, (oc_status)s.load.value, "%s", s.load.r.detail);
    return OC_OK;
}
