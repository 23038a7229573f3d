/*
 * hprof_builder.h - small HPROF files written byte by byte, for the unit test
 * and the fuzz target's seeds. Not a writer for real use: it aborts when out
 * of memory.
 *
 * hb_sample() writes one file holding every top-level record kind (and one
 * unknown tag), every heap-dump sub-record kind, a few classes and objects,
 * with the heap dump last (as HotSpot writes it), so that any shorter prefix
 * of the file is a truncated file. It says in hb_expect what it wrote and
 * where some records start, for tests that corrupt them.
 */
#ifndef HEAPTOP_HPROF_BUILDER_H
#define HEAPTOP_HPROF_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hb {
    uint8_t *d;
    size_t len, cap;
    unsigned id; /* identifier size */
} hb;

static inline void hb_bytes(hb *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->d = realloc(b->d, b->cap);
        if (!b->d) abort();
    }
    memcpy(b->d + b->len, p, n);
    b->len += n;
}
static inline void hb_u1(hb *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    hb_bytes(b, &x, 1);
}
static inline void hb_u2(hb *b, unsigned v)
{
    hb_u1(b, v >> 8);
    hb_u1(b, v);
}
static inline void hb_u4(hb *b, uint32_t v)
{
    hb_u2(b, v >> 16);
    hb_u2(b, v & 0xffff);
}
static inline void hb_u8(hb *b, uint64_t v)
{
    hb_u4(b, (uint32_t)(v >> 32));
    hb_u4(b, (uint32_t)v);
}
static inline void hb_id(hb *b, uint64_t v)
{
    if (b->id == 8)
        hb_u8(b, v);
    else
        hb_u4(b, (uint32_t)v);
}
static inline void hb_patch_u4(hb *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->d[at + (size_t)i] = (uint8_t)(v >> (24 - 8 * i));
}

/* A top-level record: tag, time, length patched by hb_end. */
static inline size_t hb_begin(hb *b, unsigned tag)
{
    size_t at = b->len;
    hb_u1(b, tag);
    hb_u4(b, 0);
    hb_u4(b, 0);
    return at;
}
static inline void hb_end(hb *b, size_t at)
{
    hb_patch_u4(b, at + 5, (uint32_t)(b->len - at - 9));
}

static inline void hb_utf8(hb *b, uint64_t id, const char *s)
{
    size_t r = hb_begin(b, 0x01);
    hb_id(b, id);
    hb_bytes(b, s, strlen(s));
    hb_end(b, r);
}

/* An empty file's header: the magic of its id size (1.0.2 for 4 bytes, 1.0.3
 * for 8), the id size, and the dump's time in ms. */
static inline void hb_start(hb *b, unsigned id_size, uint64_t ms)
{
    memset(b, 0, sizeof *b);
    b->id = id_size;
    const char *magic = id_size == 8 ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2";
    hb_bytes(b, magic, strlen(magic) + 1);
    hb_u4(b, id_size);
    hb_u8(b, ms);
}
static inline void hb_load_class(hb *b, uint32_t serial, uint64_t class_id, uint64_t name_id)
{
    size_t r = hb_begin(b, 0x02);
    hb_u4(b, serial);
    hb_id(b, class_id);
    hb_u4(b, 1);
    hb_id(b, name_id);
    hb_end(b, r);
}

/* A CLASS DUMP sub-record: no constant pool, no statics; instances of
 * `size` bytes with `nfields` fields (name string id, basic type); defined
 * by the class loader object `loader` (0: the boot loader). */
static inline void hb_class_dump_in(hb *b, uint64_t cls, uint64_t super, uint64_t loader,
                                    uint32_t size, unsigned nfields, const uint64_t *names,
                                    const uint8_t *types)
{
    hb_u1(b, 0x20);
    hb_id(b, cls);
    hb_u4(b, 1);
    hb_id(b, super);
    hb_id(b, loader);
    for (int i = 0; i < 4; i++) /* signers, domain, two reserved */
        hb_id(b, 0);
    hb_u4(b, size);
    hb_u2(b, 0); /* constant pool */
    hb_u2(b, 0); /* statics */
    hb_u2(b, nfields);
    for (unsigned i = 0; i < nfields; i++) {
        hb_id(b, names[i]);
        hb_u1(b, types[i]);
    }
}
static inline void hb_class_dump(hb *b, uint64_t cls, uint64_t super, uint32_t size,
                                 unsigned nfields, const uint64_t *names, const uint8_t *types)
{
    hb_class_dump_in(b, cls, super, 0, size, nfields, names, types);
}

typedef struct hb_expect {
    uint64_t records[15], subrecords[13], objects;
    size_t first_instance; /* offset of the first INSTANCE DUMP sub-record */
    size_t first_dump;     /* offset of the first HEAP DUMP (SEGMENT) record */
    size_t trace;          /* offset of the TRACE record */
} hb_expect;

/* Class ids and what the histogram calls them. */
enum {
    C_OBJECT = 0x100,
    C_STRING = 0x200,
    C_FOO = 0x300,
    C_OBJARR = 0x400,
    C_CLASS = 0x500,
    C_LAMBDA = 0x600
};

static inline void hb_instance(hb *b, hb_expect *e, uint64_t obj, uint64_t cls, unsigned nbytes)
{
    if (!e->first_instance) e->first_instance = b->len;
    hb_u1(b, 0x21);
    hb_id(b, obj);
    hb_u4(b, 1);
    hb_id(b, cls);
    hb_u4(b, nbytes);
    for (unsigned i = 0; i < nbytes; i++)
        hb_u1(b, i);
    e->subrecords[10]++;
    e->objects++;
}

static inline void hb_sample(hb *b, hb_expect *e, unsigned id_size, int segmented)
{
    memset(e, 0, sizeof *e);
    hb_start(b, id_size, 1700000000123ull);
    /* names and classes */
    static const char *names[] = {"java/lang/Object", "java/lang/String",
                                  "demo/Foo",         "[Ljava/lang/Object;",
                                  "java/lang/Class",  "demo/App$$Lambda$1+0x0000000800c01000"};
    for (unsigned i = 0; i < 6; i++) {
        hb_utf8(b, 0x10 + i, names[i]);
        hb_load_class(b, i + 1, 0x100 * (i + 1), 0x10 + i);
    }
    hb_utf8(b, 0x20, "value");
    e->records[0] = 7, e->records[1] = 6;
    size_t r = hb_begin(b, 0x03); /* UNLOAD CLASS */
    hb_u4(b, 9);
    hb_end(b, r);
    r = hb_begin(b, 0x04); /* FRAME */
    for (int i = 0; i < 4; i++)
        hb_id(b, 0x20);
    hb_u4(b, 3);
    hb_u4(b, (uint32_t)-1);
    hb_end(b, r);
    e->trace = b->len;
    r = hb_begin(b, 0x05); /* TRACE: two frames */
    hb_u4(b, 1);
    hb_u4(b, 1);
    hb_u4(b, 2);
    hb_id(b, 0x20);
    hb_id(b, 0x20);
    hb_end(b, r);
    r = hb_begin(b, 0x06); /* ALLOC SITES: one site */
    hb_u2(b, 0);
    for (int i = 0; i < 3; i++)
        hb_u4(b, 0);
    hb_u8(b, 0);
    hb_u8(b, 0);
    hb_u4(b, 1);
    hb_u1(b, 0);
    for (int i = 0; i < 6; i++)
        hb_u4(b, 1);
    hb_end(b, r);
    r = hb_begin(b, 0x07); /* HEAP SUMMARY */
    hb_u4(b, 0);
    hb_u4(b, 0);
    hb_u8(b, 0);
    hb_u8(b, 0);
    hb_end(b, r);
    r = hb_begin(b, 0x0A); /* START THREAD */
    hb_u4(b, 1);
    hb_id(b, 0x9000);
    hb_u4(b, 1);
    for (int i = 0; i < 3; i++)
        hb_id(b, 0x20);
    hb_end(b, r);
    r = hb_begin(b, 0x0B); /* END THREAD */
    hb_u4(b, 1);
    hb_end(b, r);
    r = hb_begin(b, 0x0D); /* CPU SAMPLES: one trace */
    hb_u4(b, 5);
    hb_u4(b, 1);
    hb_u4(b, 5);
    hb_u4(b, 1);
    hb_end(b, r);
    r = hb_begin(b, 0x0E); /* CONTROL SETTINGS */
    hb_u4(b, 3);
    hb_u2(b, 8);
    hb_end(b, r);
    r = hb_begin(b, 0x55); /* a tag no one knows */
    hb_u1(b, 1);
    hb_u1(b, 2);
    hb_u1(b, 3);
    hb_end(b, r);
    for (int k = 2; k <= 8; k++)
        e->records[k]++;
    e->records[12] = e->records[13] = e->records[14] = 1;
    /* the heap dump: one record, or two segments and an end */
    e->first_dump = b->len;
    r = hb_begin(b, segmented ? 0x1C : 0x0C);
    static const unsigned roots[] = {0xFF, 1, 2, 3, 4, 5, 6, 7, 8};
    for (unsigned i = 0; i < 9; i++) {
        hb_u1(b, roots[i]);
        hb_id(b, 0x9000 + i);
        if (roots[i] == 1) hb_id(b, 0x77);
        if (roots[i] == 2 || roots[i] == 3 || roots[i] == 8) hb_u8(b, 1);
        if (roots[i] == 4 || roots[i] == 6) hb_u4(b, 1);
        e->subrecords[i]++;
    }
    /* CLASS DUMP of demo.Foo: one pool entry, two statics, two fields */
    hb_u1(b, 0x20);
    hb_id(b, C_FOO);
    hb_u4(b, 1);
    hb_id(b, C_OBJECT);
    for (int i = 0; i < 5; i++)
        hb_id(b, 0);
    hb_u4(b, 4 + id_size);
    hb_u2(b, 1);
    hb_u2(b, 7);
    hb_u1(b, 10);
    hb_u4(b, 42); /* int */
    hb_u2(b, 2);
    hb_id(b, 0x20);
    hb_u1(b, 2);
    hb_id(b, 0x5000); /* object */
    hb_id(b, 0x20);
    hb_u1(b, 11);
    hb_u8(b, 7); /* long */
    hb_u2(b, 2);
    hb_id(b, 0x20);
    hb_u1(b, 10);
    hb_id(b, 0x20);
    hb_u1(b, 2);
    e->subrecords[9]++;
    /* instances */
    for (unsigned i = 0; i < 3; i++)
        hb_instance(b, e, 0x5000 + i, C_FOO, 4 + id_size);
    if (segmented) {
        hb_end(b, r);
        e->records[10]++;
        r = hb_begin(b, 0x1C);
    }
    for (unsigned i = 0; i < 2; i++)
        hb_instance(b, e, 0x6000 + i, C_STRING, 5);
    hb_instance(b, e, 0x6100, C_LAMBDA, 0);
    hb_instance(b, e, 0x6200, C_CLASS, 0); /* a primitive type's mirror */
    /* CLASS DUMP of an array class: nothing in it */
    hb_u1(b, 0x20);
    hb_id(b, C_OBJARR);
    hb_u4(b, 1);
    for (int i = 0; i < 6; i++)
        hb_id(b, i == 0 ? C_OBJECT : 0);
    hb_u4(b, 0);
    hb_u2(b, 0);
    hb_u2(b, 0);
    hb_u2(b, 0);
    e->subrecords[9]++;
    e->objects += 2; /* the class objects */
    for (unsigned i = 0; i < 2; i++) {
        hb_u1(b, 0x22);
        hb_id(b, 0x7000 + i);
        hb_u4(b, 1);
        hb_u4(b, i + 1);
        hb_id(b, C_OBJARR);
        for (unsigned j = 0; j <= i; j++)
            hb_id(b, 0x5000 + j);
        e->subrecords[11]++;
        e->objects++;
    }
    static const unsigned prims[][2] = {{10, 4}, {10, 4}, {8, 1}, {11, 8}};
    for (unsigned i = 0; i < 4; i++) {
        hb_u1(b, 0x23);
        hb_id(b, 0x8000 + i);
        hb_u4(b, 1);
        hb_u4(b, 3);
        hb_u1(b, prims[i][0]);
        for (unsigned j = 0; j < 3 * prims[i][1]; j++)
            hb_u1(b, j);
        e->subrecords[12]++;
        e->objects++;
    }
    hb_end(b, r);
    if (segmented) {
        e->records[10]++;
        r = hb_begin(b, 0x2C);
        hb_end(b, r);
        e->records[11]++;
    } else {
        e->records[9]++;
    }
}

/* ---- Shapes of crafted class structures (hostile dumps), and a
 * plain dump of the same kind of content to compare their cost with. Ids
 * are 8 bytes; the dump is one HEAP DUMP SEGMENT and its END. Class ids are
 * HB_CLS + i, their names' string ids HB_NAME + i, instances from HB_OBJ. */
enum { HB_CLS = 0x1000000, HB_NAME = 0x2000000, HB_OBJ = 0x40000000, HB_FIELD = 0x3000000 };

/* Names and LOAD CLASS records of classes 0..n-1 ("hb/Cn"), class 0 being
 * java/lang/Object, then the segment's start (returned for hb_end). */
static inline size_t hb_shape_classes(hb *b, uint32_t n)
{
    hb_start(b, 8, 1700000000000ull);
    hb_utf8(b, HB_FIELD, "f");
    for (uint32_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, i ? "hb/C%u" : "java/lang/Object", (unsigned)i);
        hb_utf8(b, HB_NAME + i, name);
        hb_load_class(b, i + 1, HB_CLS + i, HB_NAME + i);
    }
    return hb_begin(b, 0x1C);
}
/* The segment's end and HEAP DUMP END. */
static inline void hb_shape_end(hb *b, size_t seg)
{
    hb_end(b, seg);
    hb_end(b, hb_begin(b, 0x2C));
}
/* A CLASS DUMP of class i (super j, or none when j is UINT32_MAX) with
 * nfields fields of one type, all named "f", and a sticky-class root. */
static inline void hb_shape_class(hb *b, uint32_t i, uint32_t j, unsigned nfields, uint8_t type)
{
    hb_u1(b, 0x05);
    hb_id(b, HB_CLS + i);
    hb_u1(b, 0x20);
    hb_id(b, HB_CLS + i);
    hb_u4(b, 1);
    hb_id(b, j == UINT32_MAX ? 0 : HB_CLS + j);
    for (int k = 0; k < 5; k++)
        hb_id(b, 0);
    hb_u4(b, 0);
    hb_u2(b, 0);
    hb_u2(b, 0);
    hb_u2(b, nfields);
    for (unsigned k = 0; k < nfields; k++) {
        hb_id(b, HB_FIELD);
        hb_u1(b, type);
    }
}
/* An INSTANCE DUMP header of object o of class i with len bytes of fields to
 * follow, held by a JNI global root. */
static inline void hb_shape_instance(hb *b, uint64_t o, uint32_t i, uint32_t len)
{
    hb_u1(b, 0x01);
    hb_id(b, o);
    hb_id(b, 0x99);
    hb_u1(b, 0x21);
    hb_id(b, o);
    hb_u4(b, 1);
    hb_id(b, HB_CLS + i);
    hb_u4(b, len);
}

/* One class of `nbool` boolean fields under Object, and `nsub` empty
 * subclasses of it: every subclass inherits all the fields (the report's
 * amplify100k: 65,535 and 100,000, 11.8 MB). */
static inline void hb_shape_wide(hb *b, unsigned nbool, uint32_t nsub)
{
    size_t seg = hb_shape_classes(b, nsub + 2);
    hb_shape_class(b, 0, UINT32_MAX, 0, 0);
    hb_shape_class(b, 1, 0, nbool, 4);
    for (uint32_t i = 0; i < nsub; i++)
        hb_shape_class(b, 2 + i, 1, 0, 0);
    hb_shape_end(b, seg);
}

/* A chain of `depth` classes, each declaring `nrefs` reference fields, and
 * `ninst` instances of the deepest whose every field refers to the first of
 * them (the report's chain4000_refs: 4,000 and 8). */
static inline void hb_shape_chain(hb *b, uint32_t depth, unsigned nrefs, uint32_t ninst)
{
    size_t seg = hb_shape_classes(b, depth + 1);
    hb_shape_class(b, 0, UINT32_MAX, 0, 0);
    for (uint32_t i = 1; i <= depth; i++)
        hb_shape_class(b, i, i - 1, nrefs, 2);
    for (uint32_t k = 0; k < ninst; k++) {
        hb_shape_instance(b, HB_OBJ + 64 * (uint64_t)k, depth, depth * nrefs * 8);
        for (uint32_t f = 0; f < depth * nrefs; f++)
            hb_id(b, HB_OBJ);
    }
    hb_shape_end(b, seg);
}

/* What an ordinary program's dump holds: `nclasses` classes under Object
 * with an int, a long, a boolean and a reference field each, and `ninst`
 * instances spread over them, each referring to the one before. About 46
 * bytes an instance and 170 a class. */
static inline void hb_shape_plain(hb *b, uint32_t nclasses, uint64_t ninst)
{
    size_t seg = hb_shape_classes(b, nclasses + 1);
    hb_shape_class(b, 0, UINT32_MAX, 0, 0);
    static const uint8_t types[4] = {10, 11, 4, 2};
    static const uint64_t names[4] = {HB_FIELD, HB_FIELD, HB_FIELD, HB_FIELD};
    for (uint32_t i = 1; i <= nclasses; i++) {
        hb_u1(b, 0x05);
        hb_id(b, HB_CLS + i);
        hb_class_dump(b, HB_CLS + i, HB_CLS, 0, 4, names, types);
    }
    for (uint64_t k = 0; k < ninst; k++) {
        if (seg != SIZE_MAX && b->len - seg > (1u << 30)) { /* segments of 1 GiB at most */
            hb_end(b, seg);
            seg = hb_begin(b, 0x1C);
        }
        hb_u1(b, 0x21); /* 32 bytes apart: what the compressed layout says */
        hb_id(b, HB_OBJ + 32 * k);
        hb_u4(b, 1);
        hb_id(b, HB_CLS + 1 + (uint32_t)(k % nclasses));
        hb_u4(b, 4 + 8 + 1 + 8);
        hb_u4(b, (uint32_t)k);
        hb_u8(b, k);
        hb_u1(b, 1);
        hb_id(b, k ? HB_OBJ + 32 * (k - 1) : 0);
    }
    hb_u1(b, 0x01);
    hb_id(b, ninst ? HB_OBJ + 32 * (ninst - 1) : 0);
    hb_id(b, 0x99);
    hb_shape_end(b, seg);
}

/* ---- A dump with every edge the snapshot models beside the Java-level
 * ones (test_behaviour_snapshot, and a fuzz seed): a class loader HB_L (an
 * instance of demo/Loader, field parent -> HB_P) held by nothing but its
 * classes, which define demo/Node, demo.Node[] and demo/Holder; Holder's
 * constant pool refers to HB_CPT and its statics to HB_ARR (INST), to itself
 * (SELF), to demo/Parent's class object (MIRROR), to null and to an id not
 * in the dump; HB_ARR = {n1, null, n2, n1, HB_GONE} is the one JNI global
 * (rooted = 0: none, and L, its classes and all they hold are garbage);
 * n1.next = n2, n2.data = HB_PA (char[3]). 8-byte ids. */
enum {
    HB_M_OBJECT = 0x100, /* java/lang/Object, boot */
    HB_M_CLASS,          /* java/lang/Class, boot */
    HB_M_LOADER,         /* demo/Loader { Object parent; }, boot */
    HB_M_PARENT,         /* demo/Parent {}, boot */
    HB_M_CPT,            /* demo/CpTarget {}, boot */
    HB_M_NODE,           /* demo/Node { Node next; char[] data; int v; }, defined by HB_L */
    HB_M_NODEARR,        /* demo.Node[], defined by HB_L */
    HB_M_HOLDER,         /* demo/Holder, statics, a constant pool ref, defined by HB_L */
    HB_M_NCLASSES = HB_M_HOLDER - HB_M_OBJECT + 1,
};
enum {
    HB_L = 0x9000,
    HB_P = 0x9010,
    HB_CPT = 0x9020,
    HB_N1 = 0x9030,
    HB_N2 = 0x9040,
    HB_ARR = 0x9050
};
enum { HB_PA = 0x9060, HB_GONE = 0x7777770 };
enum {
    HB_F_PARENT = 0x50,
    HB_F_NEXT,
    HB_F_DATA,
    HB_F_V,
    HB_S_INST,
    HB_S_COUNT,
    HB_S_NULL,
    HB_S_GONE,
    HB_S_SELF,
    HB_S_MIRROR
};

static inline void hb_loader_dump(hb *b, int rooted)
{
    hb_start(b, 8, 1700000000000ull);
    static const char *names[HB_M_NCLASSES] = {"java/lang/Object", "java/lang/Class", "demo/Loader",
                                               "demo/Parent",      "demo/CpTarget",   "demo/Node",
                                               "[Ldemo/Node;",     "demo/Holder"};
    for (unsigned i = 0; i < HB_M_NCLASSES; i++) {
        hb_utf8(b, 0x10 + i, names[i]);
        hb_load_class(b, i + 1, HB_M_OBJECT + i, 0x10 + i);
    }
    static const char *fields[] = {"parent", "next",   "data", "v",    "INST",
                                   "COUNT",  "NULLED", "GONE", "SELF", "MIRROR"};
    for (unsigned i = 0; i < 10; i++)
        hb_utf8(b, HB_F_PARENT + i, fields[i]);
    size_t r = hb_begin(b, 0x1C);
    const uint8_t ref = 2, in = 10;
    hb_class_dump(b, HB_M_OBJECT, 0, 0, 0, NULL, NULL);
    hb_class_dump(b, HB_M_CLASS, HB_M_OBJECT, 0, 0, NULL, NULL);
    hb_class_dump(b, HB_M_LOADER, HB_M_OBJECT, 8, 1, (uint64_t[]){HB_F_PARENT}, &ref);
    hb_class_dump(b, HB_M_PARENT, HB_M_OBJECT, 0, 0, NULL, NULL);
    hb_class_dump(b, HB_M_CPT, HB_M_OBJECT, 0, 0, NULL, NULL);
    hb_class_dump_in(b, HB_M_NODE, HB_M_OBJECT, HB_L, 20, 3,
                     (uint64_t[]){HB_F_NEXT, HB_F_DATA, HB_F_V}, (uint8_t[]){ref, ref, in});
    hb_class_dump_in(b, HB_M_NODEARR, HB_M_OBJECT, HB_L, 0, 0, NULL, NULL);
    /* demo/Holder by hand: a constant pool entry referring to HB_CPT, statics
     * INST -> HB_ARR, COUNT (int), NULLED (null), HB_GONE (not in the dump),
     * SELF -> its own class object (an object's reference to itself, no
     * edge), MIRROR -> demo/Parent's class object */
    hb_u1(b, 0x20);
    hb_id(b, HB_M_HOLDER);
    hb_u4(b, 1);
    hb_id(b, HB_M_OBJECT);
    hb_id(b, HB_L);
    for (int i = 0; i < 4; i++)
        hb_id(b, 0);
    hb_u4(b, 0);
    hb_u2(b, 1); /* constant pool */
    hb_u2(b, 3);
    hb_u1(b, ref);
    hb_id(b, HB_CPT);
    hb_u2(b, 6); /* statics */
    hb_id(b, HB_S_INST), hb_u1(b, ref), hb_id(b, HB_ARR);
    hb_id(b, HB_S_COUNT), hb_u1(b, in), hb_u4(b, 7);
    hb_id(b, HB_S_NULL), hb_u1(b, ref), hb_id(b, 0);
    hb_id(b, HB_S_GONE), hb_u1(b, ref), hb_id(b, HB_GONE);
    hb_id(b, HB_S_SELF), hb_u1(b, ref), hb_id(b, HB_M_HOLDER);
    hb_id(b, HB_S_MIRROR), hb_u1(b, ref), hb_id(b, HB_M_PARENT);
    hb_u2(b, 0); /* instance fields */
    /* roots: the boot classes are roots anyway; one JNI global on HB_ARR */
    if (rooted) hb_u1(b, 0x01), hb_id(b, HB_ARR), hb_id(b, 0x99);
    /* HB_L: a loader of three classes, parent -> HB_P; held by nothing Java-level */
    hb_u1(b, 0x21), hb_id(b, HB_L), hb_u4(b, 1), hb_id(b, HB_M_LOADER), hb_u4(b, 8), hb_id(b, HB_P);
    hb_u1(b, 0x21), hb_id(b, HB_P), hb_u4(b, 1), hb_id(b, HB_M_PARENT), hb_u4(b, 0);
    hb_u1(b, 0x21), hb_id(b, HB_CPT), hb_u4(b, 1), hb_id(b, HB_M_CPT), hb_u4(b, 0);
    /* n1.next = n2, n1.data = null; n2.next = null, n2.data = HB_PA */
    hb_u1(b, 0x21), hb_id(b, HB_N1), hb_u4(b, 1), hb_id(b, HB_M_NODE), hb_u4(b, 20);
    hb_id(b, HB_N2), hb_id(b, 0), hb_u4(b, 1);
    hb_u1(b, 0x21), hb_id(b, HB_N2), hb_u4(b, 1), hb_id(b, HB_M_NODE), hb_u4(b, 20);
    hb_id(b, 0), hb_id(b, HB_PA), hb_u4(b, 2);
    /* HB_ARR = {n1, null, n2, n1, HB_GONE} */
    hb_u1(b, 0x22), hb_id(b, HB_ARR), hb_u4(b, 1), hb_u4(b, 5), hb_id(b, HB_M_NODEARR);
    hb_id(b, HB_N1), hb_id(b, 0), hb_id(b, HB_N2), hb_id(b, HB_N1), hb_id(b, HB_GONE);
    /* HB_PA: char[3] */
    hb_u1(b, 0x23), hb_id(b, HB_PA), hb_u4(b, 1), hb_u4(b, 3), hb_u1(b, 5);
    hb_u2(b, 'a'), hb_u2(b, 'b'), hb_u2(b, 'c');
    hb_end(b, r);
    hb_end(b, hb_begin(b, 0x2C));
}

#endif
