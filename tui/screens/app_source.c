/*
 * app_source.c - opening a frame's source file: the Source screen's job.
 *
 * Owns: ht_host_open_source, the one way in for every screen (the
 * allocation tree, the reference browser, the CPU screens): the frame's
 * names copied, the Source screen brought to the front at once saying what
 * it looks for, and a job on the quick runner that finds the JDK's src.zip
 * for the JVM watched (source_path.h), searches the source path and reads
 * the file (source_find.h); its done() hands the file, or why it was not
 * found, to the screen. Requests are numbered: an answer to an older one
 * is dropped. UI thread, but the job's run(), which touches only its own
 * copies.
 */
#include "app.h"

#include "screen_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct source_job {
    ht_job job;          /* first */
    ht_source_path path; /* a copy of --source; the JDK's src.zip is added on the worker */
    uint32_t pid;
    char jdk_version[64];
    char cls[1024], src[300];
    uint64_t seq;
    int rc;
    ht_source_found found;
    char err[4400];
} source_job;

static int source_run(ht_job *j)
{
    source_job *s = (source_job *)j;
    char zip[4200], why[1200] = "";
    ht_job_progress(j, "looking for the source of %s", s->cls);
    int jdk = ht_source_jdk_zip(s->pid, s->jdk_version, zip, sizeof zip, why, sizeof why) == 0;
    if (jdk && ht_source_path_add(&s->path, zip, HT_SOURCE_ZIP, 1) != 0) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return -1;
    }
    if (ht_source_find(&s->path, s->cls, s->src[0] ? s->src : NULL, &s->found, s->err,
                       sizeof s->err) == 0)
        return 0;
    /* not found: say too why the JDK's sources were not searched, and how
     * to give a path */
    size_t len = strlen(s->err);
    if (!jdk && len < sizeof s->err)
        len += (size_t)snprintf(s->err + len, sizeof s->err - len, "; the JDK's sources: %s", why);
    if (s->path.n == (uint32_t)jdk && len < sizeof s->err)
        snprintf(s->err + len, sizeof s->err - len,
                 "; --source DIR:FILE.jar gives the application's sources");
    return -1;
}

static void source_done(ht_job *j, int rc, void *ui)
{
    source_job *s = (source_job *)j;
    ht_app *a = ui;
    void *state = ht_app_state(a, &ht_screen_source);
    if (!state) return;
    if (ht_job_cancelled(j))
        ht_screen_source_answer(state, s->seq, NULL, "cancelled");
    else
        ht_screen_source_answer(state, s->seq, rc == 0 ? &s->found : NULL, s->err);
    a->need_build = a->need_draw = 1; /* the margin, from the store */
}

static void source_destroy(ht_job *j)
{
    source_job *s = (source_job *)j;
    ht_source_found_free(&s->found);
    ht_source_path_free(&s->path);
    free(s);
}

static const ht_job_ops SOURCE = {"reading the source", source_run, NULL, source_done,
                                  source_destroy};

void ht_host_open_source(ht_host *h, const ht_store *names, const ht_frame_rec *f)
{
    static uint64_t seq;
    ht_app *a = h;
    const ht_smethod *m = ht_store_method(names, f->method_id);
    if (!m || !m->cls) {
        ht_app_status(a, "this frame's method has no name: no file to open");
        return;
    }
    if (f->line < 0) {
        ht_app_status(a, "%s",
                      f->line == HT_LINE_NATIVE ? "a native method has no source line"
                                                : "this frame has no line number");
        return;
    }
    source_job *s = calloc(1, sizeof *s);
    if (!s || (a->source && ht_source_path_copy(&s->path, a->source) != 0)) {
        free(s);
        ht_app_status(a, "out of memory");
        return;
    }
    s->job.ops = &SOURCE;
    s->seq = ++seq;
    snprintf(s->cls, sizeof s->cls, "%s", m->cls);
    snprintf(s->src, sizeof s->src, "%s", m->src ? m->src : "");
    const ht_store *live = ht_app_store(a);
    /* the JVM watched (a dump's run has none running: its JDK by version only) */
    s->pid = !a->conn.no_jvm ? live->info.pid : 0;
    snprintf(s->jdk_version, sizeof s->jdk_version, "%s",
             live->info.jdk_version    ? live->info.jdk_version
             : names->info.jdk_version ? names->info.jdk_version
                                       : "");
    char frame[1200];
    ht_store_frame_name(names, f, frame, sizeof frame);
    int i = ht_screen_index(&ht_screen_source);
    if (i < 0) {
        source_destroy(&s->job);
        return;
    }
    ht_screen_source_asked(a->state[i], s->seq, frame, f->line);
    ht_app_show(a, i, 1);
    if (ht_jobs_start(&a->quick, &s->job) != 0)
        ht_screen_source_answer(a->state[i], s->seq, NULL, "cannot start a thread");
}
