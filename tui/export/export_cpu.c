/* export_cpu.c - see export_cpu.h. */
#include "export_cpu.h"

#include "hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const CPU_COLS[] = {"thread", "frame",     "stack", "samples",
                                       "cpu_ms", "truncated", NULL};
static const char *const THREAD_COLS[] = {"thread", "state", "cpu_ms", "samples", NULL};

static void header_line(FILE *f, const char *label, const char *const *cols)
{
    fputs(label, f);
    for (int i = 0; cols[i]; i++)
        fprintf(f, "%s%s", i ? "," : "", cols[i]);
    fputc('\n', f);
}

void ht_export_cpu_headers(FILE *f)
{
    header_line(f, "cpu.csv:     ", CPU_COLS);
    header_line(f, "threads.csv: ", THREAD_COLS);
}

const char *ht_cpu_attribution(int cpu_mode)
{
    switch (cpu_mode) {
    case HT_CPU_ON:
        return "at safepoints (JVMTI stacks)";
    case HT_CPU_ASYNC:
        return "at any instruction (AsyncGetCallTrace)";
    default:
        return "";
    }
}

static void csv_ms(ht_csv *o, uint64_t ns)
{
    char b[32];
    snprintf(b, sizeof b, "%.3f", (double)ns / 1e6);
    ht_csv_field(o, b);
}

/* The rows written: copies (merged ones are sums), most CPU first. */
typedef struct cpu_rows {
    const ht_store *s;
    ht_cpu_row_rec *rows;
    uint32_t n;
    int merged, mark;
} cpu_rows;

static uint64_t row_ns(const ht_cpu_row_rec *r, int mark)
{
    return mark ? r->diff_cpu_ns : r->cpu_ns;
}

static int by_cpu(const void *a, const void *b, void *ctx)
{
    const ht_cpu_row_rec *x = a, *y = b;
    int mark = *(const int *)ctx;
    uint64_t nx = row_ns(x, mark), ny = row_ns(y, mark);
    if (nx != ny) return nx > ny ? -1 : 1;
    if (x->thread_id != y->thread_id) return x->thread_id < y->thread_id ? -1 : 1;
    if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
    return x->trace_id < y->trace_id ? -1 : x->trace_id > y->trace_id;
}

/* rows[] += r, merged by stack (or bucket) over the threads. */
static int merge_row(ht_map *at, cpu_rows *c, const ht_cpu_row_rec *r)
{
    uint64_t key = r->bucket ? (1ull << 32) | r->bucket : r->trace_id, i;
    if (ht_map_get(at, key, &i)) {
        ht_cpu_row_rec *m = &c->rows[i];
        m->samples += r->samples;
        m->cpu_ns += r->cpu_ns;
        m->diff_samples += r->diff_samples;
        m->diff_cpu_ns += r->diff_cpu_ns;
        return 0;
    }
    if (ht_map_put(at, key, c->n) != 0) return -1;
    c->rows[c->n] = *r;
    c->rows[c->n++].thread_id = HT_CPU_EXPORT_ALL_THREADS;
    return 0;
}

static int collect(cpu_rows *c, const ht_store *s, const ht_cpu_export *how)
{
    *c = (cpu_rows){.s = s, .merged = how && how->merged, .mark = how && how->mark};
    c->rows = malloc(((size_t)s->ncpu_rows + 1) * sizeof *c->rows);
    if (!c->rows) return -1;
    ht_map at;
    ht_map_init(&at);
    int rc = 0;
    for (uint32_t i = 0; i < s->ncpu_rows && rc == 0; i++) {
        const ht_cpu_row_rec *r = &s->cpu_rows[i];
        if (how && how->thread != HT_CPU_EXPORT_ALL_THREADS && r->thread_id != how->thread)
            continue;
        if (c->merged)
            rc = merge_row(&at, c, r);
        else
            c->rows[c->n++] = *r;
    }
    ht_map_free(&at);
    if (rc != 0) {
        free(c->rows);
        errno = ENOMEM;
        return -1;
    }
    qsort_r(c->rows, c->n, sizeof *c->rows, by_cpu, &c->mark);
    return 0;
}

static void cpu_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const cpu_rows *c = ctx;
    const ht_cpu_row_rec *r = &c->rows[i];
    char name[1024];
    if (c->merged)
        name[0] = '\0';
    else
        ht_store_cpu_thread_name(c->s, r->thread_id, name, sizeof name);
    ht_csv_field(o, name);
    ht_store_cpu_row_name(c->s, r, name, sizeof name);
    ht_csv_field(o, name);
    char *stack = r->bucket == HT_CPUB_NONE ? ht_store_stack_text(c->s, r->trace_id) : NULL;
    ht_csv_field(o, stack ? stack : name); /* a bucket's stack is its name */
    free(stack);
    ht_csv_u64(o, c->mark ? r->diff_samples : r->samples);
    csv_ms(o, row_ns(r, c->mark));
    ht_csv_u64(o, r->bucket == HT_CPUB_NONE && ht_store_trace_cut(c->s, r->trace_id));
}

int ht_export_cpu(const ht_store *s, const char *path, const ht_cpu_export *how,
                  const ht_progress *p)
{
    cpu_rows c;
    if (collect(&c, s, how) != 0) return -1;
    int rc = ht_csv_write_rows(path, CPU_COLS, c.n, cpu_row, &c, p);
    int e = errno;
    free(c.rows);
    errno = e;
    return rc;
}

typedef struct cpu_threads {
    const ht_store *s;
    uint32_t *order; /* indexes into s->cpu_threads */
    int mark;
} cpu_threads;

static uint64_t thread_ns(const ht_store_cpu_thread *t, int mark)
{
    return mark ? t->rec.diff_cpu_ns : t->rec.cpu_ns;
}

static int by_thread_cpu(const void *a, const void *b, void *ctx)
{
    const cpu_threads *c = ctx;
    const ht_store_cpu_thread *x = &c->s->cpu_threads[*(const uint32_t *)a];
    const ht_store_cpu_thread *y = &c->s->cpu_threads[*(const uint32_t *)b];
    uint64_t nx = thread_ns(x, c->mark), ny = thread_ns(y, c->mark);
    if (nx != ny) return nx > ny ? -1 : 1;
    return x->rec.id < y->rec.id ? -1 : x->rec.id > y->rec.id;
}

static void thread_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const cpu_threads *c = ctx;
    const ht_store_cpu_thread *t = &c->s->cpu_threads[c->order[i]];
    ht_csv_field(o, t->name);
    ht_csv_field(o, ht_thread_state_name(t->rec.state));
    csv_ms(o, thread_ns(t, c->mark));
    ht_csv_u64(o, c->mark ? t->rec.diff_samples : t->rec.samples);
}

int ht_export_cpu_threads(const ht_store *s, const char *path, int mark, const ht_progress *p)
{
    cpu_threads c = {.s = s, .mark = mark};
    c.order = malloc(((size_t)s->ncpu_threads + 1) * sizeof *c.order);
    if (!c.order) {
        errno = ENOMEM;
        return -1;
    }
    for (uint32_t i = 0; i < s->ncpu_threads; i++)
        c.order[i] = i;
    qsort_r(c.order, s->ncpu_threads, sizeof *c.order, by_thread_cpu, &c);
    int rc = ht_csv_write_rows(path, THREAD_COLS, s->ncpu_threads, thread_row, &c, p);
    int e = errno;
    free(c.order);
    errno = e;
    return rc;
}
