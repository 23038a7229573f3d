/*
 * snapshot_int.h - what the files of the snapshot builder share among
 * themselves (snapshot.c: the passes and the object index; classes.c: the
 * class table; class_sizes.c: the layout and every size; refs.c:
 * references). Not for other parts.
 */
#ifndef HEAPTOP_SNAPSHOT_INT_H
#define HEAPTOP_SNAPSHOT_INT_H

#include "hashmap.h"
#include "snapshot.h"

/* The builder's state beside the snapshot it fills. */
typedef struct ht_build {
    ht_snapshot *s;
    ht_hprof *h;
    const ht_snapshot_opts *o;
    ht_map load;     /* class id -> name id */
    ht_map class_of; /* class object id -> class index */
    uint32_t ncap;   /* capacity of offs during the walk */
    uint32_t class_cap;
    uint32_t root_cap;
    uint32_t prim_class[12]; /* class index of "[Z" .. "[J" by element type */
    uint32_t class_base;     /* bytes of a java.lang.Class without statics */
    uint8_t *inject;         /* class_sizes.c, per class: 1 + index of its injected fields, or 0 */
    uint32_t *heap_size;     /* class_sizes.c, per class: its size as the heap shows it, or 0 */
} ht_build;

int ht_build_cancelled(ht_build *b);
/* snapshot.c: the find index (ht_snapshot_find) and kinds of s->ids/offs,
 * made anew (after the marker's objects left them). */
int ht_snapshot_index(ht_build *b);

/* sampled.c */
/* Find the agent's marker, read its sample table, and take its objects out
 * of s->ids and s->offs (a dump without one is left as it is). */
int ht_sampled_take(ht_build *b);
/* Each sample's object by number, once the snapshot is built. */
int ht_sampled_resolve(ht_build *b);
void ht_build_progress(ht_build *b, const char *phase, uint64_t done, uint64_t total);

/* classes.c */
/* Every CLASS DUMP into s->classes (names, superclasses, fields), the
 * primitive array classes found or made up. */
int ht_classes_read(ht_build *b);
/* Offset of the u2 count of a CLASS DUMP's part at off (0 constant pool,
 * 1 statics, 2 instance fields); the first pass has checked the extents. */
size_t ht_class_dump_part(const ht_hprof *h, size_t off, int part);
/* The class index of class object id, HT_NONE when it is not a class. */
uint32_t ht_classes_find(const ht_build *b, uint64_t class_id);

/* class_sizes.c */
/* Sizes of every class and object in the layout (inferred when opts give
 * none), after ht_classes_read. */
int ht_classes_size(ht_build *b);

/* refs.c */
/* Outgoing and incoming references. */
int ht_refs_build(ht_build *b);

/* The references of object n, in order: calls f(ctx, target id, k) for each
 * (null ids included, k counting every reference slot). Returns what f
 * returns when non-zero, else 0. */
typedef int (*ht_ref_fn)(void *ctx, uint64_t id, uint32_t k);
int ht_refs_each(const ht_snapshot *s, uint32_t n, ht_ref_fn f, void *ctx);

#endif
