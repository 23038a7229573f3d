/* The job runner: jobs run off the calling thread, one at a time, in order;
 * done() runs on the thread that reaps; the descriptor wakes a poll when a job
 * finishes or has progress; a running job is cancelled (interrupt() wakes it)
 * and queued ones never run; stopping with jobs in flight frees them all. */
#include "check.h"
#include "jobs.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct test_job {
    ht_job job; /* first */
    int id;
    int block; /* run until cancelled */
    atomic_int interrupted;
    pthread_t ran_on;
} test_job;

static int g_order[16], g_norder, g_done_rc[16], g_done_cancelled[16], g_destroyed;
static pthread_t g_ui;
static int g_done_on_ui = 1;

static int run(ht_job *j)
{
    test_job *t = (test_job *)j;
    t->ran_on = pthread_self();
    ht_job_progress(j, "step %d", t->id);
    while (t->block && !ht_job_cancelled(j))
        usleep(1000);
    return t->block ? -1 : t->id;
}

static void interrupt(ht_job *j)
{
    atomic_store(&((test_job *)j)->interrupted, 1);
}

static void done(ht_job *j, int rc, void *ui)
{
    test_job *t = (test_job *)j;
    if (!pthread_equal(pthread_self(), g_ui) || ui != &g_ui) g_done_on_ui = 0;
    g_order[g_norder] = t->id;
    g_done_rc[g_norder] = rc;
    g_done_cancelled[g_norder] = ht_job_cancelled(j);
    g_norder++;
}

static void destroy(ht_job *j)
{
    g_destroyed++;
    free(j);
}

static const ht_job_ops OPS = {"testing", run, interrupt, done, destroy};

static test_job *make(int id, int block)
{
    test_job *t = calloc(1, sizeof *t);
    t->job.ops = &OPS;
    t->id = id;
    t->block = block;
    return t;
}

/* Poll the descriptor and reap until n jobs are done (or ~5 s). */
static void reap_until(ht_jobs *r, int n)
{
    for (int k = 0; k < 500 && g_norder < n; k++) {
        struct pollfd p = {ht_jobs_fd(r), POLLIN, 0};
        poll(&p, 1, 10);
        if (p.revents & POLLIN) ht_jobs_reap(r, &g_ui);
    }
}

int main(void)
{
    g_ui = pthread_self();
    ht_jobs r;
    CHECK(ht_jobs_init(&r) == 0);
    CHECK(!ht_jobs_busy(&r));

    /* three quick jobs: in order, off this thread, results delivered here */
    test_job *a = make(1, 0);
    CHECK(ht_jobs_start(&r, &a->job) == 0);
    CHECK(ht_jobs_start(&r, &make(2, 0)->job) == 0);
    CHECK(ht_jobs_start(&r, &make(3, 0)->job) == 0);
    reap_until(&r, 3);
    CHECK(g_norder == 3 && g_order[0] == 1 && g_order[1] == 2 && g_order[2] == 3);
    CHECK(g_done_rc[0] == 1 && g_done_rc[2] == 3 && !g_done_cancelled[1]);
    CHECK(g_done_on_ui);
    CHECK(g_destroyed == 3 && !ht_jobs_busy(&r));

    /* a job that blocks until cancelled, and one queued behind it */
    test_job *b = make(4, 1);
    test_job *c = make(5, 0);
    ht_jobs_start(&r, &b->job);
    ht_jobs_start(&r, &c->job);
    char text[256] = "";
    int shown = 0;
    for (int k = 0; k < 500 && !shown; k++) {
        usleep(2000);
        shown = ht_jobs_status(&r, 0, text, sizeof text);
    }
    CHECK(shown && strstr(text, "testing") && strstr(text, "1 more waiting"));
    for (int k = 0; k < 500 && !strstr(text, "step 4"); k++) {
        usleep(2000);
        ht_jobs_status(&r, 0, text, sizeof text);
    }
    CHECK(strstr(text, "testing: step 4") != NULL);
    CHECK(!ht_jobs_status(&r, 60000, text, sizeof text)); /* not yet a minute */
    CHECK(ht_jobs_busy(&r));
    CHECK(ht_jobs_cancel(&r) == 2);
    CHECK(atomic_load(&b->interrupted));
    reap_until(&r, 5);
    CHECK(g_norder == 5 && g_order[3] == 4 && g_order[4] == 5);
    CHECK(g_done_cancelled[3] && g_done_rc[3] == -1);
    CHECK(g_done_cancelled[4] && g_done_rc[4] == -1); /* never ran */
    CHECK(!ht_jobs_busy(&r));

    /* stopping with a job running and one queued frees both, calls no done() */
    ht_jobs_start(&r, &make(6, 1)->job);
    ht_jobs_start(&r, &make(7, 0)->job);
    usleep(20000);
    ht_jobs_stop(&r);
    CHECK(g_destroyed == 7 && g_norder == 5);

    /* a runner that never ran a job stops cleanly too */
    ht_jobs idle;
    CHECK(ht_jobs_init(&idle) == 0);
    ht_jobs_stop(&idle);
    return check_summary();
}
