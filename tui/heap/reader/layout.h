/*
 * layout.h - shallow object sizes as HotSpot lays objects out.
 *
 * HPROF dumps carry no object sizes: a class dump lists its declared field
 * types, an array dump its element type and length. This module turns those
 * into the bytes HotSpot allocates, for one of three heap layouts (an
 * ht_layout: object header, reference size, where an array's length and
 * elements go), so sizes match `jcmd GC.class_histogram`.
 *
 * Owns: nothing past a call. Every function is pure: the answer depends only
 * on its arguments. ht_layout_instance_size keeps the holes of the layout it
 * builds on the stack, or, for a hierarchy with more holes than that holds, in
 * one heap array it frees before returning (at most one entry per field).
 *
 * Threads: none of its own; reentrant, callable from any thread.
 *
 * Must never: recurse (a hierarchy is walked in a loop, however deep), read
 * past the counts it is given, crash or overflow on odd input. A type code
 * that is not one of HPROF's basic types (below) is a field of no size and is
 * ignored; a NULL level is a level without fields; sizes that would not fit
 * the result saturate (UINT32_MAX, UINT64_MAX). 0 means "cannot say": no
 * layout, an unknown array element type, or out of memory.
 *
 * Follows HotSpot's field layout of JDK 15 and later, the same in JDK 17 and
 * JDK 25 for what is computed here (src/hotspot/share/classfile/
 * fieldLayoutBuilder.cpp, with -XX:+UseEmptySlotsInSupers, the default):
 *  - FieldLayout::reconstruct_layout + fill_holes: a class starts from its
 *    superclass's fields at their offsets after the header, the gaps between
 *    them EMPTY and usable, and free space from the end of the super's last
 *    field (not from the super's aligned size: a subclass field may use the
 *    super's trailing padding).
 *  - FieldLayoutBuilder::compute_regular_layout: primitive fields sorted by
 *    size, largest first, then references; alignment = size.
 *  - FieldLayout::add: each field goes into the smallest EMPTY block it fits
 *    with its alignment (searched from the end; among equal sizes, the highest
 *    offset), else at the end after an alignment gap (which becomes EMPTY);
 *    a field of the same size as one whose search just failed is appended.
 *  - FieldLayoutBuilder::epilogue: instance size = the end aligned to 8, then
 *    to the object alignment.
 *  - Static fields (initialize_static_layout, add_contiguously, add) are only
 *    ever appended, never put in gaps: references first, then primitives by
 *    size, from InstanceMirrorKlass::offset_of_static_fields() (the size of a
 *    java.lang.Class instance); the mirror's size is
 *    InstanceMirrorKlass::instance_size: that base plus the statics, aligned.
 *  - oops/arrayOop.hpp: elements start after the 4-byte length; from JDK 22
 *    (JDK-8139457) only 8-byte elements (long, double, and references without
 *    compressed oops) are aligned to 8 there; before, all were. Both give 16
 *    with a 12-byte header, so only the compact-headers layout (JDK 24+) sees
 *    the difference: int[] elements at 12, long[] at 16.
 *
 * Not modelled, since an HPROF dump does not say: @Contended (honoured only in
 * JDK classes: 128 bytes of padding around each contended group, and the
 * subclasses of such a class only append), fields the VM injects into some JDK
 * classes (the dump leaves them out), and java.lang.Object declaring fields
 * (level 0 is laid out like any class whose superclass has no fields).
 */
#ifndef HEAPTOP_LAYOUT_H
#define HEAPTOP_LAYOUT_H

#include <stdint.h>

/* HPROF basic type codes, as in CLASS DUMP field lists and PRIMITIVE ARRAY DUMP. */
enum {
    HT_TYPE_OBJECT = 2,
    HT_TYPE_BOOLEAN = 4,
    HT_TYPE_CHAR = 5,
    HT_TYPE_FLOAT = 6,
    HT_TYPE_DOUBLE = 7,
    HT_TYPE_BYTE = 8,
    HT_TYPE_SHORT = 9,
    HT_TYPE_INT = 10,
    HT_TYPE_LONG = 11,
};

/* A heap layout, in bytes. */
typedef struct ht_layout {
    const char *name;         /* for messages: "compressed oops" */
    uint8_t header;           /* instance fields start here (instanceOopDesc::base_offset) */
    uint8_t oop;              /* a reference field or array element (heapOopSize) */
    uint8_t array_length_off; /* an array's 4-byte length */
    uint8_t array_base;       /* element 0 of 1-, 2- and 4-byte elements */
    uint8_t array_base8;      /* element 0 of 8-byte elements (long, double, 8-byte refs) */
    uint8_t align;            /* object alignment (ObjectAlignmentInBytes); 0 means 8 */
} ht_layout;

/* JDK default: 12-byte header (compressed class pointers), 4-byte references. */
extern const ht_layout HT_LAYOUT_COMPRESSED;
/* -XX:-UseCompressedOops: 12-byte header (class pointers still compressed), 8-byte references. */
extern const ht_layout HT_LAYOUT_UNCOMPRESSED;
/* JDK 24+ -XX:+UseCompactObjectHeaders: 8-byte header, 4-byte references. */
extern const ht_layout HT_LAYOUT_COMPACT;
/* The layout a user names (heaptop heap --layout): "compressed",
 * "uncompressed", "compact"; NULL for another name. */
const ht_layout *ht_layout_by_name(const char *name);

/* Bytes of one field or array element of HPROF type `type` (2 = reference);
 * 0 for a code that is not a basic type. */
unsigned ht_layout_type_size(const ht_layout *L, unsigned type);

/* Bytes of an array of `length` elements of HPROF type `elem_type` (2 =
 * references): align_up(element base + length * element size, alignment).
 * 0 for an unknown element type; UINT64_MAX if it would not fit. */
uint64_t ht_layout_array_size(const ht_layout *L, unsigned elem_type, uint64_t length);

/* Instance size of a class whose hierarchy declares these instance field
 * types: levels[0] is the topmost superclass (java.lang.Object: usually 0
 * fields), levels[nlevels-1] the class itself; types[i] has ntypes[i] HPROF
 * type codes in the order the class declares them (the order does not change
 * the size). nlevels 0 is a bare header. Statics do not belong here. */
uint32_t ht_layout_instance_size(const ht_layout *L, const uint8_t *const *types,
                                 const uint32_t *ntypes, unsigned nlevels);

/* The instance fields of a class as its subclasses build on them: where the
 * last field ends and the gaps before it (each less than 8 bytes). A class's
 * layout is its superclass's with its own fields added (reconstruct_layout),
 * so a hierarchy is laid out once, level by level, in O(its fields): not
 * once per class from java.lang.Object down. */
#define HT_LAYOUT_GAPS 8
typedef struct ht_layout_fields {
    uint64_t tail;
    uint32_t ngaps;
    uint32_t gap_off[HT_LAYOUT_GAPS];
    uint8_t gap_size[HT_LAYOUT_GAPS];
} ht_layout_fields;

/* out = super (NULL: a bare header) with one level of `ntypes` fields
 * added. 0, or -1 when the result has more than HT_LAYOUT_GAPS gaps (never
 * seen: fields fill gaps as they come; the caller then lays the class out
 * whole with ht_layout_instance_size) or out of memory. */
int ht_layout_extend(const ht_layout *L, const ht_layout_fields *super, const uint8_t *types,
                     uint32_t ntypes, ht_layout_fields *out);
/* The instance size of a class whose fields are laid out as f. */
uint32_t ht_layout_fields_size(const ht_layout *L, const ht_layout_fields *f);

/* Bytes of the java.lang.Class mirror of a class with these static field
 * types, given the size of a mirror without statics (java.lang.Class's own
 * instance size, with its injected fields; rounded up to 8 if it is not a
 * multiple). Array classes and primitive types have no statics: their mirror
 * is class_base. */
uint32_t ht_layout_mirror_size(const ht_layout *L, uint32_t class_base, const uint8_t *static_types,
                               uint32_t nstatic);

#endif
