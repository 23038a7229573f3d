/*
 * hprof.c - HPROF reader: header and first pass (see hprof.h; the file
 * itself, gzip and the SIGBUS guard are in hprof_file.c).
 *
 * All multi-byte numbers in HPROF are big-endian. Offsets are size_t into the
 * mapping; sizes computed from the file's counts are uint64_t so that a
 * 2^32-element array of 8-byte ids cannot overflow before it is compared with
 * what is left.
 */
#include "hprof.h"

#include "hashmap.h"
#include "java_name.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HPROF tags (the format's numbers) */
enum {
    TAG_UTF8 = 0x01,
    TAG_LOAD_CLASS = 0x02,
    TAG_UNLOAD_CLASS = 0x03,
    TAG_FRAME = 0x04,
    TAG_TRACE = 0x05,
    TAG_ALLOC_SITES = 0x06,
    TAG_HEAP_SUMMARY = 0x07,
    TAG_START_THREAD = 0x0A,
    TAG_END_THREAD = 0x0B,
    TAG_HEAP_DUMP = 0x0C,
    TAG_CPU_SAMPLES = 0x0D,
    TAG_CONTROL_SETTINGS = 0x0E,
    TAG_HEAP_DUMP_SEGMENT = 0x1C,
    TAG_HEAP_DUMP_END = 0x2C,
};
enum {
    SUB_ROOT_UNKNOWN = 0xFF,
    SUB_ROOT_JNI_GLOBAL = 0x01,
    SUB_ROOT_JNI_LOCAL = 0x02,
    SUB_ROOT_JAVA_FRAME = 0x03,
    SUB_ROOT_NATIVE_STACK = 0x04,
    SUB_ROOT_STICKY_CLASS = 0x05,
    SUB_ROOT_THREAD_BLOCK = 0x06,
    SUB_ROOT_MONITOR_USED = 0x07,
    SUB_ROOT_THREAD_OBJ = 0x08,
    SUB_CLASS_DUMP = 0x20,
    SUB_INSTANCE_DUMP = 0x21,
    SUB_OBJ_ARRAY_DUMP = 0x22,
    SUB_PRIM_ARRAY_DUMP = 0x23,
};
/* basic types 4..11 (boolean .. long), as in a primitive array dump */
#define NTYPES 12

static const char *const rec_names[HT_REC_COUNT] = {
    "UTF8",        "LOAD CLASS",       "UNLOAD CLASS",      "FRAME",
    "TRACE",       "ALLOC SITES",      "HEAP SUMMARY",      "START THREAD",
    "END THREAD",  "HEAP DUMP",        "HEAP DUMP SEGMENT", "HEAP DUMP END",
    "CPU SAMPLES", "CONTROL SETTINGS", "unknown record"};
static const char *const sub_names[HT_SUB_COUNT] = {
    "ROOT UNKNOWN",        "ROOT JNI GLOBAL",   "ROOT JNI LOCAL",    "ROOT JAVA FRAME",
    "ROOT NATIVE STACK",   "ROOT STICKY CLASS", "ROOT THREAD BLOCK", "ROOT MONITOR USED",
    "ROOT THREAD OBJECT",  "CLASS DUMP",        "INSTANCE DUMP",     "OBJECT ARRAY DUMP",
    "PRIMITIVE ARRAY DUMP"};

/* The GC roots: their tag, and the ids and bytes after the object's id. */
static const struct {
    uint8_t tag, ids, bytes;
} roots[HT_SUB_ROOT_COUNT] = {
    [HT_SUB_ROOT_UNKNOWN] = {SUB_ROOT_UNKNOWN, 0, 0},
    [HT_SUB_ROOT_JNI_GLOBAL] = {SUB_ROOT_JNI_GLOBAL, 1, 0},     /* its JNI ref's id */
    [HT_SUB_ROOT_JNI_LOCAL] = {SUB_ROOT_JNI_LOCAL, 0, 8},       /* thread, frame */
    [HT_SUB_ROOT_JAVA_FRAME] = {SUB_ROOT_JAVA_FRAME, 0, 8},     /* thread, frame */
    [HT_SUB_ROOT_NATIVE_STACK] = {SUB_ROOT_NATIVE_STACK, 0, 4}, /* thread */
    [HT_SUB_ROOT_STICKY_CLASS] = {SUB_ROOT_STICKY_CLASS, 0, 0},
    [HT_SUB_ROOT_THREAD_BLOCK] = {SUB_ROOT_THREAD_BLOCK, 0, 4}, /* thread */
    [HT_SUB_ROOT_MONITOR_USED] = {SUB_ROOT_MONITOR_USED, 0, 0},
    [HT_SUB_ROOT_THREAD_OBJ] = {SUB_ROOT_THREAD_OBJ, 0, 8}, /* thread, trace */
};
/* Top-level record tags, by kind. */
static const uint8_t rec_tags[HT_REC_UNKNOWN] = {
    TAG_UTF8,        TAG_LOAD_CLASS,      TAG_UNLOAD_CLASS,      TAG_FRAME,
    TAG_TRACE,       TAG_ALLOC_SITES,     TAG_HEAP_SUMMARY,      TAG_START_THREAD,
    TAG_END_THREAD,  TAG_HEAP_DUMP,       TAG_HEAP_DUMP_SEGMENT, TAG_HEAP_DUMP_END,
    TAG_CPU_SAMPLES, TAG_CONTROL_SETTINGS};

const char *ht_hprof_rec_name(ht_hprof_rec r)
{
    return (unsigned)r < HT_REC_COUNT ? rec_names[r] : "?";
}

const char *ht_hprof_sub_name(ht_hprof_sub s)
{
    return (unsigned)s < HT_SUB_COUNT ? sub_names[s] : "?";
}

int ht_hprof_error(ht_hprof *h, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(h->err, sizeof h->err, "hprof: ");
    vsnprintf(h->err + n, sizeof h->err - (size_t)n, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- open, header, close ---- */

int ht_hprof_read_header(ht_hprof *h)
{
    static const char magic[] = "JAVA PROFILE 1.0.";
    size_t ml = sizeof magic - 1;
    if (h->size < ml + 2 || memcmp(h->data, magic, ml) != 0)
        return ht_hprof_error(h, HT_HPROF_ERR_FORMAT,
                              "not an HPROF file (no \"JAVA PROFILE 1.0.x\" header)");
    unsigned char v = h->data[ml];
    if ((v != '2' && v != '3') || h->data[ml + 1] != 0)
        return ht_hprof_error(
            h, HT_HPROF_ERR_FORMAT,
            "unsupported HPROF format at offset 0 (only JAVA PROFILE 1.0.2 and 1.0.3)");
    size_t off = ml + 2;
    if (h->size - off < 12)
        return ht_hprof_error(h, HT_HPROF_ERR_TRUNC,
                              "truncated header at offset %zu (needs 12 bytes, %zu left)", off,
                              h->size - off);
    uint32_t ids = ht_be32(h->data + off);
    if (ids != 4 && ids != 8)
        return ht_hprof_error(h, HT_HPROF_ERR_FORMAT,
                              "identifier size %u at offset %zu (only 4 or 8)", ids, off);
    h->id_size = ids;
    h->minor = v - '0';
    h->timestamp_ms = (uint64_t)ht_be32(h->data + off + 4) << 32 | ht_be32(h->data + off + 8);
    h->first_record = off + 12;
    return HT_HPROF_OK;
}

int ht_hprof_open_mem(ht_hprof *h, const void *data, size_t size)
{
    memset(h, 0, sizeof *h);
    h->data = data;
    h->size = size;
    int rc = ht_hprof_read_header(h);
    if (rc != HT_HPROF_OK) {
        h->data = NULL;
        h->size = 0;
    }
    return rc;
}

/* ---- the first pass ---- */

typedef struct scan {
    ht_hprof *h;
    ht_hprof_summary *s;
    const ht_hprof_visitor *v; /* may be NULL */
    ht_map utf8;               /* name id -> offset of its UTF8 record's body */
    ht_map load;               /* class id -> name id */
    ht_map index;              /* class id -> index in s->classes */
    uint32_t cap;
    uint64_t prim[NTYPES]; /* primitive arrays by element type */
    int dumps;             /* HEAP DUMP or HEAP DUMP SEGMENT records seen */
    size_t open_segment;   /* offset of a segment no HEAP DUMP END has closed, or 0 */
} scan;

/* The record or sub-record named `what` starting at `start` needs `n` bytes
 * from its start, and has up to `end`. */
static int need(scan *c, const char *what, size_t start, size_t end, uint64_t n)
{
    if (n <= end - start) return HT_HPROF_OK;
    return ht_hprof_error(c->h, HT_HPROF_ERR_TRUNC,
                          "truncated %s at offset %zu (needs %llu bytes, %zu left)", what, start,
                          (unsigned long long)n, end - start);
}

/* A top-level record whose length is shorter than its content. */
static int short_rec(scan *c, ht_hprof_rec r, size_t start, uint32_t len, uint64_t n)
{
    return ht_hprof_error(
        c->h, HT_HPROF_ERR_FORMAT,
        "corrupt %s at offset %zu (its length is %u, its content needs %llu bytes)", rec_names[r],
        start, len, (unsigned long long)n);
}

static int count_instance(scan *c, uint64_t class_id)
{
    uint64_t i;
    if (ht_map_get(&c->index, class_id, &i)) {
        c->s->classes[i].instances++;
        return HT_HPROF_OK;
    }
    ht_hprof_summary *s = c->s;
    if (s->nclasses == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 64;
        void *p = realloc(s->classes, cap * sizeof *s->classes);
        if (!p) return ht_hprof_error(c->h, HT_HPROF_ERR_NOMEM, "out of memory");
        s->classes = p;
        c->cap = cap;
    }
    if (ht_map_put(&c->index, class_id, s->nclasses) != 0)
        return ht_hprof_error(c->h, HT_HPROF_ERR_NOMEM, "out of memory");
    s->classes[s->nclasses++] = (ht_hprof_class){.class_id = class_id, .instances = 1};
    return HT_HPROF_OK;
}

/* CLASS DUMP at p (its tag byte): constant pool, statics, instance fields. */
static int class_dump(scan *c, size_t p, size_t end, size_t *next)
{
    const ht_hprof *h = c->h;
    const char *what = sub_names[HT_SUB_CLASS_DUMP];
    unsigned id = h->id_size;
    uint64_t n = 1 + 7 * (uint64_t)id + 4 + 4 + 2; /* up to the pool's count */
    int rc = need(c, what, p, end, n);
    if (rc) return rc;
    for (int part = 0; part < 3; part++) { /* pool, statics, instance fields */
        unsigned count = ht_be16(h->data + p + n - 2);
        for (unsigned i = 0; i < count; i++) {
            unsigned head = part == 0 ? 3 : id + 1; /* pool index or name id, then type */
            if ((rc = need(c, what, p, end, n + head))) return rc;
            unsigned t = h->data[p + n + head - 1];
            unsigned sz = ht_hprof_type_size(h, t);
            if (sz == 0)
                return ht_hprof_error(
                    c->h, HT_HPROF_ERR_FORMAT,
                    "corrupt CLASS DUMP at offset %zu (field type %u at offset %llu)", p, t,
                    (unsigned long long)(p + n + head - 1));
            n += head + (part == 2 ? 0 : sz); /* instance fields carry no value */
        }
        if (part < 2) {
            n += 2; /* the next part's count */
            if ((rc = need(c, what, p, end, n))) return rc;
        }
    }
    *next = p + n;
    return HT_HPROF_OK;
}

/* One sub-record at p; *next is where the following one starts. */
static int sub_record(scan *c, size_t p, size_t end, size_t *next)
{
    const ht_hprof *h = c->h;
    ht_hprof_summary *s = c->s;
    unsigned id = h->id_size, tag = h->data[p];
    uint64_t n; /* the sub-record's size, tag included */
    ht_hprof_sub k;
    int rc;
    for (unsigned r = 0; r < HT_SUB_ROOT_COUNT; r++)
        if (roots[r].tag == tag) {
            k = (ht_hprof_sub)r, n = 1 + (uint64_t)id * (1 + roots[r].ids) + roots[r].bytes;
            goto sized;
        }
    switch (tag) {
    case SUB_CLASS_DUMP:
        if ((rc = class_dump(c, p, end, next))) return rc;
        s->subrecords[HT_SUB_CLASS_DUMP]++;
        s->objects++; /* the class object itself */
        if (c->v && c->v->sub) return c->v->sub(c->v->ctx, HT_SUB_CLASS_DUMP, p, *next - p);
        return HT_HPROF_OK;
    case SUB_INSTANCE_DUMP: {
        k = HT_SUB_INSTANCE_DUMP;
        n = 1 + 2 * (uint64_t)id + 8;
        if ((rc = need(c, sub_names[k], p, end, n))) return rc;
        n += ht_be32(h->data + p + n - 4);
        if ((rc = need(c, sub_names[k], p, end, n))) return rc;
        if ((rc = count_instance(c, ht_hprof_id(h, p + 1 + id + 4)))) return rc;
        break;
    }
    case SUB_OBJ_ARRAY_DUMP: {
        k = HT_SUB_OBJ_ARRAY_DUMP;
        n = 1 + 2 * (uint64_t)id + 8;
        if ((rc = need(c, sub_names[k], p, end, n))) return rc;
        n += (uint64_t)ht_be32(h->data + p + 1 + id + 4) * id;
        if ((rc = need(c, sub_names[k], p, end, n))) return rc;
        if ((rc = count_instance(c, ht_hprof_id(h, p + 1 + id + 8)))) return rc;
        break;
    }
    case SUB_PRIM_ARRAY_DUMP: {
        k = HT_SUB_PRIM_ARRAY_DUMP;
        n = 1 + (uint64_t)id + 9;
        if ((rc = need(c, sub_names[k], p, end, n))) return rc;
        unsigned t = h->data[p + n - 1];
        if (t < 4 || t >= NTYPES)
            return ht_hprof_error(c->h, HT_HPROF_ERR_FORMAT,
                                  "corrupt PRIMITIVE ARRAY DUMP at offset %zu (element type %u)", p,
                                  t);
        n += (uint64_t)ht_be32(h->data + p + 1 + id + 4) * ht_hprof_type_size(h, t);
        if ((rc = need(c, sub_names[k], p, end, n))) return rc;
        c->prim[t]++;
        break;
    }
    default:
        return ht_hprof_error(
            c->h, HT_HPROF_ERR_FORMAT,
            "unknown heap dump sub-record tag 0x%02x at offset %zu (it has no length: "
            "the rest of the dump cannot be read)",
            tag, p);
    }
sized:
    if ((rc = need(c, sub_names[k], p, end, n))) return rc;
    s->subrecords[k]++;
    if (k >= HT_SUB_INSTANCE_DUMP) s->objects++;
    *next = p + n;
    if (c->v && c->v->sub) return c->v->sub(c->v->ctx, k, p, n);
    return HT_HPROF_OK;
}

static int heap_dump(scan *c, size_t body, size_t end)
{
    size_t p = body;
    while (p < end) {
        size_t next = p;
        int rc = sub_record(c, p, end, &next);
        if (rc) return rc;
        p = next; /* every sub-record is at least 1 + id bytes: p advances */
    }
    return HT_HPROF_OK;
}

/* The fixed part of a top-level record's body, and its per-entry size (entries
 * counted by the u4 at count_at), for the kinds that are only counted. */
static int check_len(scan *c, ht_hprof_rec r, size_t start, size_t body, uint32_t len)
{
    unsigned id = c->h->id_size;
    uint64_t fixed = 0, each = 0;
    size_t count_at = 0;
    switch (r) {
    case HT_REC_UTF8:
        fixed = id;
        break;
    case HT_REC_LOAD_CLASS:
        fixed = 8 + 2 * id;
        break;
    case HT_REC_UNLOAD_CLASS:
        fixed = 4;
        break;
    case HT_REC_FRAME:
        fixed = 4 * id + 8;
        break;
    case HT_REC_TRACE:
        fixed = 12, each = id, count_at = 8;
        break;
    case HT_REC_ALLOC_SITES:
        fixed = 34, each = 25, count_at = 30;
        break;
    case HT_REC_HEAP_SUMMARY:
        fixed = 24;
        break;
    case HT_REC_START_THREAD:
        fixed = 8 + 4 * id;
        break;
    case HT_REC_END_THREAD:
        fixed = 4;
        break;
    case HT_REC_CPU_SAMPLES:
        fixed = 8, each = 8, count_at = 4;
        break;
    case HT_REC_CONTROL_SETTINGS:
        fixed = 6;
        break;
    default:
        return HT_HPROF_OK;
    }
    if (len < fixed) return short_rec(c, r, start, len, fixed);
    uint64_t n = fixed + (each ? each * ht_be32(c->h->data + body + count_at) : 0);
    if (len < n) return short_rec(c, r, start, len, n);
    return HT_HPROF_OK;
}

static ht_hprof_rec rec_kind(unsigned tag)
{
    for (unsigned r = 0; r < HT_REC_UNKNOWN; r++)
        if (rec_tags[r] == tag) return (ht_hprof_rec)r;
    return HT_REC_UNKNOWN;
}

static int records(scan *c)
{
    ht_hprof *h = c->h;
    size_t off = h->first_record;
    while (off < h->size) {
        if (ht_hprof_shrank(h)) return HT_HPROF_ERR_TRUNC;
        size_t left = h->size - off;
        if (left < 9)
            return ht_hprof_error(h, HT_HPROF_ERR_TRUNC,
                                  "truncated record header at offset %zu (needs 9 bytes, %zu left)",
                                  off, left);
        ht_hprof_rec r = rec_kind(h->data[off]);
        uint32_t len = ht_be32(h->data + off + 5);
        size_t body = off + 9;
        int rc = need(c, rec_names[r], off, h->size, 9 + (uint64_t)len);
        if (rc) return rc;
        if ((rc = check_len(c, r, off, body, len))) return rc;
        c->s->records[r]++;
        if (c->v && c->v->record && (rc = c->v->record(c->v->ctx, r, body, len))) return rc;
        if (r == HT_REC_UTF8) {
            if (ht_map_put(&c->utf8, ht_hprof_id(h, body), body) != 0)
                return ht_hprof_error(h, HT_HPROF_ERR_NOMEM, "out of memory");
        } else if (r == HT_REC_LOAD_CLASS) {
            if (ht_map_put(&c->load, ht_hprof_id(h, body + 4),
                           ht_hprof_id(h, body + 8 + h->id_size)) != 0)
                return ht_hprof_error(h, HT_HPROF_ERR_NOMEM, "out of memory");
        } else if (r == HT_REC_HEAP_DUMP || r == HT_REC_HEAP_DUMP_SEGMENT) {
            c->dumps++;
            if (r == HT_REC_HEAP_DUMP_SEGMENT) c->open_segment = off;
            if ((rc = heap_dump(c, body, body + len))) return rc;
        } else if (r == HT_REC_HEAP_DUMP_END) {
            c->open_segment = 0;
        }
        off = body + len; /* at least 9 bytes on */
    }
    /* HotSpot ends a segmented dump with HEAP DUMP END, and writes the dump
     * last: a file cut at a record boundary is caught here. */
    if (c->open_segment)
        return ht_hprof_error(
            h, HT_HPROF_ERR_TRUNC,
            "truncated heap dump: no HEAP DUMP END after the segment at offset %zu (the "
            "file ends at %zu)",
            c->open_segment, h->size);
    if (!c->dumps)
        return ht_hprof_error(
            h, HT_HPROF_ERR_FORMAT,
            "no heap dump in the file (no HEAP DUMP or HEAP DUMP SEGMENT record)");
    return HT_HPROF_OK;
}

const char *ht_hprof_prim_array_name(unsigned t)
{
    static const char *const names[] = {"boolean[]", "char[]",  "float[]", "double[]",
                                        "byte[]",    "short[]", "int[]",   "long[]"};
    return t >= 4 && t < 12 ? names[t - 4] : NULL;
}

char *ht_hprof_class_name(const ht_hprof *h, size_t body)
{
    size_t len = ht_be32(h->data + body - 4) - h->id_size; /* checked by the scan */
    char *s = malloc(len + 1);
    if (!s) return NULL;
    memcpy(s, h->data + body + h->id_size, len);
    s[len] = 0;
    char *plus = NULL;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '/')
            s[i] = '.';
        else if (s[i] == '+')
            plus = s + i;
        else if (s[i] == 0)
            s[i] = '?';
    }
    if (plus && plus[1] == '0' && plus[2] == 'x') *plus = '/';
    if (s[0] != '[') return s;
    /* each '[' becomes "[]", a one-letter element up to "boolean" */
    char *java = malloc(2 * len + 8);
    if (java) ht_java_class_name(s, java, 2 * len + 8);
    free(s);
    return java;
}

/* The Java name of a class by its id; NULL when unknown (or out of
 * memory). */
static char *class_name(scan *c, uint64_t class_id)
{
    uint64_t name_id, body;
    if (!ht_map_get(&c->load, class_id, &name_id) || !ht_map_get(&c->utf8, name_id, &body))
        return NULL;
    return ht_hprof_class_name(c->h, body);
}

/* Names for every counted class; primitive arrays and class objects added. */
static int finish(scan *c)
{
    ht_hprof_summary *s = c->s;
    int rc = HT_HPROF_OK;
    /* class objects count as instances of java.lang.Class */
    uint64_t mirrors = s->subrecords[HT_SUB_CLASS_DUMP];
    int mirrors_done = mirrors == 0;
    for (uint32_t i = 0; i < s->nclasses; i++) {
        s->classes[i].name = class_name(c, s->classes[i].class_id);
        if (!s->classes[i].name) {
            char tmp[48];
            snprintf(tmp, sizeof tmp, "<unknown class 0x%llx>",
                     (unsigned long long)s->classes[i].class_id);
            s->classes[i].name = strdup(tmp);
        }
        if (!s->classes[i].name)
            rc = ht_hprof_error(c->h, HT_HPROF_ERR_NOMEM, "out of memory");
        else if (!mirrors_done && strcmp(s->classes[i].name, "java.lang.Class") == 0) {
            s->classes[i].instances += mirrors;
            mirrors_done = 1;
        }
    }
    for (unsigned t = 0; t < NTYPES + 1; t++) {
        uint64_t n = t < NTYPES ? c->prim[t] : (mirrors_done ? 0 : mirrors);
        if (n == 0) continue;
        if (s->nclasses == c->cap) {
            void *p = realloc(s->classes, (c->cap + NTYPES + 1) * sizeof *s->classes);
            if (!p) return ht_hprof_error(c->h, HT_HPROF_ERR_NOMEM, "out of memory");
            s->classes = p;
            c->cap += NTYPES + 1;
        }
        char *name = strdup(t < NTYPES ? ht_hprof_prim_array_name(t) : "java.lang.Class");
        if (!name) return ht_hprof_error(c->h, HT_HPROF_ERR_NOMEM, "out of memory");
        s->classes[s->nclasses++] = (ht_hprof_class){.class_id = 0, .name = name, .instances = n};
    }
    return rc;
}

int ht_hprof_scan(ht_hprof *h, ht_hprof_summary *s)
{
    return ht_hprof_walk(h, s, NULL);
}

int ht_hprof_walk(ht_hprof *h, ht_hprof_summary *s, const ht_hprof_visitor *v)
{
    memset(s, 0, sizeof *s);
    if (!h->data) return ht_hprof_error(h, HT_HPROF_ERR_IO, "no file open");
    scan c = {.h = h, .s = s, .v = v};
    ht_map_init(&c.utf8);
    ht_map_init(&c.load);
    ht_map_init(&c.index);
    h->err[0] = 0;
    int rc = records(&c);
    int frc = finish(&c);
    if (rc == HT_HPROF_OK) rc = frc;
    rc = ht_hprof_check(h, rc);
    ht_map_free(&c.utf8);
    ht_map_free(&c.load);
    ht_map_free(&c.index);
    return rc;
}

void ht_hprof_summary_free(ht_hprof_summary *s)
{
    for (uint32_t i = 0; i < s->nclasses; i++)
        free(s->classes[i].name);
    free(s->classes);
    memset(s, 0, sizeof *s);
}
