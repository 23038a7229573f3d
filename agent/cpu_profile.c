/* cpu_profile.c - see cpu_profile.h. */
#include "cpu_profile.h"

#include "hashmap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The figures the mark counts, for a thread and a row alike. */
typedef struct figures {
    uint64_t samples, cpu_ns;
} figures;

/* The mark's view of one record: the baseline while it runs, the frozen diff
 * once it stopped; `seen` is the mark's generation when the record got it. */
typedef struct mark_base {
    figures base;
    uint32_t seen;
} mark_base;

typedef struct cpu_thread {
    char *name;
    uint8_t state, daemon, dirty;
    figures fig;
    uint64_t cpu_ns;    /* measured: the table's CPU */
    uint64_t second_ns; /* cpu_ns at the last second's turn */
    uint64_t recent_ns;
    mark_base mark;
} cpu_thread;

typedef struct cpu_row {
    uint32_t thread_id, trace_id;
    uint8_t bucket, dirty;
    figures fig;
    mark_base mark;
} cpu_row;

struct ht_cpu_profile {
    pthread_mutex_t lock;
    uint32_t max_threads, max_rows;
    cpu_thread *threads; /* [id - 1]; threads[max_threads] is HT_THREAD_OTHER */
    uint32_t nthreads;
    cpu_row *rows;
    uint32_t nrows, cap_rows;
    ht_map index; /* row key -> row */
    uint32_t *dirty_threads, ndirty_threads;
    uint32_t *dirty_rows, ndirty_rows, cap_dirty_rows;
    uint64_t samples, failed;
    /* the mark: its state, and a generation that changes at Begin and at
     * Continue (records not seen in this generation get their baseline) */
    ht_mark_state mark_state;
    uint32_t mark_gen;
};

ht_cpu_profile *ht_cpu_profile_create(uint32_t max_threads, uint32_t max_rows)
{
    ht_cpu_profile *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->max_threads = max_threads;
    p->max_rows = max_rows;
    p->threads = calloc((size_t)max_threads + 1, sizeof *p->threads);
    p->dirty_threads = calloc((size_t)max_threads + 1, sizeof *p->dirty_threads);
    if (!p->threads || !p->dirty_threads) {
        free(p->threads);
        free(p->dirty_threads);
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    ht_map_init(&p->index);
    return p;
}

static void forget(ht_cpu_profile *p)
{
    for (uint32_t i = 0; i <= p->max_threads; i++)
        free(p->threads[i].name);
    memset(p->threads, 0, ((size_t)p->max_threads + 1) * sizeof *p->threads);
    p->nthreads = p->nrows = p->ndirty_threads = p->ndirty_rows = 0;
    p->samples = p->failed = 0;
    p->mark_state = HT_MARK_NONE;
    ht_map_clear(&p->index);
}

void ht_cpu_profile_destroy(ht_cpu_profile *p)
{
    if (!p) return;
    forget(p);
    free(p->threads);
    free(p->dirty_threads);
    free(p->rows);
    free(p->dirty_rows);
    ht_map_free(&p->index);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void ht_cpu_profile_reset(ht_cpu_profile *p)
{
    pthread_mutex_lock(&p->lock);
    forget(p);
    pthread_mutex_unlock(&p->lock);
}

static uint32_t thread_index(const ht_cpu_profile *p, uint32_t id)
{
    return id == HT_THREAD_OTHER || id == 0 || id > p->nthreads ? p->max_threads : id - 1;
}

static uint32_t index_id(const ht_cpu_profile *p, uint32_t idx)
{
    return idx == p->max_threads ? HT_THREAD_OTHER : idx + 1;
}

static void thread_dirty(ht_cpu_profile *p, uint32_t idx)
{
    cpu_thread *t = &p->threads[idx];
    if (t->dirty) return;
    t->dirty = 1;
    p->dirty_threads[p->ndirty_threads++] = idx;
}

static void row_dirty(ht_cpu_profile *p, uint32_t r)
{
    cpu_row *row = &p->rows[r];
    if (row->dirty) return;
    if (p->ndirty_rows == p->cap_dirty_rows) {
        uint32_t cap = p->cap_dirty_rows ? p->cap_dirty_rows * 2 : 256;
        uint32_t *d = realloc(p->dirty_rows, (size_t)cap * sizeof *d);
        if (!d) return; /* published with the next full sync */
        p->dirty_rows = d;
        p->cap_dirty_rows = cap;
    }
    row->dirty = 1;
    p->dirty_rows[p->ndirty_rows++] = r;
}

/* A record new to the mark's current run starts its diff from here: from
 * zero when it is born while the mark runs. */
static void mark_meet(ht_cpu_profile *p, mark_base *m, const figures *now)
{
    if (m->seen == p->mark_gen) return;
    m->seen = p->mark_gen;
    m->base = p->mark_state == HT_MARK_RUNNING ? *now : (figures){0};
}

uint32_t ht_cpu_thread_add(ht_cpu_profile *p, const char *name, int daemon)
{
    pthread_mutex_lock(&p->lock);
    uint32_t idx = p->max_threads;
    if (p->nthreads < p->max_threads) {
        char *copy = strdup(name ? name : "?");
        if (copy) {
            idx = p->nthreads++;
            p->threads[idx].name = copy;
        }
    }
    cpu_thread *t = &p->threads[idx];
    if (idx == p->max_threads && !t->name) t->name = strdup("[more threads]");
    t->daemon = daemon ? 1 : 0;
    t->state = HT_THREAD_RUNNABLE;
    t->mark.seen = p->mark_gen;
    thread_dirty(p, idx);
    uint32_t id = index_id(p, idx);
    pthread_mutex_unlock(&p->lock);
    return id;
}

void ht_cpu_thread_update(ht_cpu_profile *p, uint32_t id, ht_thread_state state, const char *name)
{
    pthread_mutex_lock(&p->lock);
    uint32_t idx = thread_index(p, id);
    cpu_thread *t = &p->threads[idx];
    if (idx != p->max_threads) {
        if (t->state != state) {
            t->state = (uint8_t)state;
            if (state == HT_THREAD_TERMINATED) t->recent_ns = 0; /* no CPU % now once ended */
            thread_dirty(p, idx);
        }
        if (name && (!t->name || strcmp(t->name, name) != 0)) {
            char *copy = strdup(name);
            if (copy) {
                free(t->name);
                t->name = copy;
                thread_dirty(p, idx);
            }
        }
    }
    pthread_mutex_unlock(&p->lock);
}

static void used_locked(ht_cpu_profile *p, uint32_t idx, uint64_t cpu_ns)
{
    if (!cpu_ns) return;
    p->threads[idx].cpu_ns += cpu_ns;
    thread_dirty(p, idx);
}

void ht_cpu_thread_used(ht_cpu_profile *p, uint32_t id, uint64_t cpu_ns)
{
    pthread_mutex_lock(&p->lock);
    used_locked(p, thread_index(p, id), cpu_ns);
    pthread_mutex_unlock(&p->lock);
}

static uint64_t row_key(uint32_t thread, uint32_t trace, uint8_t bucket)
{
    return ((uint64_t)thread << 32) | (bucket ? 0xffffff00u | bucket : trace);
}

/* The row of (thread, trace or bucket), created when new; -1 when the row
 * table is full (the caller then uses the thread's overflow bucket) or out
 * of memory. */
static int64_t find_row(ht_cpu_profile *p, uint32_t thread, uint32_t trace, uint8_t bucket)
{
    uint64_t key = row_key(thread, trace, bucket), r;
    if (ht_map_get(&p->index, key, &r)) return (int64_t)r;
    if (p->nrows >= p->max_rows && bucket != HT_CPUB_OVERFLOW) return -1;
    if (p->nrows == p->cap_rows) {
        uint32_t cap = p->cap_rows ? p->cap_rows * 2 : 1024;
        cpu_row *rows = realloc(p->rows, (size_t)cap * sizeof *rows);
        if (!rows) return -1;
        p->rows = rows;
        p->cap_rows = cap;
    }
    if (ht_map_put(&p->index, key, p->nrows) != 0) return -1;
    cpu_row *row = &p->rows[p->nrows];
    *row = (cpu_row){
        .thread_id = thread, .trace_id = bucket ? HT_TRACE_NONE : trace, .bucket = bucket};
    return p->nrows++;
}

void ht_cpu_charge(ht_cpu_profile *p, uint32_t thread, uint32_t trace, ht_cpu_bucket bucket,
                   uint64_t weight_ns, int used_too)
{
    if (!bucket && (trace == HT_TRACE_OVERFLOW || trace == HT_TRACE_NONE))
        bucket = trace == HT_TRACE_NONE ? HT_CPUB_WALK_FAILED : HT_CPUB_OVERFLOW;
    pthread_mutex_lock(&p->lock);
    uint32_t idx = thread_index(p, thread);
    uint32_t tid = index_id(p, idx);
    int64_t r = find_row(p, tid, trace, (uint8_t)bucket);
    if (r < 0) {
        bucket = HT_CPUB_OVERFLOW;
        r = find_row(p, tid, HT_TRACE_NONE, HT_CPUB_OVERFLOW);
    }
    p->samples++;
    if (bucket) p->failed++;
    cpu_thread *t = &p->threads[idx];
    mark_meet(p, &t->mark, &t->fig);
    t->fig.samples++;
    t->fig.cpu_ns += weight_ns;
    if (used_too) t->cpu_ns += weight_ns;
    thread_dirty(p, idx);
    if (r >= 0) {
        cpu_row *row = &p->rows[r];
        mark_meet(p, &row->mark, &row->fig);
        row->fig.samples++;
        row->fig.cpu_ns += weight_ns;
        row_dirty(p, (uint32_t)r);
    }
    pthread_mutex_unlock(&p->lock);
}

void ht_cpu_profile_second(ht_cpu_profile *p, uint64_t elapsed_ns)
{
    pthread_mutex_lock(&p->lock);
    for (uint32_t i = 0; i <= p->max_threads; i++) {
        if (i == p->nthreads) i = p->max_threads;
        cpu_thread *t = &p->threads[i];
        if (!t->name) continue;
        uint64_t used = t->cpu_ns - t->second_ns;
        t->second_ns = t->cpu_ns;
        /* per second of wall time: a turn comes a little after a second, and
         * one thread never uses more than a second of CPU in a second */
        uint64_t recent = elapsed_ns ? (uint64_t)((double)used * 1e9 / (double)elapsed_ns) : 0;
        if (recent > 1000000000ull) recent = 1000000000ull;
        if (t->state == HT_THREAD_TERMINATED) recent = 0;
        if (recent != t->recent_ns) {
            t->recent_ns = recent;
            thread_dirty(p, i);
        }
    }
    pthread_mutex_unlock(&p->lock);
}

/* The diff of a record as published. */
static figures diff_of(const ht_cpu_profile *p, const mark_base *m, const figures *now)
{
    if (p->mark_state == HT_MARK_NONE) return (figures){0};
    if (p->mark_state == HT_MARK_STOPPED) return m->seen == p->mark_gen ? m->base : (figures){0};
    if (m->seen != p->mark_gen) return *now; /* born since Begin: all of it */
    return (figures){now->samples - m->base.samples, now->cpu_ns - m->base.cpu_ns};
}

/* End: the diff frozen into the baseline. Begin and Continue: a new
 * generation; Continue resumes from the frozen diff (base = now - diff). */
static void mark_record(ht_cpu_profile *p, ht_mark_op op, mark_base *m, const figures *now,
                        ht_mark_state before, uint32_t old_gen)
{
    if (op == HT_MARK_END) {
        if (before != HT_MARK_RUNNING) return;
        figures d = m->seen == old_gen
                        ? (figures){now->samples - m->base.samples, now->cpu_ns - m->base.cpu_ns}
                        : *now;
        m->base = d;
        m->seen = p->mark_gen;
    } else if (op == HT_MARK_BEGIN) {
        m->base = *now;
        m->seen = p->mark_gen;
    } else if (op == HT_MARK_CONTINUE) {
        figures d = before == HT_MARK_STOPPED && m->seen == old_gen ? m->base : (figures){0};
        m->base = (figures){now->samples - d.samples, now->cpu_ns - d.cpu_ns};
        m->seen = p->mark_gen;
    }
}

void ht_cpu_profile_mark(ht_cpu_profile *p, ht_mark_op op)
{
    pthread_mutex_lock(&p->lock);
    ht_mark_state before = p->mark_state;
    uint32_t old_gen = p->mark_gen;
    if (op == HT_MARK_END && before != HT_MARK_RUNNING) {
        pthread_mutex_unlock(&p->lock);
        return;
    }
    if (op == HT_MARK_CONTINUE && before == HT_MARK_RUNNING) {
        pthread_mutex_unlock(&p->lock);
        return;
    }
    /* Continue without a mark begins one */
    if (op == HT_MARK_CONTINUE && before == HT_MARK_NONE) op = HT_MARK_BEGIN;
    if (op != HT_MARK_END) p->mark_gen++;
    p->mark_state = op == HT_MARK_END ? HT_MARK_STOPPED : HT_MARK_RUNNING;
    for (uint32_t i = 0; i <= p->max_threads; i++) {
        if (i == p->nthreads) i = p->max_threads;
        cpu_thread *t = &p->threads[i];
        if (!t->name) continue;
        mark_record(p, op, &t->mark, &t->fig, before, old_gen);
        thread_dirty(p, i);
    }
    for (uint32_t r = 0; r < p->nrows; r++) {
        mark_record(p, op, &p->rows[r].mark, &p->rows[r].fig, before, old_gen);
        row_dirty(p, r);
    }
    pthread_mutex_unlock(&p->lock);
}

void ht_cpu_profile_counts(ht_cpu_profile *p, uint64_t *samples, uint64_t *failed)
{
    pthread_mutex_lock(&p->lock);
    *samples = p->samples;
    *failed = p->failed;
    pthread_mutex_unlock(&p->lock);
}

int ht_cpu_profile_take(ht_cpu_profile *p, int all, ht_cpu_batch *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&p->lock);
    uint32_t nt = all ? p->nthreads + (p->threads[p->max_threads].name ? 1 : 0) : p->ndirty_threads;
    uint32_t nr = all ? p->nrows : p->ndirty_rows;
    out->threads = calloc(nt ? nt : 1, sizeof *out->threads);
    out->names = calloc(nt ? nt : 1, sizeof *out->names);
    out->rows = calloc(nr ? nr : 1, sizeof *out->rows);
    if (!out->threads || !out->names || !out->rows) {
        pthread_mutex_unlock(&p->lock);
        ht_cpu_batch_free(out);
        return -1;
    }
    for (uint32_t k = 0; k < nt; k++) {
        uint32_t idx = all ? (k < p->nthreads ? k : p->max_threads) : p->dirty_threads[k];
        const cpu_thread *t = &p->threads[idx];
        figures d = diff_of(p, &t->mark, &t->fig);
        out->threads[out->nthreads] = (ht_cpu_thread_rec){
            .id = index_id(p, idx),
            .state = t->state,
            .daemon = t->daemon,
            .cpu_ns = t->cpu_ns,
            .recent_ns = t->recent_ns,
            .samples = t->fig.samples,
            .diff_cpu_ns = d.cpu_ns,
            .diff_samples = d.samples,
        };
        out->names[out->nthreads] = strdup(t->name ? t->name : "?");
        if (out->names[out->nthreads]) out->nthreads++;
    }
    for (uint32_t k = 0; k < nr; k++) {
        const cpu_row *row = &p->rows[all ? k : p->dirty_rows[k]];
        figures d = diff_of(p, &row->mark, &row->fig);
        out->rows[out->nrows++] = (ht_cpu_row_rec){
            .thread_id = row->thread_id,
            .trace_id = row->trace_id,
            .bucket = row->bucket,
            .samples = row->fig.samples,
            .cpu_ns = row->fig.cpu_ns,
            .diff_samples = d.samples,
            .diff_cpu_ns = d.cpu_ns,
        };
    }
    if (!all) {
        for (uint32_t k = 0; k < p->ndirty_threads; k++)
            p->threads[p->dirty_threads[k]].dirty = 0;
        for (uint32_t k = 0; k < p->ndirty_rows; k++)
            p->rows[p->dirty_rows[k]].dirty = 0;
        p->ndirty_threads = p->ndirty_rows = 0;
    }
    pthread_mutex_unlock(&p->lock);
    return 0;
}

void ht_cpu_batch_emit(const ht_cpu_batch *b, ht_sink *sink)
{
    ht_batch bt;
    ht_batch_init(&bt, sink, HT_MSG_CPU_THREADS);
    for (uint32_t k = 0; k < b->nthreads; k++) {
        ht_batch_record(&bt);
        ht_enc_cpu_thread(&bt.buf, &b->threads[k], b->names[k]);
        ht_batch_done(&bt);
    }
    ht_batch_finish(&bt);
    ht_batch_init(&bt, sink, HT_MSG_CPU_ROWS);
    for (uint32_t k = 0; k < b->nrows; k++) {
        ht_batch_record(&bt);
        ht_enc_cpu_row(&bt.buf, &b->rows[k]);
        ht_batch_done(&bt);
    }
    ht_batch_finish(&bt);
}

void ht_cpu_batch_free(ht_cpu_batch *b)
{
    for (uint32_t k = 0; k < b->nthreads; k++)
        free(b->names[k]);
    free(b->threads);
    free(b->names);
    free(b->rows);
    memset(b, 0, sizeof *b);
}
