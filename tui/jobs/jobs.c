/* jobs.c - see jobs.h. */
#include "jobs.h"

#include "clock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define NOTICE_MS 100 /* progress reaches the loop at most this often */

static void notify(ht_jobs *r)
{
    uint64_t one = 1;
    /* a full counter (never, in practice) still leaves the fd readable */
    if (write(r->fd, &one, sizeof one) < 0 && errno != EAGAIN) return;
}

static void push(ht_job **head, ht_job **tail, ht_job *j)
{
    j->next = NULL;
    if (*tail)
        (*tail)->next = j;
    else
        *head = j;
    *tail = j;
}

static ht_job *pop(ht_job **head, ht_job **tail)
{
    ht_job *j = *head;
    if (j) {
        *head = j->next;
        if (!*head) *tail = NULL;
        j->next = NULL;
    }
    return j;
}

static void *worker(void *arg)
{
    ht_jobs *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (!r->queue && !r->stopping)
            pthread_cond_wait(&r->wake, &r->lock);
        if (!r->queue) break; /* stopping, nothing left */
        ht_job *j = pop(&r->queue, &r->queue_tail);
        r->running = j;
        j->started_ms = ht_mono_ms();
        pthread_mutex_unlock(&r->lock);
        int rc = atomic_load(&j->cancelled) ? -1 : j->ops->run(j);
        pthread_mutex_lock(&r->lock);
        j->rc = rc;
        r->running = NULL;
        push(&r->finished, &r->finished_tail, j);
        notify(r);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

int ht_jobs_init(ht_jobs *r)
{
    memset(r, 0, sizeof *r);
    r->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (r->fd < 0) return -1;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->wake, NULL);
    return 0;
}

int ht_jobs_fd(const ht_jobs *r)
{
    return r->fd;
}

int ht_jobs_start(ht_jobs *r, ht_job *j)
{
    atomic_init(&j->cancelled, 0);
    j->rc = 0;
    j->started_ms = j->notified_ms = 0;
    j->progress[0] = '\0';
    j->runner = r;
    pthread_mutex_lock(&r->lock);
    if (!r->started) {
        if (pthread_create(&r->thread, NULL, worker, r) != 0) {
            pthread_mutex_unlock(&r->lock);
            j->ops->destroy(j);
            return -1;
        }
        r->started = 1;
    }
    push(&r->queue, &r->queue_tail, j);
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    return 0;
}

/* With the lock held. */
static int cancel_locked(ht_jobs *r)
{
    int n = 0;
    for (ht_job *j = r->queue; j; j = j->next, n++)
        atomic_store(&j->cancelled, 1);
    if (r->running && !atomic_exchange(&r->running->cancelled, 1)) {
        n++;
        if (r->running->ops->interrupt) r->running->ops->interrupt(r->running);
    }
    return n;
}

int ht_jobs_cancel(ht_jobs *r)
{
    pthread_mutex_lock(&r->lock);
    int n = cancel_locked(r);
    pthread_mutex_unlock(&r->lock);
    return n;
}

int ht_jobs_reap(ht_jobs *r, void *ui)
{
    uint64_t count;
    if (read(r->fd, &count, sizeof count) < 0) count = 0; /* EAGAIN: nothing new */
    int n = 0;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        ht_job *j = pop(&r->finished, &r->finished_tail);
        pthread_mutex_unlock(&r->lock);
        if (!j) break;
        /* done() may start new jobs: the lock is not held */
        j->ops->done(j, j->rc, ui);
        j->ops->destroy(j);
        n++;
    }
    return n;
}

int ht_jobs_busy(ht_jobs *r)
{
    pthread_mutex_lock(&r->lock);
    int busy = r->queue || r->running;
    pthread_mutex_unlock(&r->lock);
    return busy;
}

int ht_jobs_status(ht_jobs *r, uint64_t after_ms, char *out, size_t n)
{
    int shown = 0;
    pthread_mutex_lock(&r->lock);
    ht_job *j = r->running;
    if (j && ht_mono_ms() - j->started_ms >= after_ms) {
        int more = 0;
        for (ht_job *q = r->queue; q; q = q->next)
            more++;
        char queued[48] = "";
        if (more) snprintf(queued, sizeof queued, ", %d more waiting", more);
        snprintf(out, n, "%s%s%s%s", j->ops->name, j->progress[0] ? ": " : "", j->progress, queued);
        shown = 1;
    }
    pthread_mutex_unlock(&r->lock);
    return shown;
}

int ht_job_cancelled(const ht_job *j)
{
    return atomic_load(&j->cancelled);
}

void ht_job_progress(ht_job *j, const char *fmt, ...)
{
    ht_jobs *r = j->runner;
    char text[sizeof j->progress];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    uint64_t now = ht_mono_ms();
    pthread_mutex_lock(&r->lock);
    memcpy(j->progress, text, sizeof text);
    int tell = now - j->notified_ms >= NOTICE_MS;
    if (tell) {
        j->notified_ms = now;
        notify(r);
    }
    pthread_mutex_unlock(&r->lock);
}

void ht_jobs_stop(ht_jobs *r)
{
    if (r->fd < 0) return;
    pthread_mutex_lock(&r->lock);
    cancel_locked(r);
    r->stopping = 1;
    pthread_cond_signal(&r->wake);
    int started = r->started;
    pthread_mutex_unlock(&r->lock);
    if (started) pthread_join(r->thread, NULL);
    ht_job *j;
    while ((j = pop(&r->finished, &r->finished_tail)))
        j->ops->destroy(j);
    while ((j = pop(&r->queue, &r->queue_tail)))
        j->ops->destroy(j);
    close(r->fd);
    r->fd = -1;
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->wake);
}
