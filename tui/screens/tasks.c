/* tasks.c - see tasks.h. */
#include "tasks.h"

#include "reach.h"

#include "analysis.h"
#include "bytesize.h"
#include "attach.h"
#include "compare.h"
#include "screen_chooser.h"
#include "screen_refs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- requests to the agent --- */

typedef struct command_job {
    ht_job job; /* first */
    ht_call call;
    uint16_t type;
    uint64_t arg, value;
    atomic_int asked; /* run() began: the request may have reached the agent */
    char err[256];
} command_job;

static const char *asking(const command_job *c)
{
    switch (c->type) {
    case HT_MSG_SET_INTERVAL_REQ:
        return "set the sampling interval";
    case HT_MSG_PAUSE_REQ:
        return "pause sampling";
    case HT_MSG_RESUME_REQ:
        return "resume sampling";
    case HT_MSG_HEAP_DUMP_REQ:
        return "write a heap dump";
    default:
        return c->arg == HT_MARK_BEGIN ? "begin a mark"
               : c->arg == HT_MARK_END ? "end the mark"
                                       : "continue the mark";
    }
}

static int command_run(ht_job *j)
{
    command_job *c = (command_job *)j;
    atomic_store(&c->asked, 1);
    ht_job_progress(j, "%s", asking(c));
    return ht_call_command(&c->call, c->type, c->arg, &c->value, c->err, sizeof c->err);
}

static void command_interrupt(ht_job *j)
{
    ht_call_cancel(&((command_job *)j)->call);
}

static void command_done(ht_job *j, int rc, void *ui)
{
    command_job *c = (command_job *)j;
    ht_app *a = ui;
    if (c->type == HT_MSG_HEAP_DUMP_REQ) {
        a->dump.asking = 0;                 /* answered, or never will be */
        if (rc != 0 || ht_job_cancelled(j)) /* no dump to wait for, nor to compare */
            a->dump.snapshot_wanted = a->dump.compare = 0;
    }
    if (ht_job_cancelled(j) && !atomic_load(&c->asked))
        ht_app_status(a, "cancelled before it was sent: did not ask the JVM to %s", asking(c));
    else if (ht_job_cancelled(j))
        ht_app_status(a, "stopped waiting for the JVM to %s (it may still do it)", asking(c));
    else if (rc != 0)
        ht_app_status(a, "%s", c->err);
    else if (c->type == HT_MSG_SET_INTERVAL_REQ)
        ht_app_status(a, "sampling interval set to %llu bytes", (unsigned long long)c->value);
    else if (c->type == HT_MSG_HEAP_DUMP_REQ) {
        /* the agent writes it now; the loop follows its reports (app.c) */
        a->dump.id = c->value;
        a->dump.pid = a->conn.cli ? a->conn.cli->store.info.pid : 0;
        ht_app_status(a, "heap snapshot: the JVM is writing the dump");
    } else if (c->type == HT_MSG_MARK_REQ)
        ht_app_status(a, "%s",
                      c->arg == HT_MARK_BEGIN ? "mark begun: diff columns count from now"
                      : c->arg == HT_MARK_END
                          ? "mark ended: diff columns hold the marked phase"
                          : "mark continued: diff columns add to the same phase");
    else
        ht_app_status(a, "sampling %s", c->value ? "resumed" : "paused");
}

static void command_destroy(ht_job *j)
{
    command_job *c = (command_job *)j;
    ht_call_close(&c->call);
    free(c);
}

static const ht_job_ops COMMAND = {"asking the agent", command_run, command_interrupt, command_done,
                                   command_destroy};

int ht_task_command(ht_app *a, uint16_t type, uint64_t arg)
{
    if (!a->conn.cli || a->conn.cli->state != HT_CONN_LIVE) {
        ht_app_status(a, "not connected to a JVM");
        return -1;
    }
    command_job *c = calloc(1, sizeof *c);
    if (!c) {
        ht_app_status(a, "out of memory");
        return -1;
    }
    c->job.ops = &COMMAND;
    c->type = type;
    c->arg = arg;
    if (ht_call_open(&c->call, a->conn.cli, c->err, sizeof c->err) != 0) {
        ht_app_status(a, "%s", c->err);
        command_destroy(&c->job);
        return -1;
    }
    if (ht_jobs_start(&a->quick, &c->job) != 0) {
        ht_app_status(a, "cannot start a thread");
        return -1;
    }
    return 0;
}

/* --- exports --- */

enum { FAILED_NONE, FAILED_RESERVE, FAILED_DATA, FAILED_SUMMARY };

typedef struct export_job {
    ht_job job;     /* first */
    ht_store store; /* the job's copy: names, rows, mark, telemetry */
    ht_export_req req;
    ht_summary_span span;
    char dir[1024], stamp[32];
    char path[1024], summary[1024];
    int failed, err;
} export_job;

static int export_tick(void *ctx, uint64_t done, uint64_t total)
{
    ht_job *j = ctx;
    char d[32], t[32];
    ht_format_count(done, d, sizeof d);
    ht_format_count(total, t, sizeof t);
    ht_job_progress(j, "%s of %s rows", d, t);
    return ht_job_cancelled(j);
}

static int export_run(ht_job *j)
{
    export_job *e = (export_job *)j;
    /* never overwrite: two exports in one second get -2, -3, ... */
    if (ht_export_reserve(e->dir, e->req.view, e->stamp, e->path, e->summary, sizeof e->path) !=
        0) {
        e->failed = FAILED_RESERVE;
        e->err = errno;
        return -1;
    }
    ht_progress p = {export_tick, j};
    errno = 0;
    if (e->req.write(e->req.rows, &e->store, e->path, &p) != 0) {
        e->failed = FAILED_DATA;
        e->err = errno ? errno : EIO;
        ht_outfile_unreserve(e->path); /* ours, and incomplete */
        ht_outfile_unreserve(e->summary);
        return -1;
    }
    const char *file = strrchr(e->path, '/');
    e->span.file = file ? file + 1 : e->path;
    if (ht_export_summary(&e->store, &e->span, e->summary) != 0) {
        e->failed = FAILED_SUMMARY;
        e->err = errno ? errno : EIO;
        /* the name reserved for it, empty: nothing half-written stays */
        ht_outfile_unreserve(e->summary);
        return -1;
    }
    return 0;
}

static void export_done(ht_job *j, int rc, void *ui)
{
    export_job *e = (export_job *)j;
    ht_app *a = ui;
    if (ht_job_cancelled(j) && e->failed != FAILED_SUMMARY && rc != 0)
        ht_app_status(a, "export cancelled; nothing written");
    else if (e->failed == FAILED_RESERVE) {
        char why[sizeof a->status];
        ht_outdir_why(e->dir, e->err, why, sizeof why); /* which user, when heaptop switched */
        ht_app_status(a, "%s", why);
    } else if (e->failed == FAILED_DATA)
        ht_app_status(a, "cannot write %s: %s", e->path, strerror(e->err));
    else if (e->failed == FAILED_SUMMARY)
        ht_app_status(a, "exported to %s, but cannot write %s: %s", e->path, e->summary,
                      strerror(e->err));
    else
        ht_app_status(a, "exported to %s (and .summary.csv)", e->path);
}

static void export_destroy(ht_job *j)
{
    export_job *e = (export_job *)j;
    if (e->req.free_rows && e->req.rows) e->req.free_rows(e->req.rows);
    ht_store_free(&e->store);
    free(e);
}

static const ht_job_ops EXPORT = {"exporting", export_run, NULL, export_done, export_destroy};

void ht_task_export(ht_app *a)
{
    const ht_screen *s = ht_app_front(a);
    if (!s->export) {
        ht_app_status(a, "nothing to export on the %s screen", s->name);
        return;
    }
    export_job *e = calloc(1, sizeof *e);
    if (!e) {
        ht_app_status(a, "out of memory");
        return;
    }
    e->job.ops = &EXPORT;
    ht_store_init(&e->store);
    /* the keys before this one may have changed the screen or its filter
     * since its model was last built (typed ahead, "2e", before any
     * redraw): built now, not abandoned for a waiting key, so the file holds
     * the rows the screen shows next rather than the stale (on a first
     * visit, empty) model */
    if (a->need_build) {
        a->interruptible = 0;
        ht_app_build(a);
        if (!a->need_build) a->key_build = 0;
    }
    /* copies, made here and now: the loop goes on changing the originals */
    if (ht_store_snapshot(&e->store, ht_app_store(a)) != 0 ||
        s->export(a->state[a->front], a, &e->store, &e->req) != 0) {
        ht_app_status(a, "out of memory");
        export_destroy(&e->job);
        return;
    }
    time_t now = time(NULL);
    struct tm tm;
    strftime(e->stamp, sizeof e->stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
    snprintf(e->dir, sizeof e->dir, "%s", a->out_dir);
    /* what the rows are: the JVM, the time they cover, the mark, and what the
     * screen applied (sort order, filters, the one class of a class's tree) */
    const ht_telemetry_rec *t = ht_store_last_telemetry(&e->store);
    e->span = (ht_summary_span){
        .start_ms = 0, /* the totals count from the agent's start */
        .end_ms = t ? t->t_ms : 0,
        .missed = a->conn.cli ? a->conn.cli->missed : 0,
        .view = e->req.view,
        .sort = e->req.sort,
        .class_filter = e->req.class_filter,
        .frame_filter = e->req.frame_filter,
        .only_class = e->req.only_class,
        .t1 = e->req.t1,
        .t2 = e->req.t2,
        .scc = e->req.scc,
        .count = e->req.count,
    };
    if (ht_jobs_start(&a->heavy, &e->job) != 0) ht_app_status(a, "cannot start a thread");
}

/* --- heap snapshots --- */

typedef struct heap_job {
    ht_job job; /* first */
    ht_heap *heap;
    ht_heap_figures *before; /* heaptop open A B: A's, read first */
    char before_path[1024];
    char path[1024];
    ht_dump_file dump; /* a dump the agent wrote for us (read through dump.path), or closed */
    int remove_after, rc;
    int then_compare; /* done: the Compare screen in front, not the heap classes */
    char err[1600];
    char left[1600]; /* why a dump that was to be removed is still there */
} heap_job;

static void heap_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    heap_job *h = ctx;
    if (total)
        ht_job_progress(&h->job, "%s, %llu%%", phase, (unsigned long long)(done * 100 / total));
    else
        ht_job_progress(&h->job, "%s", phase);
}

static int heap_cancelled(void *ctx)
{
    return ht_job_cancelled(&((heap_job *)ctx)->job);
}

static int heap_run(ht_job *j)
{
    heap_job *h = (heap_job *)j;
    h->heap = calloc(1, sizeof *h->heap);
    if (!h->heap) {
        snprintf(h->err, sizeof h->err, "out of memory");
        return -1;
    }
    ht_snapshot_opts o = {.progress = heap_progress, .ctx = h, .cancelled = heap_cancelled};
    if (h->before_path[0]) {
        /* A only as far as its class figures need, freed before B is read */
        ht_job_progress(j, "reading %s", h->before_path);
        h->before = calloc(1, sizeof *h->before);
        char err[sizeof h->err];
        if (!h->before) {
            snprintf(h->err, sizeof h->err, "out of memory");
            return -1;
        }
        h->rc = ht_heap_figures_read(h->before, h->before_path, &o, err, sizeof err);
        if (h->rc != HT_HPROF_OK) {
            snprintf(h->err, sizeof h->err, "%s", err);
            free(h->before);
            h->before = NULL;
            return -1;
        }
    }
    int agents = h->dump.fd >= 0; /* h->path is then where it is, for messages */
    ht_job_progress(j, "reading %s", h->path);
    h->rc = ht_heap_load(h->heap, agents ? h->dump.path : h->path, &o);
    if (agents) {
        /* it goes only once read (dump_file.h); its name is where it was */
        if (h->rc == HT_HPROF_OK) snprintf(h->heap->path, sizeof h->heap->path, "%s", h->path);
        if (h->remove_after && h->rc != HT_HPROF_OK)
            snprintf(h->left, sizeof h->left, "; left %s (the agent removes it when the JVM exits)",
                     h->path);
        else if (h->remove_after) {
            char why[sizeof h->left - 8];
            if (ht_dump_file_remove(&h->dump, why, sizeof why) != 0)
                snprintf(h->left, sizeof h->left, "; %s", why);
        }
        ht_dump_file_close(&h->dump);
    }
    if (h->rc != HT_HPROF_OK) {
        snprintf(h->err, sizeof h->err, "%s", h->heap->h.err);
        free(h->heap);
        h->heap = NULL;
        return -1;
    }
    return 0;
}

static void heap_done(ht_job *j, int rc, void *ui)
{
    heap_job *h = (heap_job *)j;
    ht_app *a = ui;
    if (ht_job_cancelled(j) || h->rc == HT_HPROF_ERR_CANCELLED) {
        ht_app_status(a, "heap snapshot cancelled");
        return;
    }
    if (rc != 0) {
        ht_app_status(a, "heap snapshot: %s%s", h->err, h->left);
        if (a->conn.no_jvm && !a->heap) /* heaptop open's own file: its exit code says so */
            snprintf(a->open_error, sizeof a->open_error, "%.399s", h->err);
        return;
    }
    /* the snapshot before this one: A of heaptop open A B, else what is kept
     * of the one this replaces (none when it cannot be kept) */
    ht_heap_figures *before = h->before;
    h->before = NULL;
    if (!before && a->heap && (before = malloc(sizeof *before)) &&
        ht_heap_figures_of(before, &a->heap->s, a->heap->path) != 0) {
        free(before);
        before = NULL;
    }
    if (before || a->heap) {
        if (a->heap_before) ht_heap_figures_free(a->heap_before);
        free(a->heap_before);
        a->heap_before = before;
    }
    if (a->heap) {
        ht_heap_free(a->heap);
        free(a->heap);
    }
    a->heap = h->heap;
    h->heap = NULL;
    a->heap_gen++; /* the screens' models of the old one are void */
    const ht_sampled *m = &a->heap->s.sampled;
    if (a->conn.no_jvm) { /* a dump heaptop's agent took carries its run, as of the dump */
        ht_store_clear(&a->conn.empty);
        ht_store_from_session(&a->conn.empty, m->session, m->session_len);
    }
    if (a->heap->sites.n)
        ht_app_status(a,
                      "heap snapshot: %u objects, %llu MB, read in %.1f s; %u sampled objects: "
                      "their sites in the tree (1, R sorts by RETAINED)",
                      a->heap->s.nobjects, (unsigned long long)(a->heap->s.total_bytes >> 20),
                      a->heap->load_s, m->present);
    else
        ht_app_status(a, "heap snapshot: %u objects, %llu MB, read in %.1f s", a->heap->s.nobjects,
                      (unsigned long long)(a->heap->s.total_bytes >> 20), a->heap->load_s);
    if (h->left[0]) ht_app_status(a, "heap snapshot read%s", h->left);
    ht_app_show(a, ht_screen_index(h->then_compare ? &ht_screen_compare : &ht_screen_heap), 0);
    a->need_build = a->need_draw = 1;
}

static void heap_destroy(ht_job *j)
{
    heap_job *h = (heap_job *)j;
    if (h->heap) {
        ht_heap_free(h->heap);
        free(h->heap);
    }
    if (h->before) {
        ht_heap_figures_free(h->before);
        free(h->before);
    }
    ht_dump_file_close(&h->dump);
    free(h);
}

static const ht_job_ops HEAP = {"heap snapshot", heap_run, NULL, heap_done, heap_destroy};

static heap_job *heap_job_new(ht_app *a)
{
    heap_job *h = calloc(1, sizeof *h);
    if (!h) {
        ht_app_status(a, "out of memory");
        return NULL;
    }
    h->job.ops = &HEAP;
    ht_dump_file_init(&h->dump);
    return h;
}

void ht_task_heap_open(ht_app *a, const char *path, int then_compare)
{
    heap_job *h = heap_job_new(a);
    if (!h) return;
    snprintf(h->path, sizeof h->path, "%s", path);
    h->then_compare = then_compare;
    if (ht_jobs_start(&a->heavy, &h->job) != 0) ht_app_status(a, "cannot start a thread");
}

void ht_task_heap_dump(ht_app *a, ht_dump_file *f, int remove_after, int then_compare)
{
    heap_job *h = heap_job_new(a);
    if (!h) {
        ht_dump_file_close(f);
        return;
    }
    h->dump = *f;
    ht_dump_file_init(f);
    snprintf(h->path, sizeof h->path, "%s", h->dump.shown);
    h->remove_after = remove_after;
    h->then_compare = then_compare;
    if (ht_jobs_start(&a->heavy, &h->job) != 0) ht_app_status(a, "cannot start a thread");
}

void ht_task_heap_compare(ht_app *a, const char *before, const char *path)
{
    heap_job *h = heap_job_new(a);
    if (!h) return;
    snprintf(h->before_path, sizeof h->before_path, "%s", before);
    h->then_compare = 1;
    snprintf(h->path, sizeof h->path, "%s", path);
    if (ht_jobs_start(&a->heavy, &h->job) != 0) ht_app_status(a, "cannot start a thread");
}

/* --- the chooser: finding JVMs, attaching to one --- */

typedef struct discover_job {
    ht_job job; /* first */
    ht_jvm_list list;
    char err[256];
} discover_job;

/* Does heaptop's agent in pid listen where `heaptop PID` looks (target.h:
 * /proc/net/unix, never a connection)? */
static int agent_listens(pid_t pid, char *why, size_t n, void *ctx)
{
    (void)ctx;
    ht_target t;
    char num[16], err[640];
    snprintf(num, sizeof num, "%d", (int)pid);
    if (ht_target_from_pid(&t, num, err, sizeof err) == 0 &&
        ht_target_resolve(&t, err, sizeof err) == HT_TARGET_READY)
        return 1;
    snprintf(why, n, "%s", err);
    return 0;
}

static int discover_run(ht_job *j)
{
    discover_job *d = (discover_job *)j;
    return ht_jvms_list(&d->list, NULL, agent_listens, NULL, d->err, sizeof d->err);
}

static void discover_done(ht_job *j, int rc, void *ui)
{
    discover_job *d = (discover_job *)j;
    ht_app *a = ui;
    a->discovering = 0;
    if (!a->choosing || ht_job_cancelled(j)) return;
    ht_screen_chooser_set(ht_app_state(a, &ht_screen_chooser), &d->list, rc ? d->err : NULL);
    a->need_build = a->need_draw = 1;
}

static void discover_destroy(ht_job *j)
{
    discover_job *d = (discover_job *)j;
    ht_jvms_free(&d->list);
    free(d);
}

static const ht_job_ops DISCOVER = {"looking for JVMs", discover_run, NULL, discover_done,
                                    discover_destroy};

void ht_task_discover(ht_app *a)
{
    if (a->discovering) return;
    discover_job *d = calloc(1, sizeof *d);
    if (!d) return;
    d->job.ops = &DISCOVER;
    a->discovering = 1;
    if (ht_jobs_start(&a->quick, &d->job) != 0) {
        a->discovering = 0;
        ht_app_status(a, "cannot start a thread");
    }
}

typedef struct attach_job {
    ht_job job;     /* first */
    ht_job_ops ops; /* its own: the name says which pid */
    char title[96];
    pid_t pid;
    char agent[PATH_MAX], options[1024 + HT_IPC_PATH_MAX + 8];
    char err[512];
} attach_job;

static int attach_run(ht_job *j)
{
    attach_job *t = (attach_job *)j;
    return ht_attach_load(t->pid, t->agent, t->options, 10000, t->err, sizeof t->err);
}

static void attach_done(ht_job *j, int rc, void *ui)
{
    attach_job *t = (attach_job *)j;
    ht_app *a = ui;
    a->attaching = 0;
    if (ht_job_cancelled(j))
        ht_app_status(a, "stopped waiting for pid %d to load the agent (it may still load it)",
                      (int)t->pid);
    else if (rc != 0)
        ht_app_status(a, "attaching to pid %d failed: %s", (int)t->pid, t->err);
    else
        ht_app_connect(a, t->pid, "attached to pid");
}

static void attach_destroy(ht_job *j)
{
    free(j);
}

void ht_task_attach(ht_app *a, pid_t pid)
{
    if (a->attaching) {
        ht_app_status(a, "already attaching to pid %d (Esc stops waiting)", (int)a->attaching);
        return;
    }
    attach_job *t = calloc(1, sizeof *t);
    ht_target target;
    char num[16];
    if (!t) {
        ht_app_status(a, "out of memory");
        return;
    }
    snprintf(num, sizeof num, "%d", (int)pid);
    /* the agent listens where `heaptop PID` looks, whatever the JVM's environment */
    const ht_reach_opts *o = a->reach;
    if (ht_attach_find_agent(t->agent, sizeof t->agent, o ? o->agent : NULL, t->err,
                             sizeof t->err) != 0 ||
        ht_target_from_pid(&target, num, t->err, sizeof t->err) != 0) {
        ht_app_status(a, "cannot attach to pid %d: %s", (int)pid, t->err);
        free(t);
        return;
    }
    /* the command line's options (--interval, --agent-opts), checked at start */
    snprintf(t->options, sizeof t->options, "%s%sipc=%s", o && o->text[0] ? o->text : "",
             o && o->text[0] ? "," : "", target.base);
    snprintf(t->title, sizeof t->title, "attaching to pid %d ...", (int)pid);
    t->ops = (ht_job_ops){t->title, attach_run, NULL, attach_done, attach_destroy};
    t->job.ops = &t->ops;
    t->pid = pid;
    ht_app_status(a, "%s", t->title);
    a->attaching = pid;
    if (ht_jobs_start(&a->quick, &t->job) != 0) {
        a->attaching = 0;
        ht_app_status(a, "cannot start a thread");
    }
}
