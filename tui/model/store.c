/* store.c - see store.h. */
#include "store.h"

#include "hash.h"
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ID        (1u << 26)       /* refuse absurd ids instead of allocating for them */
#define MAX_TELEMETRY (7u * 24 * 3600) /* a week of seconds */

void ht_store_init(ht_store *s)
{
    memset(s, 0, sizeof *s);
    ht_map_init(&s->index);
    ht_map_init(&s->cpu_thread_index);
    ht_map_init(&s->cpu_index);
    ht_map_init(&s->drag_index);
}

static void free_names(char **names, uint32_t cap)
{
    for (uint32_t i = 0; i < cap; i++) {
        free(names[i]);
        names[i] = NULL;
    }
}

void ht_store_clear(ht_store *s)
{
    free_names(s->classes, s->cap_classes);
    for (uint32_t i = 0; i < s->cap_methods; i++) {
        free(s->methods[i].cls);
        free(s->methods[i].name);
        free(s->methods[i].src);
        memset(&s->methods[i], 0, sizeof s->methods[i]);
    }
    for (uint32_t i = 0; i < s->cap_traces; i++) {
        free(s->traces[i].frames);
        memset(&s->traces[i], 0, sizeof s->traces[i]);
    }
    s->nrows = 0;
    ht_map_clear(&s->index);
    ht_store_cpu_clear(s);
    ht_store_drag_clear(s);
    s->ntelemetry = 0;
    memset(&s->mark, 0, sizeof s->mark);
    s->generation++;
}

void ht_store_free(ht_store *s)
{
    ht_store_clear(s);
    free(s->classes);
    free(s->methods);
    free(s->traces);
    free(s->rows);
    ht_map_free(&s->index);
    ht_store_cpu_free(s);
    ht_store_drag_free(s);
    free(s->telemetry);
    free(s->info.main_class);
    free(s->info.jdk_version);
    free(s->info.options);
    free(s->info.tcp);
    memset(s, 0, sizeof *s);
}

static char *dup_or_null(const char *s, int *failed)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) *failed = 1;
    return d;
}

static void *copy_of(const void *p, size_t n, int *failed)
{
    if (!p || n == 0) return NULL;
    void *d = malloc(n);
    if (!d) {
        *failed = 1;
        return NULL;
    }
    return memcpy(d, p, n);
}

int ht_store_snapshot(ht_store *dst, const ht_store *src)
{
    int failed = 0;
    dst->info = src->info;
    dst->info.main_class = dup_or_null(src->info.main_class, &failed);
    dst->info.jdk_version = dup_or_null(src->info.jdk_version, &failed);
    dst->info.options = dup_or_null(src->info.options, &failed);
    dst->info.tcp = dup_or_null(src->info.tcp, &failed);
    dst->classes = calloc(src->cap_classes ? src->cap_classes : 1, sizeof *dst->classes);
    dst->methods = calloc(src->cap_methods ? src->cap_methods : 1, sizeof *dst->methods);
    if (!dst->classes || !dst->methods) failed = 1;
    dst->cap_classes = dst->classes ? src->cap_classes : 0;
    dst->cap_methods = dst->methods ? src->cap_methods : 0;
    for (uint32_t i = 0; !failed && i < src->cap_classes; i++)
        dst->classes[i] = dup_or_null(src->classes[i], &failed);
    for (uint32_t i = 0; !failed && i < src->cap_methods; i++) {
        dst->methods[i].cls = dup_or_null(src->methods[i].cls, &failed);
        dst->methods[i].name = dup_or_null(src->methods[i].name, &failed);
        dst->methods[i].src = dup_or_null(src->methods[i].src, &failed);
    }
    dst->rows = copy_of(src->rows, (size_t)src->nrows * sizeof *src->rows, &failed);
    dst->nrows = dst->cap_rows = dst->rows ? src->nrows : 0;
    dst->telemetry =
        copy_of(src->telemetry, (size_t)src->ntelemetry * sizeof *src->telemetry, &failed);
    dst->ntelemetry = dst->cap_telemetry = dst->telemetry ? src->ntelemetry : 0;
    dst->mark = src->mark;
    dst->generation = src->generation;
    if (!failed && ht_store_cpu_copy(dst, src) != 0) failed = 1;
    if (!failed && ht_store_drag_copy(dst, src) != 0) failed = 1;
    if (failed) {
        ht_store_free(dst);
        return -1;
    }
    return 0;
}

/* Grow an array of `elem` sized items indexed by id so id fits (zero-filled). */
static int fit(void **arr, uint32_t *cap, uint32_t id, size_t elem)
{
    if (id < *cap) return 0;
    if (id >= MAX_ID) return -1;
    uint32_t ncap = *cap ? *cap : 64;
    while (ncap <= id)
        ncap *= 2;
    void *n = realloc(*arr, (size_t)ncap * elem);
    if (!n) return -1;
    memset((char *)n + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *arr = n;
    *cap = ncap;
    return 0;
}

static int set_name(char ***names, uint32_t *cap, uint32_t id, ht_str name)
{
    if (fit((void **)names, cap, id, sizeof(char *)) != 0) return HT_EINTERNAL;
    char *copy = ht_str_dup(name);
    if (!copy) return HT_EINTERNAL;
    free((*names)[id]);
    (*names)[id] = copy;
    return HT_OK;
}

static int put_row(ht_store *s, const ht_agg_rec *a)
{
    uint64_t key = ht_row_key(a->trace_id, a->class_id), at;
    if (ht_map_get(&s->index, key, &at)) {
        s->rows[at] = *a;
        return HT_OK;
    }
    if (s->nrows == s->cap_rows) {
        uint32_t ncap = s->cap_rows ? s->cap_rows * 2 : 1024;
        ht_agg_rec *n = realloc(s->rows, (size_t)ncap * sizeof *n);
        if (!n) return HT_EINTERNAL;
        s->rows = n;
        s->cap_rows = ncap;
    }
    if (ht_map_put(&s->index, key, s->nrows) != 0) return HT_EINTERNAL;
    s->rows[s->nrows++] = *a;
    return HT_OK;
}

static int add_telemetry(ht_store *s, const ht_telemetry_rec *t)
{
    if (s->ntelemetry && s->telemetry[s->ntelemetry - 1].t_ms >= t->t_ms) {
        /* the sync history and the stream can overlap: keep one reading per time */
        return HT_OK;
    }
    if (s->ntelemetry == MAX_TELEMETRY) {
        memmove(s->telemetry, s->telemetry + 1, (MAX_TELEMETRY - 1) * sizeof *s->telemetry);
        s->ntelemetry--;
    }
    if (s->ntelemetry == s->cap_telemetry) {
        uint32_t ncap = s->cap_telemetry ? s->cap_telemetry * 2 : 256;
        ht_telemetry_rec *n = realloc(s->telemetry, (size_t)ncap * sizeof *n);
        if (!n) return HT_EINTERNAL;
        s->telemetry = n;
        s->cap_telemetry = ncap;
    }
    s->telemetry[s->ntelemetry++] = *t;
    return HT_OK;
}

static void set_info(ht_store *s, const ht_hello *h)
{
    s->info.pid = h->pid;
    s->info.start_epoch_ms = h->start_epoch_ms;
    s->info.interval = h->interval;
    s->info.depth = h->depth;
    s->info.max_traces = h->max_traces;
    s->info.viewers = h->viewers;
    s->info.live = h->live;
    s->info.paused = h->paused;
    free(s->info.main_class);
    free(s->info.jdk_version);
    free(s->info.options);
    free(s->info.tcp);
    s->info.main_class = ht_str_dup(h->main_class);
    s->info.jdk_version = ht_str_dup(h->jdk_version);
    s->info.options = ht_str_dup(h->options);
    s->info.tcp = h->tcp.len ? ht_str_dup(h->tcp) : NULL;
    s->info.cpu_mode = h->cpu_mode;
    s->info.cpu_interval_us = h->cpu_interval_us;
    s->info.cpu_configured_us = h->cpu_interval_us;
}

int ht_store_apply(ht_store *s, const ht_msg *m)
{
    ht_reader r;
    ht_msg_reader(m, &r);
    int rc = HT_OK;
    uint32_t n = 0;
    switch (m->type) {
    case HT_MSG_HELLO_REP: {
        ht_hello h;
        ht_dec_hello(&r, &h);
        set_info(s, &h);
        break;
    }
    case HT_MSG_CLASSES:
        n = ht_get_u32(&r);
        for (uint32_t i = 0; i < n && rc == HT_OK; i++) {
            ht_class_rec c;
            ht_dec_class(&r, &c);
            rc = set_name(&s->classes, &s->cap_classes, c.id, c.name);
        }
        break;
    case HT_MSG_METHODS:
        n = ht_get_u32(&r);
        for (uint32_t i = 0; i < n && rc == HT_OK; i++) {
            ht_method_rec mr;
            ht_dec_method(&r, &mr);
            if (fit((void **)&s->methods, &s->cap_methods, mr.id, sizeof *s->methods) != 0) {
                rc = HT_EINTERNAL;
                break;
            }
            ht_smethod *sm = &s->methods[mr.id];
            free(sm->cls);
            free(sm->name);
            free(sm->src);
            sm->cls = ht_str_dup(mr.class_name);
            sm->name = ht_str_dup(mr.method_name);
            sm->src = ht_str_dup(mr.source_file);
        }
        break;
    case HT_MSG_TRACES:
        n = ht_get_u32(&r);
        for (uint32_t i = 0; i < n && rc == HT_OK; i++) {
            ht_trace_head th;
            ht_dec_trace_head(&r, &th);
            ht_frame_rec *frames = calloc(th.depth ? th.depth : 1, sizeof *frames);
            if (!frames || fit((void **)&s->traces, &s->cap_traces, th.id, sizeof *s->traces)) {
                free(frames);
                rc = HT_EINTERNAL;
                break;
            }
            for (uint16_t f = 0; f < th.depth; f++)
                ht_dec_frame(&r, &frames[f]);
            free(s->traces[th.id].frames);
            s->traces[th.id].frames = frames;
            s->traces[th.id].depth = th.depth;
        }
        break;
    case HT_MSG_MARK:
        ht_dec_mark(&r, &s->mark);
        break;
    case HT_MSG_AGGS:
        n = ht_get_u32(&r);
        for (uint32_t i = 0; i < n && rc == HT_OK; i++) {
            ht_agg_rec a;
            ht_dec_agg(&r, &a);
            rc = put_row(s, &a);
        }
        break;
    case HT_MSG_TELEMETRY:
        n = ht_get_u32(&r);
        for (uint32_t i = 0; i < n && rc == HT_OK; i++) {
            ht_telemetry_rec t;
            ht_dec_telemetry(&r, &t);
            rc = add_telemetry(s, &t);
            s->info.interval = t.interval;
            s->info.paused = t.paused;
            s->info.cpu_mode = t.cpu_mode;
            s->info.cpu_interval_us = t.cpu_interval_us;
        }
        break;
    case HT_MSG_CPU_THREADS:
    case HT_MSG_CPU_ROWS:
        rc = ht_store_cpu_apply(s, m->type, &r);
        break;
    case HT_MSG_DRAG_STATE:
    case HT_MSG_DRAG_ROWS:
        rc = ht_store_drag_apply(s, m->type, &r);
        break;
    default:
        break; /* control messages carry nothing to keep */
    }
    if (r.failed) rc = HT_EBODY;
    s->generation++;
    return rc;
}

const char *ht_store_class(const ht_store *s, uint32_t id)
{
    if (id < s->cap_classes && s->classes[id]) return s->classes[id];
    return "<unknown class>";
}

const ht_strace *ht_store_trace(const ht_store *s, uint32_t id)
{
    if (id < s->cap_traces && s->traces[id].frames) return &s->traces[id];
    return NULL;
}

int ht_store_from_session(ht_store *s, const uint8_t *p, size_t len)
{
    ht_reader r;
    ht_reader_init(&r, p, len);
    int rc = HT_OK;
    while (rc == HT_OK && ht_remaining(&r) > 0) {
        uint32_t n = ht_get_u32(&r); /* each message after its length */
        const uint8_t *msg = ht_get_bytes(&r, n);
        if (r.failed || !msg) return HT_EBODY;
        ht_msg m;
        rc = ht_msg_open(msg, n, &m);
        if (rc == HT_OK) rc = ht_msg_validate(&m);
        if (rc == HT_OK && m.type == HT_MSG_SYNC_REP) {
            ht_sync_iter it;
            rc = ht_sync_begin(&m, &it);
            ht_msg inner;
            int more = 0;
            while (rc == HT_OK && (more = ht_sync_next(&it, &inner)) == 1)
                rc = ht_store_apply(s, &inner);
            if (rc == HT_OK && more < 0) rc = -more;
        } else if (rc == HT_OK) {
            rc = ht_store_apply(s, &m);
        }
    }
    return rc;
}

const ht_agg_rec *ht_store_row(const ht_store *s, uint32_t trace_id, uint32_t class_id)
{
    uint64_t at;
    return ht_map_get(&s->index, ht_row_key(trace_id, class_id), &at) ? &s->rows[at] : NULL;
}

const ht_smethod *ht_store_method(const ht_store *s, uint32_t id)
{
    if (id < s->cap_methods && s->methods[id].name) return &s->methods[id];
    return NULL;
}

void ht_store_frame_name(const ht_store *s, const ht_frame_rec *f, char *out, size_t n)
{
    const ht_smethod *m = ht_store_method(s, f->method_id);
    const char *cls = m ? m->cls : "<unknown>";
    const char *name = m ? m->name : "<unknown>";
    if (f->line >= 0)
        snprintf(out, n, "%s.%s:%d", cls, name, f->line);
    else if (f->line == HT_LINE_NATIVE) /* says why there is no line */
        snprintf(out, n, "%s.%s [native]", cls, name);
    else
        snprintf(out, n, "%s.%s", cls, name);
}

void ht_store_site_name(const ht_store *s, uint32_t trace_id, char *out, size_t n)
{
    if (trace_id == HT_TRACE_OVERFLOW) {
        snprintf(out, n, "[overflow: trace table full]");
        return;
    }
    const ht_strace *t = ht_store_trace(s, trace_id);
    if (!t || t->depth == 0) {
        snprintf(out, n, trace_id == HT_TRACE_NONE ? "[no Java stack]" : "[unknown trace]");
        return;
    }
    ht_store_frame_name(s, &t->frames[0], out, n);
}

char *ht_store_stack_text(const ht_store *s, uint32_t trace_id)
{
    const ht_strace *t = ht_store_trace(s, trace_id);
    char frame[1024];
    if (!t || t->depth == 0) {
        ht_store_site_name(s, trace_id, frame, sizeof frame);
        return strdup(frame);
    }
    size_t cap = 256, len = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    out[0] = '\0';
    for (uint16_t i = 0; i < t->depth; i++) {
        ht_store_frame_name(s, &t->frames[i], frame, sizeof frame);
        size_t need = len + strlen(frame) + 5;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            char *n = realloc(out, cap);
            if (!n) {
                free(out);
                return NULL;
            }
            out = n;
        }
        len += (size_t)sprintf(out + len, "%s%s", i ? " <- " : "", frame);
    }
    return out;
}

int ht_store_trace_cut(const ht_store *s, uint32_t trace_id)
{
    const ht_strace *t = ht_store_trace(s, trace_id);
    return t && s->info.depth && t->depth >= s->info.depth;
}

int ht_store_has_mark(const ht_store *s)
{
    return s->mark.state != HT_MARK_NONE;
}

const ht_telemetry_rec *ht_store_last_telemetry(const ht_store *s)
{
    return s->ntelemetry ? &s->telemetry[s->ntelemetry - 1] : NULL;
}
