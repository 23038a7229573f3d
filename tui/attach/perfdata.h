/*
 * perfdata.h - HotSpot's perf data (the hsperfdata_<user>/<pid> files that
 * jps and jstat read), parsed from a copy of the file's bytes.
 *
 * Owns: the binary format (a 32-byte prologue: magic CA FE C0 C0, byte order,
 * version 2.x, an "accessible" flag, the bytes used, the first entry's offset
 * and the number of entries; then entries: length, name offset, vector
 * length, type, units, variability, data offset, the NUL-terminated name and
 * the data), and what the chooser wants from it: the command line's main
 * class or jar, the JDK version, the heap in use (the generations' spaces),
 * and whether the VM supports attach.
 *
 * The bytes are outside input (any process of the user can write the file;
 * the JVM rewrites it while we read): every offset and length is checked
 * against the buffer before use, nothing is read unaligned, text is cleaned
 * of control characters before it can reach a terminal. A malformed file is
 * an error with one line saying what is wrong, never a crash. Pure: no I/O,
 * no globals, any thread. Fuzzed by tests/fuzz/fuzz_perfdata.c.
 */
#ifndef HEAPTOP_PERFDATA_H
#define HEAPTOP_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

/* One entry as the walk hands it over: valid until the buffer goes. */
typedef struct ht_perf_entry {
    const char *name;    /* NUL-terminated inside the buffer */
    char type;           /* 'J' long, 'B' bytes (a string when vector), ... */
    uint8_t units;       /* HotSpot's PerfData::Units */
    uint32_t vector_len; /* 0: a scalar */
    const uint8_t *data; /* data_len bytes, possibly unaligned */
    size_t data_len;
    int big_endian; /* how its numbers are stored */
} ht_perf_entry;

/* Called for each entry; return non-zero to stop the walk. */
typedef int (*ht_perf_visit)(void *ctx, const ht_perf_entry *e);

/* Walk the entries of buf[0, n). 0, or -1 with one line in err (not perf
 * data, an unknown version, a VM not yet accessible, an entry that does not
 * fit). Entries visited before a bad one have been visited. */
int ht_perf_walk(const uint8_t *buf, size_t n, ht_perf_visit visit, void *ctx, char *err,
                 size_t errn);

/* A scalar long's value (type 'J', no vector); 0 when it is not one. */
int ht_perf_long(const ht_perf_entry *e, int64_t *out);
/* A string entry (type 'B' vector) into out, cut at its NUL, control
 * characters replaced by '?'; 0 when it is not one. */
int ht_perf_string(const ht_perf_entry *e, char *out, size_t n);

#define HT_PERF_TEXT 512

typedef struct ht_perf_summary {
    char command[HT_PERF_TEXT]; /* sun.rt.javaCommand: main class or jar, then arguments */
    char java_version[32];      /* java.property.java.version, "" when absent */
    int heap_known;             /* some generation space reported its use */
    uint64_t heap_used;         /* sum of sun.gc.generation.*.space.*.used */
    uint64_t heap_capacity;     /* sum of sun.gc.generation.*.capacity */
    uint64_t gc_count;          /* sum of sun.gc.collector.*.invocations */
    int attach;                 /* sun.rt.jvmCapabilities[0]: 1 supports attach, 0 not, -1 absent */
} ht_perf_summary;

/* What the chooser shows, from one file's bytes. 0, or -1 with one line in
 * err (see ht_perf_walk). */
int ht_perf_summarize(const uint8_t *buf, size_t n, ht_perf_summary *s, char *err, size_t errn);

#endif
