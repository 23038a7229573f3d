/*
 * app_launch.c - the program `heaptop run` started, as the loop sees it.
 *
 * Owns: taking the program's output from its relay into the Console's ring
 * each loop turn (never waiting: the feed is non-blocking), noticing its exit
 * (reaped without waiting; the header says how it ended from then on), the
 * question q asks while it runs (s stops it, l leaves it running, anything
 * else stays), and, once the terminal is restored, doing what was answered
 * and saying so on stderr. UI thread only; the one wait here, stopping the
 * program at quit, runs after the screen is gone and has a deadline.
 */
#include "app.h"

#include "console.h"
#include "launch.h"

#include <stdio.h>
#include <unistd.h>

extern const ht_screen ht_screen_console;

void ht_app_launch_tick(ht_app *a)
{
    ht_launch *l = a->launch.prog;
    if (a->launch.console && l->feed_fd >= 0) {
        if (ht_console_read(a->launch.console, l->feed_fd) > 0 && !a->frozen &&
            ht_app_front(a) == &ht_screen_console)
            a->need_build = 1;
        if (a->launch.console->eof) { /* the program closed its output: no more to poll */
            close(l->feed_fd);
            l->feed_fd = -1;
        }
    }
    if (!a->launch.exit_said && ht_launch_poll(l)) {
        char how[128];
        ht_launch_exit_text(l, how, sizeof how);
        ht_app_status(a, "the program (pid %d) %s; its data stays here to browse and export",
                      (int)l->pid, how);
        a->launch.exit_said = 1;
        a->input.quit_asked = 0;
    }
}

int ht_app_quit_answer(ht_app *a, int ch)
{
    if (!a->input.quit_asked) return 0;
    a->input.quit_asked = 0;
    a->need_draw = 1;
    if (ch == 's' || ch == 'S') {
        a->quit = 1;
    } else if (ch == 'l' || ch == 'L') {
        a->launch.leave_running = 1;
        a->quit = 1;
    } else {
        ht_app_status(a, "still here; the program runs on");
    }
    return 1;
}

void ht_app_launch_end(ht_app *a)
{
    ht_launch *l = a->launch.prog;
    if (!ht_launch_poll(l) && a->launch.leave_running) {
        fprintf(stderr,
                "heaptop run: left pid %d running in its own session; its output goes on into "
                "%s (kill %d stops it)\n",
                (int)l->pid, l->log, (int)l->pid);
        ht_launch_close(l);
        return;
    }
    int stopped = !l->exited;
    if (stopped) {
        fprintf(stderr, "heaptop run: stopping pid %d (SIGTERM, SIGKILL after 5 s)\n", (int)l->pid);
        if (ht_launch_stop(l, 5000) != 0)
            fprintf(stderr, "heaptop run: pid %d outlived SIGKILL\n", (int)l->pid);
    }
    ht_launch_say_end(l, "heaptop run", stopped, stderr);
    ht_launch_close(l);
}
