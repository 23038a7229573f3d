/*
 * perf_builder.h - hand-built HotSpot perf data files (hsperfdata) for the
 * tests of tui/attach/perfdata.c and the fuzz target's seeds: a prologue and
 * entries laid out as HotSpot lays them (name after the 20-byte entry header,
 * data aligned to its size), in either byte order. Test code only.
 */
#ifndef HEAPTOP_PERF_BUILDER_H
#define HEAPTOP_PERF_BUILDER_H

#include <stdint.h>
#include <string.h>

typedef struct pb {
    uint8_t b[16384];
    size_t n;
    uint32_t count;
    int big;
} pb;

static void pb_put32(pb *p, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p->b[at + (size_t)i] = (uint8_t)(v >> (p->big ? 24 - 8 * i : 8 * i));
}

static void pb_put64(pb *p, size_t at, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p->b[at + (size_t)i] = (uint8_t)(v >> (p->big ? 56 - 8 * i : 8 * i));
}

/* The prologue, as a JVM that finished starting writes it. */
static void pb_init(pb *p, int big)
{
    memset(p, 0, sizeof *p);
    p->big = big;
    static const uint8_t magic[4] = {0xca, 0xfe, 0xc0, 0xc0};
    memcpy(p->b, magic, 4);
    p->b[4] = big ? 0 : 1;
    p->b[5] = 2;
    p->b[6] = 0;
    p->b[7] = 1;
    p->n = 32;
    pb_put32(p, 24, 32);
}

/* Close the file: used and the entry count. Returns its length. */
static size_t pb_finish(pb *p)
{
    pb_put32(p, 8, (uint32_t)p->n);
    pb_put32(p, 28, p->count);
    return p->n;
}

/* One entry: type 'J' (data: one value) or 'B' (a string of vlen bytes). */
static void pb_entry(pb *p, const char *name, char type, uint32_t vlen, const void *data)
{
    size_t at = p->n, nl = strlen(name) + 1, size = type == 'J' ? 8 : 1;
    size_t data_off = (20 + nl + size - 1) / size * size;
    size_t dlen = (vlen ? vlen : 1) * size;
    size_t len = (data_off + dlen + 7) / 8 * 8;
    if (at + len > sizeof p->b) return;
    memset(p->b + at, 0, len);
    pb_put32(p, at, (uint32_t)len);
    pb_put32(p, at + 4, 20);
    pb_put32(p, at + 8, vlen);
    p->b[at + 12] = (uint8_t)type;
    p->b[at + 14] = 1;
    p->b[at + 15] = 1;
    pb_put32(p, at + 16, (uint32_t)data_off);
    memcpy(p->b + at + 20, name, nl);
    if (type == 'J')
        pb_put64(p, at + data_off, *(const uint64_t *)data);
    else
        memcpy(p->b + at + data_off, data, strnlen(data, vlen));
    p->n += len;
    p->count++;
}

static void pb_long(pb *p, const char *name, uint64_t v)
{
    pb_entry(p, name, 'J', 0, &v);
}

static void pb_string(pb *p, const char *name, const char *s)
{
    pb_entry(p, name, 'B', (uint32_t)strlen(s) + 8, s);
}

/* What a G1 JVM of JDK 17 reports, cut down: two generations, three spaces
 * in the first, one collector that ran; used 1000+20+300+4000 = 5320. */
static size_t pb_g1(pb *p, int big)
{
    pb_init(p, big);
    pb_long(p, "sun.rt._sync_Inflations", 3);
    pb_string(p, "java.property.java.version", "17.0.15");
    pb_string(p, "sun.rt.javaCommand", "demo.Main --port 8080");
    pb_string(p, "sun.rt.jvmCapabilities", "1100000000000000");
    pb_long(p, "sun.gc.generation.0.capacity", 8000);
    pb_long(p, "sun.gc.generation.0.space.0.used", 1000);
    pb_long(p, "sun.gc.generation.0.space.1.used", 20);
    pb_long(p, "sun.gc.generation.0.space.2.used", 300);
    pb_long(p, "sun.gc.generation.0.space.2.capacity", 999999);
    pb_long(p, "sun.gc.generation.1.capacity", 16000);
    pb_long(p, "sun.gc.generation.1.space.0.used", 4000);
    pb_long(p, "sun.gc.generation.1.spaces", 1);
    pb_long(p, "sun.gc.metaspace.used", 777777);
    pb_long(p, "sun.gc.collector.0.invocations", 2);
    pb_long(p, "sun.gc.collector.1.invocations", 1);
    return pb_finish(p);
}

#endif
