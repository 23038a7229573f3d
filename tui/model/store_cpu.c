/* store_cpu.c - the CPU part of the store: see store.h and store_int.h. */
#include "store_int.h"

#include "hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row's identity: (thread, trace) for a stack, (thread, bucket) for a
 * bucket. Its 64-bit map key is a hash checked against the row on a hit,
 * probing on with ht_map_salt on a collision (hashmap.h). */
static uint64_t row_hash(uint32_t thread, uint32_t trace, uint8_t bucket)
{
    return ht_mix64(((uint64_t)thread << 32 | trace) ^ ((uint64_t)bucket << 59));
}

static int same_row(const ht_cpu_row_rec *r, uint32_t thread, uint32_t trace, uint8_t bucket)
{
    return r->thread_id == thread && r->bucket == bucket &&
           (bucket != HT_CPUB_NONE || r->trace_id == trace);
}

/* The row's index, or -1 with *free_key the key a new row would take. */
static int64_t find_row(const ht_store *s, uint32_t thread, uint32_t trace, uint8_t bucket,
                        uint64_t *free_key)
{
    uint64_t h = row_hash(thread, bucket == HT_CPUB_NONE ? trace : HT_TRACE_NONE, bucket), at;
    for (uint32_t salt = 0;; salt++) {
        uint64_t key = ht_map_salt(h, salt);
        if (!ht_map_get(&s->cpu_index, key, &at)) {
            if (free_key) *free_key = key;
            return -1;
        }
        if (at < s->ncpu_rows && same_row(&s->cpu_rows[at], thread, trace, bucket))
            return (int64_t)at;
    }
}

static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem, uint32_t first)
{
    if (n < *cap) return 0;
    uint32_t ncap = *cap ? *cap * 2 : first;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

static int put_row(ht_store *s, const ht_cpu_row_rec *row)
{
    uint64_t key = 0;
    int64_t at = find_row(s, row->thread_id, row->trace_id, row->bucket, &key);
    if (at >= 0) {
        s->cpu_rows[at] = *row;
        return HT_OK;
    }
    if (s->ncpu_rows >= HT_STORE_CPU_ROWS_MAX) {
        s->cpu_refused++;
        return HT_OK;
    }
    if (grow((void **)&s->cpu_rows, &s->cap_cpu_rows, s->ncpu_rows, sizeof *s->cpu_rows, 256))
        return HT_EINTERNAL;
    if (ht_map_put(&s->cpu_index, key, s->ncpu_rows) != 0) return HT_EINTERNAL;
    s->cpu_rows[s->ncpu_rows++] = *row;
    return HT_OK;
}

/* The name cut to HT_STORE_CPU_NAME_MAX bytes (never inside a UTF-8
 * sequence), NUL bytes kept out: the agent's bytes are outside input. */
static char *name_copy(ht_str name)
{
    size_t n = name.len < HT_STORE_CPU_NAME_MAX ? name.len : HT_STORE_CPU_NAME_MAX;
    if (n < name.len)
        while (n > 0 && ((unsigned char)name.s[n] & 0xc0) == 0x80)
            n--;
    char *d = malloc(n + 1);
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++)
        d[i] = name.s[i] ? name.s[i] : '?';
    d[n] = '\0';
    return d;
}

static int put_thread(ht_store *s, const ht_cpu_thread_rec *t)
{
    char *name = name_copy(t->name);
    if (!name) return HT_EINTERNAL;
    ht_cpu_thread_rec rec = *t;
    rec.name = (ht_str){0};
    uint64_t at;
    if (ht_map_get(&s->cpu_thread_index, t->id, &at)) {
        free(s->cpu_threads[at].name);
        s->cpu_threads[at] = (ht_store_cpu_thread){.rec = rec, .name = name};
        return HT_OK;
    }
    if (s->ncpu_threads >= HT_STORE_CPU_THREADS_MAX) {
        free(name);
        s->cpu_refused++;
        return HT_OK;
    }
    if (grow((void **)&s->cpu_threads, &s->cap_cpu_threads, s->ncpu_threads, sizeof *s->cpu_threads,
             64) != 0 ||
        ht_map_put(&s->cpu_thread_index, t->id, s->ncpu_threads) != 0) {
        free(name);
        return HT_EINTERNAL;
    }
    s->cpu_threads[s->ncpu_threads++] = (ht_store_cpu_thread){.rec = rec, .name = name};
    return HT_OK;
}

int ht_store_cpu_apply(ht_store *s, int type, ht_reader *r)
{
    int rc = HT_OK;
    uint32_t n = ht_get_u32(r);
    for (uint32_t i = 0; i < n && rc == HT_OK && !r->failed; i++) {
        if (type == HT_MSG_CPU_THREADS) {
            ht_cpu_thread_rec t;
            ht_dec_cpu_thread(r, &t);
            if (!r->failed) rc = put_thread(s, &t);
        } else {
            ht_cpu_row_rec row;
            ht_dec_cpu_row(r, &row);
            if (!r->failed) rc = put_row(s, &row);
        }
    }
    return rc;
}

void ht_store_cpu_clear(ht_store *s)
{
    for (uint32_t i = 0; i < s->ncpu_threads; i++)
        free(s->cpu_threads[i].name);
    s->ncpu_threads = 0;
    ht_map_clear(&s->cpu_thread_index);
    s->ncpu_rows = 0;
    ht_map_clear(&s->cpu_index);
    s->cpu_refused = 0;
}

void ht_store_cpu_free(ht_store *s)
{
    free(s->cpu_threads);
    ht_map_free(&s->cpu_thread_index);
    free(s->cpu_rows);
    ht_map_free(&s->cpu_index);
}

int ht_store_copy_trace(ht_store *dst, const ht_store *src, uint32_t id)
{
    const ht_strace *t = ht_store_trace(src, id);
    if (!t || id >= dst->cap_traces || dst->traces[id].frames) return 0;
    ht_frame_rec *f = malloc((t->depth ? t->depth : 1) * sizeof *f);
    if (!f) return -1;
    memcpy(f, t->frames, t->depth * sizeof *f);
    dst->traces[id] = (ht_strace){.depth = t->depth, .frames = f};
    return 0;
}

int ht_store_cpu_copy(ht_store *dst, const ht_store *src)
{
    for (uint32_t i = 0; i < src->ncpu_threads; i++) {
        const ht_store_cpu_thread *t = &src->cpu_threads[i];
        ht_cpu_thread_rec rec = t->rec;
        rec.name = (ht_str){.s = t->name, .len = (uint32_t)strlen(t->name)};
        if (put_thread(dst, &rec) != HT_OK) return -1;
    }
    if (src->ncpu_rows && src->cap_traces && !dst->traces) {
        dst->traces = calloc(src->cap_traces, sizeof *dst->traces);
        if (!dst->traces) return -1;
        dst->cap_traces = src->cap_traces;
    }
    for (uint32_t i = 0; i < src->ncpu_rows; i++) {
        const ht_cpu_row_rec *row = &src->cpu_rows[i];
        if (put_row(dst, row) != HT_OK) return -1;
        if (row->bucket == HT_CPUB_NONE && ht_store_copy_trace(dst, src, row->trace_id) != 0)
            return -1;
    }
    dst->cpu_refused = src->cpu_refused;
    return 0;
}

const ht_store_cpu_thread *ht_store_cpu_thread_by_id(const ht_store *s, uint32_t id)
{
    uint64_t at;
    if (ht_map_get(&s->cpu_thread_index, id, &at) && at < s->ncpu_threads)
        return &s->cpu_threads[at];
    return NULL;
}

const ht_cpu_row_rec *ht_store_cpu_row(const ht_store *s, uint32_t thread_id, uint32_t trace_id,
                                       uint8_t bucket)
{
    int64_t at = find_row(s, thread_id, trace_id, bucket, NULL);
    return at >= 0 ? &s->cpu_rows[at] : NULL;
}

void ht_store_cpu_row_name(const ht_store *s, const ht_cpu_row_rec *row, char *out, size_t n)
{
    if (row->bucket == HT_CPUB_NONE) {
        ht_store_site_name(s, row->trace_id, out, n);
        return;
    }
    const char *b = ht_cpu_bucket_name(row->bucket);
    if (b)
        snprintf(out, n, "[%s]", b);
    else
        snprintf(out, n, "[bucket %u]", (unsigned)row->bucket);
}

void ht_store_cpu_thread_name(const ht_store *s, uint32_t id, char *out, size_t n)
{
    const ht_store_cpu_thread *t = ht_store_cpu_thread_by_id(s, id);
    if (t)
        snprintf(out, n, "%s", t->name);
    else if (id == HT_THREAD_OTHER)
        snprintf(out, n, "[other threads]");
    else
        snprintf(out, n, "[thread %u]", (unsigned)id);
}
