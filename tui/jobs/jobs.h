/*
 * jobs.h - work that can take longer than a frame, off the UI thread.
 *
 * Owns: one worker thread (started with the first job) that runs jobs one at
 * a time in the order they were started, each job's progress text, its
 * cancellation, and the one descriptor (an eventfd) the UI loop polls next to
 * the keyboard and the stream to learn that a job finished or has news. One
 * mechanism for every long operation the viewer has: a request to the agent,
 * an export, a heap snapshot, an attach. The viewer keeps two runners (app.h),
 * so that a quick request never waits behind a heavy job.
 *
 * Threads: ht_jobs_* run on the UI thread; a job's run() runs on the worker;
 * ht_job_progress() and ht_job_cancelled() are for run(). A job's run() must
 * touch only what the job owns (copies made when it was started, its own nng
 * context), never ncurses and never the loop's store or models; its done()
 * runs on the UI thread, from ht_jobs_reap(), and is where a result reaches
 * the screen. One runner's queue means a job waits for the ones before it on
 * that runner: requests to the agent keep their order (b then E is a mark
 * that begins, then ends).
 *
 * A job is a struct of the caller's with an ht_job as its first member.
 * Cancelling sets a flag run() polls and calls the job's interrupt() (on the
 * UI thread, with the runner's lock held: it must only poke, e.g. cancel an
 * nng aio) so a run() blocked in a wait returns. A job cancelled before it ran
 * never runs; done() is still called, with ht_job_cancelled() true.
 */
#ifndef HEAPTOP_JOBS_H
#define HEAPTOP_JOBS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ht_job ht_job;

typedef struct ht_job_ops {
    const char *name; /* what the status line says while it runs: "exporting" */
    /* worker thread: the long part. 0, or -1 (the job says why, in its own
     * fields, for done()). */
    int (*run)(ht_job *j);
    /* UI thread, may be NULL: wake a run() blocked in a wait after a cancel */
    void (*interrupt)(ht_job *j);
    /* UI thread: deliver the result (rc from run, -1 when cancelled before it
     * ran); ui is what ht_jobs_reap() was given */
    void (*done)(ht_job *j, int rc, void *ui);
    /* any thread, last: free the job */
    void (*destroy)(ht_job *j);
} ht_job_ops;

struct ht_job {
    const ht_job_ops *ops;
    /* the runner's */
    ht_job *next;
    atomic_int cancelled;
    int rc;
    uint64_t started_ms;    /* when run() began, 0 before */
    uint64_t notified_ms;   /* last progress notice to the loop */
    char progress[192];     /* under the runner's lock */
    struct ht_jobs *runner; /* set when started */
};

typedef struct ht_jobs {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int started, stopping;
    int fd; /* eventfd: readable when a job finished or has news */
    ht_job *queue, *queue_tail;
    ht_job *running;
    ht_job *finished, *finished_tail;
} ht_jobs;

/* 0, or -1 (no eventfd). No thread yet. */
int ht_jobs_init(ht_jobs *r);
/* Cancel every job, wait for the worker, free what is left (done() is not
 * called: the screen is going away). */
void ht_jobs_stop(ht_jobs *r);
/* The descriptor to poll for POLLIN. */
int ht_jobs_fd(const ht_jobs *r);
/* Queue a job; the runner owns it from now on. 0, or -1 (no thread could be
 * started: the job is destroyed). */
int ht_jobs_start(ht_jobs *r, ht_job *j);
/* Cancel the running job and every queued one. The number cancelled. */
int ht_jobs_cancel(ht_jobs *r);
/* UI thread: call done() of the jobs that finished, in order, and destroy
 * them. Clears the descriptor. The number reaped. */
int ht_jobs_reap(ht_jobs *r, void *ui);
/* Jobs queued or running. */
int ht_jobs_busy(ht_jobs *r);
/* The running job as the status line shows it, "exporting: 12,000 rows",
 * once it has run at least after_ms (quick jobs never flash on the screen):
 * 1 and text in out, else 0. */
int ht_jobs_status(ht_jobs *r, uint64_t after_ms, char *out, size_t n);

/* For run(): has the job been cancelled? */
int ht_job_cancelled(const ht_job *j);
/* For run(): what it is doing now, for the status line; the loop hears of it
 * at most every 100 ms. */
void ht_job_progress(ht_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
