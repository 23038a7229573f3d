/*
 * hprof.h - a reader of HPROF heap dumps as HotSpot writes them.
 *
 * Owns: a read-only memory mapping of one dump file (or a caller's buffer;
 * or, for a gzip file as `jcmd GC.heap_dump -gz=N` writes, the file inflated
 * with zlib, in chunks, into an unlinked temporary file that is mapped the
 * same way: disk and page cache, not anonymous memory; refused past 128x
 * its compressed size, 256 MiB at least, see hprof_file.c),
 * its header (format 1.0.2 or 1.0.3, 4- or 8-byte identifiers, timestamp)
 * and a first pass over it: how many of each top-level record and heap-dump
 * sub-record, GC roots by kind, objects, and instances per class with the
 * class's Java name ("java.lang.String", "int[]", "java.lang.Object[]", where
 * `jcmd GC.class_histogram` prints "[I" and "[Ljava.lang.Object;"). No graph yet: that comes in
 * later passes over the same mapping.
 *
 * Threads: none of its own; one ht_hprof has one owner (the viewer will run
 * it on a job, off the UI thread). Pure C: no terminal, no sockets.
 *
 * Must never: read outside the mapping, crash or loop on a corrupt file,
 * block on a file that is not a regular one (a FIFO is refused at open), or
 * die of SIGBUS when the file shrinks under the mapping: a SIGBUS handler
 * (installed at the first open, process-wide) maps zeros over the lost part
 * and the reader reports "the dump shrank while it was read" at its next
 * record or phase end (ht_hprof_shrank).
 * Every read is bounds-checked against the mapping (and a sub-record against
 * the record holding it), every step advances the offset, and a truncated or
 * corrupt file ends the pass with an error code and a message naming what
 * was wrong and where: "hprof: truncated INSTANCE DUMP at offset 123456
 * (needs 40 bytes, 12 left)". Unknown top-level records are skipped (they
 * carry a length) and counted; an unknown sub-record cannot be skipped (it
 * has none) and is an error. A file with no heap dump, or whose last segment
 * no HEAP DUMP END follows (HotSpot writes the dump last and always ends it),
 * is an error too: that is how a file cut at a record boundary is caught.
 */
#ifndef HEAPTOP_HPROF_H
#define HEAPTOP_HPROF_H

#include <stddef.h>
#include <stdint.h>

enum {
    HT_HPROF_OK = 0,
    HT_HPROF_ERR_IO = -1,     /* open, stat or mmap failed */
    HT_HPROF_ERR_FORMAT = -2, /* not an HPROF file, or a corrupt record */
    HT_HPROF_ERR_TRUNC = -3,  /* a record or sub-record runs past its end */
    HT_HPROF_ERR_NOMEM = -4,
    HT_HPROF_ERR_CANCELLED = -5, /* the caller's cancelled() said so */
};

/* Top-level record kinds, in the order the counts are kept. */
typedef enum {
    HT_REC_UTF8,
    HT_REC_LOAD_CLASS,
    HT_REC_UNLOAD_CLASS,
    HT_REC_FRAME,
    HT_REC_TRACE,
    HT_REC_ALLOC_SITES,
    HT_REC_HEAP_SUMMARY,
    HT_REC_START_THREAD,
    HT_REC_END_THREAD,
    HT_REC_HEAP_DUMP,
    HT_REC_HEAP_DUMP_SEGMENT,
    HT_REC_HEAP_DUMP_END,
    HT_REC_CPU_SAMPLES,
    HT_REC_CONTROL_SETTINGS,
    HT_REC_UNKNOWN,
    HT_REC_COUNT
} ht_hprof_rec;

/* Heap-dump sub-record kinds: the GC roots first (HT_SUB_ROOT_COUNT of them). */
typedef enum {
    HT_SUB_ROOT_UNKNOWN,
    HT_SUB_ROOT_JNI_GLOBAL,
    HT_SUB_ROOT_JNI_LOCAL,
    HT_SUB_ROOT_JAVA_FRAME,
    HT_SUB_ROOT_NATIVE_STACK,
    HT_SUB_ROOT_STICKY_CLASS,
    HT_SUB_ROOT_THREAD_BLOCK,
    HT_SUB_ROOT_MONITOR_USED,
    HT_SUB_ROOT_THREAD_OBJ,
    HT_SUB_CLASS_DUMP,
    HT_SUB_INSTANCE_DUMP,
    HT_SUB_OBJ_ARRAY_DUMP,
    HT_SUB_PRIM_ARRAY_DUMP,
    HT_SUB_COUNT
} ht_hprof_sub;
#define HT_SUB_ROOT_COUNT (HT_SUB_ROOT_THREAD_OBJ + 1)

typedef struct ht_hprof {
    const uint8_t *data;
    size_t size;
    int mapped;  /* data is our mmap, of map_size bytes */
    int gzipped; /* the file was gzip: data is it inflated, in a temporary file */
    size_t map_size;
    int guard;             /* 1 + the SIGBUS guard's slot of the mapping, 0 for none */
    unsigned id_size;      /* 4 or 8 */
    int minor;             /* 2 for "JAVA PROFILE 1.0.2", 3 for 1.0.3 */
    uint64_t timestamp_ms; /* when the dump was taken, ms since the epoch */
    size_t first_record;   /* offset of the first record after the header */
    char err[256];         /* the last error, "" when none */
} ht_hprof;

/* Instances of one class (one class object: two loaders' classes of the same
 * name are two entries). Primitive arrays have class_id 0. */
typedef struct ht_hprof_class {
    uint64_t class_id;
    char *name; /* histogram name; "<unknown class 0x...>" without a LOAD CLASS */
    uint64_t instances;
} ht_hprof_class;

typedef struct ht_hprof_summary {
    uint64_t records[HT_REC_COUNT];
    uint64_t subrecords[HT_SUB_COUNT]; /* roots by kind are the first ones */
    uint64_t objects;                  /* instances, arrays and class objects */
    ht_hprof_class *classes;           /* those with instances, in no order */
    uint32_t nclasses;
} ht_hprof_summary;

/* Map a file read-only and read its header. HT_HPROF_OK, or an error with
 * h->err set (h is then closed: ht_hprof_close is harmless). */
int ht_hprof_open(ht_hprof *h, const char *path);
/* What a long open (a gzip file's inflating) reports and asks, between
 * chunks of 1 MiB: progress("inflating", compressed bytes read, compressed
 * size), and cancelled(), non-zero to stop with HT_HPROF_ERR_CANCELLED.
 * Either may be NULL. */
typedef struct ht_hprof_watch {
    void (*progress)(void *ctx, const char *phase, uint64_t done, uint64_t total);
    int (*cancelled)(void *ctx);
    void *ctx;
} ht_hprof_watch;
/* ht_hprof_open, watched (w may be NULL). */
int ht_hprof_open_watched(ht_hprof *h, const char *path, const ht_hprof_watch *w);
/* Non-zero when the mapped file shrank while it was read (a SIGBUS the
 * guard caught; the lost part now reads as zeros): h->err then says so. */
int ht_hprof_shrank(ht_hprof *h);
/* rc, or HT_HPROF_ERR_TRUNC with h->err set when the file shrank: what a
 * pass returns at its end, so that what zeros made of it is not taken for
 * the dump's content. */
int ht_hprof_check(ht_hprof *h, int rc);
/* Read the header at h->data (h->size bytes): id size, version, time. */
int ht_hprof_read_header(ht_hprof *h);
/* Check that path opens and starts as an HPROF file (gzip or not) without
 * reading the rest: what a command checks before the long work. HT_HPROF_OK,
 * or an error with h->err set, as ht_hprof_open says it; h holds nothing
 * after. */
int ht_hprof_probe(ht_hprof *h, const char *path);
/* The same over a caller's buffer, which must outlive h (tests, fuzzing). */
int ht_hprof_open_mem(ht_hprof *h, const void *data, size_t size);
void ht_hprof_close(ht_hprof *h);

/* The first pass: every record and sub-record, counted. HT_HPROF_OK, or an
 * error with h->err set; s is filled either way with what was read before the
 * error, and must be freed with ht_hprof_summary_free. */
int ht_hprof_scan(ht_hprof *h, ht_hprof_summary *s);
void ht_hprof_summary_free(ht_hprof_summary *s);

/* A visitor of the first pass, for the later passes (snapshot.h): called for
 * every top-level record once its length is checked (body = offset after the
 * 9-byte record header) and for every heap-dump sub-record once its extent is
 * checked (off = its tag byte, len = its whole size). Either may be NULL. A
 * non-zero return stops the pass with that code; the visitor sets the message
 * with ht_hprof_error. */
typedef struct ht_hprof_visitor {
    void *ctx;
    int (*record)(void *ctx, ht_hprof_rec kind, size_t body, uint32_t len);
    int (*sub)(void *ctx, ht_hprof_sub kind, size_t off, size_t len);
} ht_hprof_visitor;

/* ht_hprof_scan, calling v as it goes. */
int ht_hprof_walk(ht_hprof *h, ht_hprof_summary *s, const ht_hprof_visitor *v);

/* Set h->err ("hprof: " and the message) and return rc. */
int ht_hprof_error(ht_hprof *h, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The Java name of a class from the body of its name's UTF8 record
 * (malloc'd; NULL out of memory): '/' becomes '.', a hidden class's "+0x..."
 * suffix "/0x..." as Klass::external_name writes it, and an array class's
 * descriptor Java's name (java_name.h: "[I" -> "int[]", "[Ljava.lang.Object;"
 * -> "java.lang.Object[]"), the one spelling heaptop shows everywhere. */
char *ht_hprof_class_name(const ht_hprof *h, size_t utf8_body);
/* The Java name of the array class of HPROF basic type t (4 boolean .. 11
 * long): "int[]"; NULL for any other t. */
const char *ht_hprof_prim_array_name(unsigned t);

/* Big-endian reads from the mapping; the caller has checked the bounds. */
static inline uint16_t ht_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t ht_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t ht_hprof_id(const ht_hprof *h, size_t off)
{
    const uint8_t *p = h->data + off;
    return h->id_size == 4 ? ht_be32(p) : (uint64_t)ht_be32(p) << 32 | ht_be32(p + 4);
}
/* Bytes of a value of HPROF basic type t (2 object, 4 boolean .. 11 long);
 * 0 for a code that is no type. */
static inline unsigned ht_hprof_type_size(const ht_hprof *h, unsigned t)
{
    static const unsigned char sizes[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};
    if (t == 1 || t == 2) return h->id_size;
    return t < 12 ? sizes[t] : 0;
}

/* Names, for messages and reports: "HEAP DUMP SEGMENT", "ROOT JNI GLOBAL". */
const char *ht_hprof_rec_name(ht_hprof_rec r);
const char *ht_hprof_sub_name(ht_hprof_sub s);

#endif
