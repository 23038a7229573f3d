/*
 * snapshot.h - one heap dump as a graph: objects by number, their classes and
 * shallow sizes, references both ways, GC roots. What the analyses
 * (tui/heap/analysis/: dominators, paths, duplicates, ...) are computed over.
 *
 * Owns: arrays indexed by object number, no node per malloc. Objects are
 * numbered 0..nobjects-1 in the order of their ids (HotSpot's ids are
 * addresses), so an id is found by a search in `ids`, and `offs` points back
 * into the mapped file, where field names, values and array elements are read
 * on demand rather than stored. References are compressed adjacency arrays
 * (CSR): the outgoing ones of object n are out[out_start[n] .. out_start[n+1]),
 * the incoming ones likewise in `in`. Modelled as the well-known analysers do:
 * an object refers to its class; a class object to its superclass, its
 * loader, its signers and protection domain, and its static fields' values;
 * a class loader to every class it defined (the JVM keeps a class as long as
 * its loader lives, whether or not an instance or a Java field holds it).
 * Every class of the boot loader is a GC root, its array classes included,
 * though HotSpot lists only its instance classes as ROOT STICKY CLASS (the
 * boot loader never unloads either; snapshot.c, resolve_roots).
 * The references of a field or an element are in the order the dump lists
 * them, after the class edge, so the k-th outgoing reference can be named
 * again from the file (ht_snapshot_ref_name).
 *
 * Threads: none of its own; built on one thread (the viewer's job thread),
 * then read-only, so any thread may read a finished snapshot. Pure C: no
 * terminal, no sockets.
 *
 * Must never: trust the file. The first pass (hprof.h) has checked every
 * record's extent; this one checks what the extents hold: an instance whose
 * fields do not fit its class, a class that is its own superclass, an id seen
 * twice. Those end the build with a message naming the offset. References to
 * ids that are not in the dump are dropped and counted, as every analyser
 * does (a dump can hold them: a class's loader that was not dumped).
 */
#ifndef HEAPTOP_SNAPSHOT_H
#define HEAPTOP_SNAPSHOT_H

#include "hashmap.h"
#include "hprof.h"
#include "layout.h"
#include "sampled.h"

#include <stdint.h>

#define HT_NONE UINT32_MAX
/* Superclasses a class may have: HotSpot allows any number, real programs
 * a few dozen; a dump with more is taken for crafted. (Each class is laid
 * out once, from its superclass's layout: the cost is not depth squared.) */
#define HT_MAX_CLASS_DEPTH 4096
#define HT_ROOT            (UINT32_MAX - 1) /* the virtual root over all GC roots */

/* What an object is in the dump. */
typedef enum {
    HT_OBJ_INSTANCE,
    HT_OBJ_OBJ_ARRAY,
    HT_OBJ_PRIM_ARRAY,
    HT_OBJ_CLASS,
} ht_obj_kind;

/* One class (a CLASS DUMP; primitive array classes too: "int[]"). */
typedef struct ht_class {
    uint32_t obj;       /* the class object's number, HT_NONE for a made-up "int[]" */
    uint32_t super;     /* class index of the superclass, HT_NONE for none */
    uint32_t loader;    /* object number of the loader, HT_NONE for the boot loader */
    char *name;         /* Java's name (java_name.h): "int[]", not the histogram's "[I" */
    size_t fields;      /* offset of its instance-field count in the file */
    uint16_t nfields;   /* instance fields it declares (not inherited) */
    uint16_t depth;     /* superclasses above it */
    uint32_t inst_size; /* bytes of one instance, in the layout in force */
    uint32_t data_size; /* bytes of an INSTANCE DUMP's field values */
    uint64_t instances; /* objects of this class in the dump */
    uint64_t shallow;   /* their shallow bytes */
    uint32_t mirror;    /* bytes of the class object itself (java.lang.Class) */
    uint8_t prim_type;  /* element type of a primitive array class, else 0 */
    uint32_t nrefs;     /* reference fields of an instance, inherited ones included */
    uint32_t ref_up;    /* the nearest superclass that declares references, or HT_NONE */
} ht_class;

/* A GC root: the object and what holds it. */
typedef struct ht_root {
    uint32_t obj;
    uint8_t kind; /* ht_hprof_sub, < HT_SUB_ROOT_COUNT */
    size_t off;   /* the sub-record, for its thread and frame */
} ht_root;

typedef struct ht_snapshot {
    ht_hprof *h; /* the mapped dump, which must outlive the snapshot */
    uint32_t nobjects;
    uint64_t *ids;       /* object id by number, ascending */
    uint64_t *offs;      /* offset of its sub-record in the file */
    uint32_t *cls;       /* class index by number (a class object: java.lang.Class) */
    uint32_t *size8;     /* shallow size in 8-byte words */
    uint8_t *kind;       /* ht_obj_kind by number */
    uint32_t *out_start; /* nobjects + 1 */
    uint32_t *out;
    uint32_t *in_start; /* nobjects + 1 */
    uint32_t *in;
    uint64_t nrefs; /* edges each way */
    ht_class *classes;
    uint32_t nclasses;
    uint32_t class_class; /* class index of java.lang.Class, HT_NONE if absent */
    ht_root *roots;
    uint32_t nroots;
    uint64_t dangling;    /* references to ids not in the dump, dropped */
    uint64_t total_bytes; /* shallow bytes of every object */
    const ht_layout *layout;
    int layout_inferred;      /* 1 when chosen from the dump, 0 when given */
    uint64_t layout_votes;    /* sampled objects whose size the addresses confirm */
    uint64_t layout_sampled;  /* objects sampled */
    uint32_t sizes_from_heap; /* classes whose size came from the addresses */
    ht_hprof_summary summary;
    /* for naming and decoding again from the file */
    ht_map utf8;            /* name id -> body offset of its UTF8 record */
    uint32_t *refpos;       /* per class, offsets of the references it declares in its
                               own fields' data (ht_refpos_next adds the inherited ones) */
    uint32_t *refpos_start; /* nclasses + 1 */
    uint32_t *by_depth;     /* class indexes, every superclass before its subclasses */
    ht_map frames;          /* stack frame id -> body offset of its FRAME record */
    ht_map traces;          /* stack trace serial -> body offset of its TRACE record */
    ht_map class_serials;   /* class serial -> class id (LOAD CLASS) */
    uint32_t *defined;      /* class objects grouped by their loader */
    ht_map loaders;         /* loader object -> (1 + start) << 32 | count in defined */
    ht_sampled sampled;     /* the agent's sampled objects, when its marker is in the dump */
    uint32_t *bucket;       /* ht_snapshot_find's index into ids */
    unsigned bucket_shift;
    uint32_t nbuckets;
} ht_snapshot;

/* Progress and cancellation, for a job thread. */
typedef struct ht_snapshot_opts {
    const ht_layout *layout; /* NULL: infer from the dump */
    void (*progress)(void *ctx, const char *phase, uint64_t done, uint64_t total);
    void *ctx;
    int (*cancelled)(void *ctx); /* non-zero: stop with HT_HPROF_ERR_CANCELLED */
} ht_snapshot_opts;

/* An array of n bytes per object, in huge pages where the kernel gives them
 * on request (a fault per 2 MiB, not per 4 KiB: a fifth of the time went to
 * page faults); freed with free(). zero: zero-filled. NULL out of memory. */
void *ht_heap_array(size_t n, int zero);

/* Read the whole dump into s. HT_HPROF_OK, or an error with h->err set and s
 * empty. opts may be NULL. */
int ht_snapshot_build(ht_snapshot *s, ht_hprof *h, const ht_snapshot_opts *opts);
void ht_snapshot_free(ht_snapshot *s);

/* The byte offsets of the references in the field data of an instance of
 * class c, ascending (its own fields first, as HotSpot dumps them, then each
 * superclass's): ht_refpos_begin, then ht_refpos_next while it returns 1.
 * Inherited lists are shared, not copied: a class holds only the offsets of
 * the references it declares, and a walk skips the superclasses that declare
 * none, so it costs O(the references), however deep the hierarchy. */
typedef struct ht_refpos_it {
    const ht_snapshot *s;
    uint32_t data, next, i, end, base;
} ht_refpos_it;
static inline void ht_refpos_begin(ht_refpos_it *it, const ht_snapshot *s, uint32_t c)
{
    *it = (ht_refpos_it){.s = s, .data = s->classes[c].data_size, .next = c};
}
static inline int ht_refpos_next(ht_refpos_it *it, uint32_t *pos)
{
    const ht_snapshot *s = it->s;
    while (it->i == it->end) {
        uint32_t k = it->next;
        if (k == HT_NONE) return 0;
        it->i = s->refpos_start[k];
        it->end = s->refpos_start[k + 1];
        it->base = it->data - s->classes[k].data_size; /* where k's own fields start */
        it->next = s->classes[k].ref_up;
    }
    *pos = it->base + s->refpos[it->i++];
    return 1;
}

/* The number of the object with this id, or HT_NONE. */
uint32_t ht_snapshot_find(const ht_snapshot *s, uint64_t id);
static inline uint64_t ht_snapshot_shallow(const ht_snapshot *s, uint32_t n)
{
    return (uint64_t)s->size8[n] * 8;
}
/* The class index of class object n (its own class, not java.lang.Class),
 * or HT_NONE when n is not a class object. */
uint32_t ht_snapshot_class_index(const ht_snapshot *s, uint32_t n);
/* The class name of object n ("java.lang.String", "int[]"). */
const char *ht_snapshot_class_name(const ht_snapshot *s, uint32_t n);
/* The name of object n's k-th outgoing reference into buf: "value",
 * "[17]", "<class>", "<loader>", "static LISTENERS". */
void ht_snapshot_ref_name(const ht_snapshot *s, uint32_t n, uint32_t k, char *buf, size_t cap);
/* How many of class object n's outgoing references are its static fields'
 * values (non-null, in the dump): the last ones of its run in out[]. 0 when
 * n is not a class object. Reads the file: call it once per class. */
uint32_t ht_snapshot_static_refs(const ht_snapshot *s, uint32_t n);
/* The index in n's outgoing references of the first one to m, or HT_NONE. */
uint32_t ht_ref_index(const ht_snapshot *s, uint32_t n, uint32_t m);
/* The UTF8 string with this id, or NULL (pointer into the snapshot's table). */
const char *ht_snapshot_utf8(const ht_snapshot *s, uint64_t id, size_t *len);

#endif
