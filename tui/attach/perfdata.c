/* perfdata.c - see perfdata.h. */
#include "perfdata.h"

#include <stdio.h>
#include <string.h>

/* The prologue: magic 4, byte order 1, major 1, minor 1, accessible 1, used 4,
 * overflow 4, modification time 8, first entry's offset 4, entries 4. */
#define PROLOGUE_SIZE 32
/* An entry's header: length 4, name offset 4, vector length 4, type, flags,
 * units and variability 1 each, data offset 4. */
#define ENTRY_HEADER 20
#define MAX_ENTRIES  (1u << 20)

static uint32_t rd32(const uint8_t *p, int big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t rd64(const uint8_t *p, int big)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[big ? i : 7 - i];
    return v;
}

static size_t type_size(char t)
{
    switch (t) {
    case 'B':
    case 'Z':
        return 1;
    case 'C':
    case 'S':
        return 2;
    case 'I':
    case 'F':
        return 4;
    case 'J':
    case 'D':
        return 8;
    default:
        return 0;
    }
}

int ht_perf_walk(const uint8_t *buf, size_t n, ht_perf_visit visit, void *ctx, char *err,
                 size_t errn)
{
    static const uint8_t magic[4] = {0xca, 0xfe, 0xc0, 0xc0};
    if (n < PROLOGUE_SIZE) {
        snprintf(err, errn, "perf data too short (%zu bytes, the prologue alone is %d)", n,
                 PROLOGUE_SIZE);
        return -1;
    }
    if (memcmp(buf, magic, 4) != 0) {
        snprintf(err, errn, "not HotSpot perf data (no CAFEC0C0 magic)");
        return -1;
    }
    if (buf[4] > 1) {
        snprintf(err, errn, "perf data: unknown byte order %u", buf[4]);
        return -1;
    }
    int big = buf[4] == 0;
    if (buf[5] != 2) {
        snprintf(err, errn, "perf data version %u.%u is not supported (2.x is)", buf[5], buf[6]);
        return -1;
    }
    if (buf[7] == 0) {
        snprintf(err, errn, "perf data not accessible yet (the JVM is starting)");
        return -1;
    }
    uint32_t used = rd32(buf + 8, big), off = rd32(buf + 24, big), count = rd32(buf + 28, big);
    /* the JVM grows `used` as it adds entries: never trust it past the copy */
    size_t end = used < n ? used : n;
    if (off < PROLOGUE_SIZE || off > end) {
        snprintf(err, errn, "perf data: first entry at %u, outside [%d, %zu]", off, PROLOGUE_SIZE,
                 end);
        return -1;
    }
    if (count > MAX_ENTRIES) {
        snprintf(err, errn, "perf data: %u entries is not believable", count);
        return -1;
    }
    size_t at = off;
    for (uint32_t i = 0; i < count; i++) {
        if (end - at < ENTRY_HEADER) {
            snprintf(err, errn, "perf data: entry %u of %u at %zu runs past the end (%zu)", i,
                     count, at, end);
            return -1;
        }
        const uint8_t *e = buf + at;
        uint32_t len = rd32(e, big), name_off = rd32(e + 4, big), vlen = rd32(e + 8, big);
        uint32_t data_off = rd32(e + 16, big);
        if (len < ENTRY_HEADER || len > end - at) {
            snprintf(err, errn, "perf data: entry %u has length %u (at %zu, %zu bytes left)", i,
                     len, at, end - at);
            return -1;
        }
        if (name_off < ENTRY_HEADER || name_off >= len ||
            !memchr(e + name_off, 0, len - name_off)) {
            snprintf(err, errn, "perf data: entry %u's name is not inside it", i);
            return -1;
        }
        size_t size = type_size((char)e[12]);
        uint64_t dlen = (uint64_t)(vlen ? vlen : 1) * size;
        if (size == 0 || data_off < ENTRY_HEADER || data_off > len || dlen > len - data_off) {
            snprintf(err, errn, "perf data: entry %u (%s) has data outside it", i,
                     (const char *)(e + name_off));
            return -1;
        }
        ht_perf_entry pe;
        pe.name = (const char *)(e + name_off);
        pe.type = (char)e[12];
        pe.units = e[14];
        pe.vector_len = vlen;
        pe.data = e + data_off;
        pe.data_len = (size_t)dlen;
        pe.big_endian = big;
        if (visit(ctx, &pe)) return 0;
        at += len;
    }
    return 0;
}

int ht_perf_long(const ht_perf_entry *e, int64_t *out)
{
    if (e->type != 'J' || e->vector_len != 0 || e->data_len != 8) return 0;
    *out = (int64_t)rd64(e->data, e->big_endian);
    return 1;
}

int ht_perf_string(const ht_perf_entry *e, char *out, size_t n)
{
    if (e->type != 'B' || e->vector_len == 0 || n == 0) return 0;
    size_t k = 0;
    for (size_t i = 0; i < e->data_len && e->data[i] && k + 1 < n; i++) {
        uint8_t c = e->data[i];
        out[k++] = c < 32 || c == 127 ? '?' : (char)c;
    }
    out[k] = '\0';
    return 1;
}

/* "sun.gc.generation.<digits>.<rest>": rest, else NULL. */
static const char *after_numbered(const char *name, const char *prefix)
{
    size_t p = strlen(prefix);
    if (strncmp(name, prefix, p) != 0) return NULL;
    const char *s = name + p;
    if (*s < '0' || *s > '9') return NULL;
    while (*s >= '0' && *s <= '9')
        s++;
    return *s == '.' ? s + 1 : NULL;
}

static int add_u64(uint64_t *sum, int64_t v)
{
    if (v < 0) return 0;
    *sum = (uint64_t)v > UINT64_MAX - *sum ? UINT64_MAX : *sum + (uint64_t)v;
    return 1;
}

static int summarize_one(void *ctx, const ht_perf_entry *e)
{
    ht_perf_summary *s = ctx;
    const char *n = e->name, *rest;
    int64_t v;
    char caps[8];
    if (strcmp(n, "sun.rt.javaCommand") == 0) {
        ht_perf_string(e, s->command, sizeof s->command);
    } else if (strcmp(n, "java.property.java.version") == 0) {
        ht_perf_string(e, s->java_version, sizeof s->java_version);
    } else if (strcmp(n, "sun.rt.jvmCapabilities") == 0) {
        if (ht_perf_string(e, caps, sizeof caps) && caps[0]) s->attach = caps[0] == '1';
    } else if ((rest = after_numbered(n, "sun.gc.generation."))) {
        const char *field = after_numbered(rest, "space.");
        if (field && strcmp(field, "used") == 0 && ht_perf_long(e, &v))
            s->heap_known |= add_u64(&s->heap_used, v);
        else if (strcmp(rest, "capacity") == 0 && ht_perf_long(e, &v))
            add_u64(&s->heap_capacity, v);
    } else if ((rest = after_numbered(n, "sun.gc.collector."))) {
        if (strcmp(rest, "invocations") == 0 && ht_perf_long(e, &v)) add_u64(&s->gc_count, v);
    }
    return 0;
}

int ht_perf_summarize(const uint8_t *buf, size_t n, ht_perf_summary *s, char *err, size_t errn)
{
    memset(s, 0, sizeof *s);
    s->attach = -1;
    if (ht_perf_walk(buf, n, summarize_one, s, err, errn) != 0) return -1;
    /* ZGC reports its use only at a collection: zero before the first is not
     * a measurement */
    if (s->heap_used == 0 && s->gc_count == 0) s->heap_known = 0;
    return 0;
}
