/*
 * tasks_drag.c - the request that turns drag mode on or off (the D key's
 * prompt): a job on the quick runner, as the other requests to the agent
 * (tasks.c), on its own nng context of the connection's REQ socket.
 *
 * Owns: the job's copy of the filter (the request carries its address,
 * request.h's ht_request_drag_arg, so it lives as long as the job), and what
 * the status line says of the answer: how many classes the ACK says were
 * instrumented, or the agent's ERROR line as it gave it. Started on the UI
 * thread; the call runs on the quick runner's worker; Esc cancels the wait
 * (the agent may still carry it out). When drag mode was asked on, the Drag
 * screen comes to the front.
 */
#include "tasks.h"

#include "request.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const ht_screen ht_screen_drag;

typedef struct drag_job {
    ht_job job; /* first */
    ht_call call;
    char filter[HT_DRAG_FILTER_MAX + 1];
    uint64_t value;   /* the ACK's: classes instrumented */
    atomic_int asked; /* run() began: the request may have reached the agent */
    char err[512];
} drag_job;

static int drag_run(ht_job *j)
{
    drag_job *d = (drag_job *)j;
    atomic_store(&d->asked, 1);
    ht_job_progress(j, "%s", d->filter[0] ? "turning drag mode on" : "turning drag mode off");
    return ht_call_command(&d->call, HT_MSG_DRAG_REQ, ht_request_drag_arg(d->filter), &d->value,
                           d->err, sizeof d->err);
}

static void drag_interrupt(ht_job *j)
{
    ht_call_cancel(&((drag_job *)j)->call);
}

static void drag_done(ht_job *j, int rc, void *ui)
{
    drag_job *d = (drag_job *)j;
    ht_app *a = ui;
    const char *what = d->filter[0] ? "turn drag mode on" : "turn drag mode off";
    if (ht_job_cancelled(j) && !atomic_load(&d->asked))
        ht_app_status(a, "cancelled before it was sent: did not ask the JVM to %s", what);
    else if (ht_job_cancelled(j))
        ht_app_status(a, "stopped waiting for the JVM to %s (it may still do it)", what);
    else if (rc != 0)
        ht_app_status(a, "drag mode: %s", d->err);
    else if (!d->filter[0])
        ht_app_status(a, "drag mode off: the instrumented classes are restored");
    else
        ht_app_status(a, "drag mode on for %s: %llu classes instrumented", d->filter,
                      (unsigned long long)d->value);
    if (!ht_job_cancelled(j) && rc == 0 && d->filter[0]) ht_host_show(a, &ht_screen_drag);
}

static void drag_destroy(ht_job *j)
{
    drag_job *d = (drag_job *)j;
    ht_call_close(&d->call);
    free(d);
}

static const ht_job_ops DRAG = {"asking the agent", drag_run, drag_interrupt, drag_done,
                                drag_destroy};

int ht_task_drag(ht_app *a, const char *filter)
{
    if (!a->conn.cli || a->conn.cli->state != HT_CONN_LIVE) {
        ht_app_status(a, "not connected to a JVM");
        return -1;
    }
    drag_job *d = calloc(1, sizeof *d);
    if (!d) {
        ht_app_status(a, "out of memory");
        return -1;
    }
    d->job.ops = &DRAG;
    /* "off" is off, as the agent option and `heaptop control` read it */
    snprintf(d->filter, sizeof d->filter, "%s", strcmp(filter, "off") == 0 ? "" : filter);
    if (ht_call_open(&d->call, a->conn.cli, d->err, sizeof d->err) != 0) {
        ht_app_status(a, "%s", d->err);
        drag_destroy(&d->job);
        return -1;
    }
    if (ht_jobs_start(&a->quick, &d->job) != 0) {
        ht_app_status(a, "cannot start a thread");
        return -1;
    }
    return 0;
}
