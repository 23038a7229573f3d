/*
 * app_start.c - the interactive viewer's start on checked options, and
 * starting again as `heaptop PID`.
 *
 * Owns: the options the viewer was started with, kept for restart_as. Root
 * choosing another user's JVM in the chooser starts heaptop again as
 * `heaptop PID` with the same options (restart_as: it must become that user
 * before any thread runs, and the viewer has job threads). The command
 * lines and the checks made before the terminal is taken are tui/cmd's
 * (view_cmd.c, run.c). Runs on the main thread, before the loop (app.c)
 * starts, or from it for the restart (the screen is stopped first and taken
 * back if exec fails). It writes no file and never talks to the agent
 * itself: reaching the target is reach.h's.
 */
#include "app.h"

#include "proc.h"
#include "reach.h"
#include "source_path.h"
#include "tasks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What heaptop was started with, for restart_as (ht_tui_run's). */
static const ht_tui_opts *g_opts;

/* Root chose another user's JVM: heaptop becomes that user before any other
 * thread runs (reach.h), and this one has job threads, so it starts again
 * as `heaptop PID` with the same options. Returns only when it could not. */
static void restart_as(ht_app *a, pid_t pid, const char *owner)
{
    char num[16];
    snprintf(num, sizeof num, "%d", (int)pid);
    char *args[14], source[8192] = "";
    int n = 0;
    args[n++] = "heaptop";
    args[n++] = num;
    if (g_opts->out_given) args[n++] = "--out", args[n++] = (char *)g_opts->out_dir;
    if (g_opts->ascii) args[n++] = "--ascii";
    const ht_reach_opts *o = a->reach;
    if (o && o->agent) args[n++] = "--agent", args[n++] = (char *)o->agent;
    if (o && o->interval) args[n++] = "--interval", args[n++] = (char *)o->interval;
    if (o && o->agent_opts) args[n++] = "--agent-opts", args[n++] = (char *)o->agent_opts;
    const ht_source_path *sp = g_opts->source; /* --source, its entries joined again */
    for (uint32_t i = 0, len = 0; sp && i < sp->n && !sp->e[i].jdk && len < sizeof source; i++)
        len += (uint32_t)snprintf(source + len, sizeof source - len, "%s%s", i ? ":" : "",
                                  sp->e[i].path);
    if (source[0]) args[n++] = "--source", args[n++] = source;
    args[n] = NULL;
    ht_ui_stop();
    fprintf(stderr, "heaptop: pid %d runs as user %s: heaptop starts again as heaptop %d\n",
            (int)pid, owner, (int)pid);
    execv("/proc/self/exe", args);
    int e = errno;
    ht_ui_start(&a->ui, g_opts->ascii);
    ht_app_status(a, "cannot start heaptop %d: %s", (int)pid, strerror(e));
}

void ht_host_choose(ht_host *h, pid_t pid, int attach)
{
    ht_target t;
    char num[16], err[256];
    snprintf(num, sizeof num, "%d", (int)pid);
    if (ht_target_from_pid(&t, num, err, sizeof err) == 0 && t.owner != geteuid()) {
        char owner[64];
        ht_proc_user_name(t.owner, owner, sizeof owner);
        restart_as(h, pid, owner);
    } else if (attach) {
        ht_task_attach(h, pid);
    } else {
        ht_app_connect(h, pid, "pid");
    }
}

int ht_tui_run(const ht_tui_opts *o)
{
    g_opts = o;
    return ht_app_run(o->target, o->open_file, o->open_before, !o->target && !o->open_file,
                      o->out_dir, o->ascii, o->launch, o->reach, o->source);
}
