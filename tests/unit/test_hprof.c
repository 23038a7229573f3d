/*
 * test_hprof.c - the HPROF reader against files written byte by byte
 * (hprof_builder.h): counts of every record and sub-record kind, instances per
 * class with the histogram's names, both identifier sizes, one heap dump and
 * a segmented one; then every prefix of those files, and corrupted lengths,
 * tags and types, each of which must be an error with a message, never a
 * crash (the asan build runs these too). Then hostile files: one that
 * shrinks while it is mapped (an error, not SIGBUS) and a gzip bomb (refused
 * at the stated cap, or cancelled at once, without its size in memory).
 */
#include "check.h"
#include "hprof.h"
#include "hprof_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

static uint64_t instances(const ht_hprof_summary *s, const char *name)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->nclasses; i++)
        if (strcmp(s->classes[i].name, name) == 0) n += s->classes[i].instances;
    return n;
}

static int scan_mem(const uint8_t *d, size_t n, ht_hprof_summary *s, char *err, size_t errn)
{
    ht_hprof h;
    int rc = ht_hprof_open_mem(&h, d, n);
    memset(s, 0, sizeof *s);
    if (rc == HT_HPROF_OK) rc = ht_hprof_scan(&h, s);
    snprintf(err, errn, "%s", h.err);
    ht_hprof_close(&h);
    return rc;
}

static void test_counts(unsigned id, int segmented)
{
    hb b;
    hb_expect e;
    hb_sample(&b, &e, id, segmented);
    ht_hprof h;
    CHECK(ht_hprof_open_mem(&h, b.d, b.len) == HT_HPROF_OK);
    CHECK(h.id_size == id);
    CHECK(h.minor == (id == 8 ? 3 : 2));
    CHECK(h.timestamp_ms == 1700000000123ull);
    ht_hprof_summary s;
    int rc = ht_hprof_scan(&h, &s);
    CHECK(rc == HT_HPROF_OK);
    if (rc) fprintf(stderr, "scan: %s\n", h.err);
    for (int r = 0; r < HT_REC_COUNT; r++) {
        CHECK(s.records[r] == e.records[r]);
        if (s.records[r] != e.records[r])
            fprintf(stderr, "  %s: %llu, wrote %llu\n", ht_hprof_rec_name(r),
                    (unsigned long long)s.records[r], (unsigned long long)e.records[r]);
    }
    for (int k = 0; k < HT_SUB_COUNT; k++) {
        CHECK(s.subrecords[k] == e.subrecords[k]);
        if (s.subrecords[k] != e.subrecords[k])
            fprintf(stderr, "  %s: %llu, wrote %llu\n", ht_hprof_sub_name(k),
                    (unsigned long long)s.subrecords[k], (unsigned long long)e.subrecords[k]);
    }
    CHECK(s.records[HT_REC_UNKNOWN] == 1);
    CHECK(s.objects == e.objects);
    CHECK(instances(&s, "demo.Foo") == 3);
    CHECK(instances(&s, "java.lang.String") == 2);
    CHECK(instances(&s, "demo.App$$Lambda$1/0x0000000800c01000") == 1);
    CHECK(instances(&s, "java.lang.Class") == 3); /* one mirror instance, two class dumps */
    /* array classes by Java's names, not the dump's descriptors */
    CHECK(instances(&s, "java.lang.Object[]") == 2);
    CHECK(instances(&s, "int[]") == 2);
    CHECK(instances(&s, "byte[]") == 1);
    CHECK(instances(&s, "long[]") == 1);
    CHECK(instances(&s, "[I") == 0 && instances(&s, "[Ljava.lang.Object;") == 0);
    CHECK(instances(&s, "java.lang.Object") == 0);
    uint64_t total = 0;
    for (uint32_t i = 0; i < s.nclasses; i++)
        total += s.classes[i].instances;
    CHECK(total == s.objects);
    ht_hprof_summary_free(&s);
    ht_hprof_close(&h);
    free(b.d);
}

/* Every prefix of the file is an error (the dump is last, so even a cut at a
 * record boundary leaves no dump or an unended one), with a message. */
static void test_prefixes(unsigned id, int segmented)
{
    hb b;
    hb_expect e;
    hb_sample(&b, &e, id, segmented);
    int bad = 0, silent = 0;
    for (size_t n = 0; n < b.len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* its own allocation: asan sees overreads */
        memcpy(copy, b.d, n);
        ht_hprof_summary s;
        char err[256];
        int rc = scan_mem(copy, n, &s, err, sizeof err);
        if (rc == HT_HPROF_OK) bad++;
        if (rc != HT_HPROF_OK && strncmp(err, "hprof: ", 7) != 0) silent++;
        ht_hprof_summary_free(&s);
        free(copy);
    }
    CHECK(bad == 0);
    CHECK(silent == 0);
    free(b.d);
}

/* The last dump record cut at every length inside it, its length field saying
 * so: a prefix of the file stops at the record's header, this reaches every
 * sub-record's own bounds checks (the asan build sees any overread). Cuts at a
 * sub-record boundary are valid, shorter dumps; every other cut is an error. */
static void test_dump_cuts(unsigned id)
{
    hb b;
    hb_expect e;
    hb_sample(&b, &e, id, 0); /* one HEAP DUMP record, the file's last */
    uint64_t subs = 0;
    for (int k = 0; k < HT_SUB_COUNT; k++)
        subs += e.subrecords[k];
    size_t body = e.first_dump + 9, full = b.len - body;
    unsigned ok = 0, errors = 0, shorter = 1;
    for (size_t n = 0; n < full; n++) {
        uint8_t *copy = malloc(body + n);
        memcpy(copy, b.d, body + n);
        for (int i = 0; i < 4; i++)
            copy[e.first_dump + 5 + (size_t)i] = (uint8_t)(n >> (24 - 8 * i));
        ht_hprof_summary s;
        char err[256];
        int rc = scan_mem(copy, body + n, &s, err, sizeof err);
        if (rc == HT_HPROF_OK) {
            ok++;
            uint64_t got = 0;
            for (int k = 0; k < HT_SUB_COUNT; k++)
                got += s.subrecords[k];
            if (got >= subs) shorter = 0;
        } else {
            errors++;
        }
        ht_hprof_summary_free(&s);
        free(copy);
    }
    CHECK(ok + errors == full);
    CHECK(ok <= subs); /* at most one valid cut per sub-record boundary */
    CHECK(shorter);
    free(b.d);
}

static void expect_error(hb *b, int want_rc, const char *needle)
{
    uint8_t *copy = malloc(b->len);
    memcpy(copy, b->d, b->len);
    ht_hprof_summary s;
    char err[256];
    int rc = scan_mem(copy, b->len, &s, err, sizeof err);
    CHECK(rc == want_rc);
    CHECK(strstr(err, needle) != NULL);
    if (rc != want_rc || !strstr(err, needle))
        fprintf(stderr, "  rc %d, message \"%s\", wanted %d and \"%s\"\n", rc, err, want_rc,
                needle);
    ht_hprof_summary_free(&s);
    free(copy);
}

static void test_corrupt(unsigned id)
{
    hb b;
    hb_expect e;
    char msg[160];
    size_t inst;

    /* an INSTANCE DUMP claiming more bytes than its segment holds */
    hb_sample(&b, &e, id, 1);
    inst = e.first_instance;
    size_t at = inst + 1 + 2 * id + 4;
    hb_patch_u4(&b, at, 1000);
    size_t seg_end = e.first_dump + 9 +
                     ((size_t)b.d[e.first_dump + 5] << 24 | (size_t)b.d[e.first_dump + 6] << 16 |
                      (size_t)b.d[e.first_dump + 7] << 8 | b.d[e.first_dump + 8]);
    snprintf(msg, sizeof msg,
             "hprof: truncated INSTANCE DUMP at offset %zu (needs %u bytes, %zu left)", inst,
             1 + 2 * id + 8 + 1000, seg_end - inst);
    expect_error(&b, HT_HPROF_ERR_TRUNC, msg);
    free(b.d);

    /* a record longer than the file */
    hb_sample(&b, &e, id, 1);
    hb_patch_u4(&b, e.first_dump + 5, 0x7ffffff0);
    expect_error(&b, HT_HPROF_ERR_TRUNC, "truncated HEAP DUMP SEGMENT at offset");
    free(b.d);

    /* a segment shorter than its sub-records: the last one crosses its end */
    hb_sample(&b, &e, id, 0);
    uint32_t len = (uint32_t)(b.len - e.first_dump - 9);
    hb_patch_u4(&b, e.first_dump + 5, len - 3);
    expect_error(&b, HT_HPROF_ERR_TRUNC, "truncated PRIMITIVE ARRAY DUMP at offset");
    free(b.d);

    /* an unknown sub-record tag: cannot be skipped */
    hb_sample(&b, &e, id, 1);
    b.d[e.first_instance] = 0x42;
    snprintf(msg, sizeof msg, "unknown heap dump sub-record tag 0x42 at offset %zu",
             e.first_instance);
    expect_error(&b, HT_HPROF_ERR_FORMAT, msg);
    free(b.d);

    /* a TRACE whose frame count runs past its length */
    hb_sample(&b, &e, id, 1);
    hb_patch_u4(&b, e.trace + 9 + 8, 1000);
    expect_error(&b, HT_HPROF_ERR_FORMAT, "corrupt TRACE at offset");
    free(b.d);

    /* a primitive array of no primitive type */
    hb_sample(&b, &e, id, 1);
    size_t prim = b.len - 9; /* the END record */
    /* the last PRIMITIVE ARRAY DUMP is a long[3]: tag id u4 u4 type 24 bytes */
    prim -= 1 + id + 9 + 24;
    CHECK(b.d[prim] == 0x23);
    b.d[prim + 1 + id + 8] = 3;
    expect_error(&b, HT_HPROF_ERR_FORMAT, "corrupt PRIMITIVE ARRAY DUMP");
    free(b.d);

    /* identifier size 5, and not a dump at all */
    hb_sample(&b, &e, id, 1);
    b.d[19 + 3] = 5;
    expect_error(&b, HT_HPROF_ERR_FORMAT, "identifier size 5");
    memcpy(b.d, "JAVA PROFILE 1.0.1", 18);
    expect_error(&b, HT_HPROF_ERR_FORMAT, "unsupported HPROF format");
    memcpy(b.d, "PK\x03\x04", 4);
    expect_error(&b, HT_HPROF_ERR_FORMAT, "not an HPROF file");
    free(b.d);
}

static void test_files(void)
{
    hb b;
    hb_expect e;
    hb_sample(&b, &e, 8, 1);
    char path[] = "/tmp/test_hprof_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, b.d, b.len) == (ssize_t)b.len);
    close(fd);
    ht_hprof h;
    CHECK(ht_hprof_open(&h, path) == HT_HPROF_OK);
    ht_hprof_summary s;
    CHECK(ht_hprof_scan(&h, &s) == HT_HPROF_OK);
    CHECK(s.objects == e.objects);
    ht_hprof_summary_free(&s);
    ht_hprof_close(&h);
    CHECK(truncate(path, 0) == 0);
    CHECK(ht_hprof_open(&h, path) == HT_HPROF_ERR_FORMAT);
    CHECK(strstr(h.err, "empty") != NULL);
    unlink(path);
    CHECK(ht_hprof_open(&h, path) == HT_HPROF_ERR_IO);
    CHECK(strstr(h.err, "cannot open") != NULL);
    CHECK(ht_hprof_scan(&h, &s) == HT_HPROF_ERR_IO); /* nothing open */
    ht_hprof_summary_free(&s);
    CHECK(ht_hprof_open(&h, "/tmp") == HT_HPROF_ERR_IO);
    free(b.d);
}

static char *write_temp(const void *d, size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_hprof_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, d, n) == (ssize_t)n);
    close(fd);
    return path;
}

/* A dump truncated while it is mapped is an error naming it, where the reads
 * past the new end used to raise SIGBUS. */
static void test_shrink(void)
{
    hb b;
    hb_shape_plain(&b, 50, 200000);
    char *path = write_temp(b.d, b.len);
    ht_hprof h;
    CHECK(ht_hprof_open(&h, path) == HT_HPROF_OK);
    CHECK(truncate(path, 4096) == 0);
    ht_hprof_summary s;
    CHECK(ht_hprof_scan(&h, &s) == HT_HPROF_ERR_TRUNC);
    CHECK_MSG(strstr(h.err, "shrank while it was read") != NULL, "error: %s", h.err);
    ht_hprof_summary_free(&s);
    ht_hprof_close(&h);
    /* read again from the start: still an error, still no crash */
    CHECK(ht_hprof_open(&h, path) == HT_HPROF_OK);
    CHECK(ht_hprof_scan(&h, &s) == HT_HPROF_ERR_TRUNC);
    ht_hprof_summary_free(&s);
    ht_hprof_close(&h);
    unlink(path);
    free(b.d);
}

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}
static int always(void *ctx)
{
    (*(int *)ctx)++;
    return 1;
}

/* A gzip bomb: an HPROF header, then 400 MiB of zeros, gzip'd (400 KiB):
 * cancelled at its first chunk, and refused past the cap (256 MiB here),
 * neither with its inflated size in memory. */
static void test_gzip_bomb(void)
{
    char path[] = "/tmp/test_hprof_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    gzFile z = gzopen(path, "wb9");
    CHECK(z != NULL);
    hb b;
    hb_start(&b, 4, 0);
    CHECK(gzwrite(z, b.d, (unsigned)b.len) == (int)b.len);
    free(b.d);
    static uint8_t zero[1 << 20];
    for (int i = 0; i < 400; i++)
        CHECK(gzwrite(z, zero, sizeof zero) == (int)sizeof zero);
    CHECK(gzclose(z) == Z_OK);
    long rss0 = max_rss_kb();
    int asked = 0;
    ht_hprof h;
    ht_hprof_watch w = {.cancelled = always, .ctx = &asked};
    CHECK(ht_hprof_open_watched(&h, path, &w) == HT_HPROF_ERR_CANCELLED);
    CHECK(asked == 1);
    CHECK(ht_hprof_open(&h, path) == HT_HPROF_ERR_FORMAT);
    CHECK_MSG(strstr(h.err, "past 256 MiB") && strstr(h.err, "refused"), "error: %s", h.err);
    long grown = max_rss_kb() - rss0;
    CHECK_MSG(grown < 32 * 1024, "max RSS grew by %ld KiB reading a gzip bomb", grown);
    unlink(path);
}

int main(void)
{
    test_gzip_bomb(); /* first: it measures the peak RSS */
    test_shrink();
    for (unsigned id = 4; id <= 8; id += 4)
        for (int seg = 0; seg <= 1; seg++) {
            test_counts(id, seg);
            test_prefixes(id, seg);
        }
    test_dump_cuts(4);
    test_dump_cuts(8);
    test_corrupt(4);
    test_corrupt(8);
    test_files();
    return check_summary();
}
