/*
 * hprof_marker_builder.h - a small HPROF file holding heaptop's marker
 * (common/heap_marker.h), written byte by byte as the agent's dump would
 * hold it: a JNI global root on an Object[] whose [0] is the long[] table,
 * [1] the byte[] session (a HELLO reply naming the run's pid and start), and
 * [2+i] a WeakReference to sample i's object (null when it died). For the
 * unit test of the sample join and the fuzz target's seeds. Aborts when out
 * of memory, like hprof_builder.h.
 *
 * Each sample's object is a demo.Foo instance (one int field) held by a root
 * of its own, so the snapshot without the marker is: the classes, the live
 * samples' objects, nothing else.
 */
#ifndef HEAPTOP_HPROF_MARKER_BUILDER_H
#define HEAPTOP_HPROF_MARKER_BUILDER_H

#include "heap_marker.h"
#include "hprof_builder.h"
#include "protocol.h"

typedef struct hb_mark_sample {
    uint64_t serial;
    uint32_t trace_id, class_id;
    double bytes, instances;
    int alive; /* 0: its WeakReference's referent is null */
} hb_mark_sample;

enum { C_WEAKREF = 0x700, HB_MARKER = 0xA000, HB_TABLE = 0xA100, HB_SESSION = 0xA200 };

static inline void hb_double_bits(hb *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    hb_u8(b, u);
}

/* The file: the samples v[0..n) of the run (pid, start_ms) as the agent
 * would mark them. Object ids: sample i's object 0x5000 + i, its
 * WeakReference 0xB000 + i. */
static inline void hb_marker(hb *b, unsigned id_size, uint32_t pid, uint64_t start_ms,
                             const hb_mark_sample *v, unsigned n)
{
    hb_start(b, id_size, start_ms + 60000);
    static const char *names[] = {"java/lang/Object", "demo/Foo", "[Ljava/lang/Object;",
                                  "java/lang/ref/WeakReference"};
    static const uint64_t ids[] = {C_OBJECT, C_FOO, C_OBJARR, C_WEAKREF};
    for (unsigned i = 0; i < 4; i++) {
        hb_utf8(b, 0x10 + i, names[i]);
        hb_load_class(b, i + 1, ids[i], 0x10 + i);
    }
    hb_utf8(b, 0x20, "referent");
    hb_utf8(b, 0x21, "value");
    /* the session: the HELLO reply a viewer of the run would get */
    ht_buf hello;
    ht_buf_init(&hello);
    ht_hello h;
    memset(&h, 0, sizeof h);
    h.pid = pid;
    h.start_epoch_ms = start_ms;
    h.interval = 524288;
    h.depth = 64;
    h.live = 1;
    size_t m = ht_msg_begin(&hello, HT_MSG_HELLO_REP, 0);
    ht_enc_hello(&hello, &h, "demo.Main", "17", "", "");
    ht_msg_end(&hello, m);
    if (hello.failed) abort();

    size_t r = hb_begin(b, 0x0C);
    hb_u1(b, 0x01); /* ROOT JNI GLOBAL: the marker */
    hb_id(b, HB_MARKER);
    hb_id(b, 0x9100);
    for (unsigned i = 0; i < n; i++)
        if (v[i].alive) {
            hb_u1(b, 0xFF); /* ROOT UNKNOWN: what holds the sampled object */
            hb_id(b, 0x5000 + i);
        }
    uint64_t value = 0x21, referent = 0x20;
    uint8_t t_int = 10, t_obj = 2;
    hb_class_dump(b, C_OBJECT, 0, 0, 0, NULL, NULL);
    hb_class_dump(b, C_FOO, C_OBJECT, 4, 1, &value, &t_int);
    hb_class_dump(b, C_WEAKREF, C_OBJECT, id_size, 1, &referent, &t_obj);
    hb_class_dump(b, C_OBJARR, C_OBJECT, 0, 0, NULL, NULL);
    for (unsigned i = 0; i < n; i++) {
        if (v[i].alive) {
            hb_u1(b, 0x21);
            hb_id(b, 0x5000 + i);
            hb_u4(b, 1);
            hb_id(b, C_FOO);
            hb_u4(b, 4);
            hb_u4(b, (uint32_t)v[i].serial);
        }
        hb_u1(b, 0x21); /* the WeakReference */
        hb_id(b, 0xB000 + i);
        hb_u4(b, 1);
        hb_id(b, C_WEAKREF);
        hb_u4(b, id_size);
        hb_id(b, v[i].alive ? 0x5000 + i : 0);
    }
    hb_u1(b, 0x22); /* the marker's Object[] */
    hb_id(b, HB_MARKER);
    hb_u4(b, 1);
    hb_u4(b, HT_MARKER_FIRST + n);
    hb_id(b, C_OBJARR);
    hb_id(b, HB_TABLE);
    hb_id(b, HB_SESSION);
    for (unsigned i = 0; i < n; i++)
        hb_id(b, 0xB000 + i);
    hb_u1(b, 0x23); /* its long[] table */
    hb_id(b, HB_TABLE);
    hb_u4(b, 1);
    hb_u4(b, HT_MARKER_HEAD + n * HT_MARKER_WORDS);
    hb_u1(b, 11);
    hb_u8(b, (uint64_t)HT_MARKER_MAGIC);
    hb_u8(b, HT_MARKER_VERSION);
    hb_u8(b, n);
    for (unsigned i = 0; i < n; i++) {
        hb_u8(b, v[i].serial);
        hb_u8(b, (uint64_t)v[i].trace_id << 32 | v[i].class_id);
        hb_double_bits(b, v[i].bytes);
        hb_double_bits(b, v[i].instances);
    }
    hb_u1(b, 0x23); /* its byte[] session: the HELLO after its u32 length (LE) */
    hb_id(b, HB_SESSION);
    hb_u4(b, 1);
    hb_u4(b, (uint32_t)(4 + hello.len));
    hb_u1(b, 8);
    for (int k = 0; k < 4; k++)
        hb_u1(b, (unsigned)(hello.len >> (8 * k)) & 0xFF);
    hb_bytes(b, hello.data, hello.len);
    hb_end(b, r);
    ht_buf_free(&hello);
}

#endif
