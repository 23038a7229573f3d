/*
 * class_sizes.c - every class's instance and mirror size, and every object's
 * shallow size (see snapshot.h), once classes.c has read the class table.
 *
 * HPROF stores no object sizes, and not the flags that decide them. The
 * sizes follow HotSpot's layout (layout.h) once the layout is known; when the
 * caller does not say which, the heap's addresses do: HotSpot's ids are
 * addresses, and a full GC before a live dump leaves objects packed, so the
 * distance from one object to the next is, for most objects, exactly its
 * size. Each candidate layout is scored by how many objects' computed sizes
 * equal that distance, and the best one wins. The same distances give the
 * one size HotSpot's declared fields cannot: a java.lang.Class object's,
 * whose instance carries fields the VM injects and the dump does not list.
 *
 * Owns: the fields HotSpot injects into JDK classes (the table below and
 * b->inject), the sizes the heap's addresses show (b->heap_size: taken larger
 * than the declared fields make a class only for a class of the boot or
 * platform loader, the only ones @Contended padding or injected fields can
 * grow; see heap_evidence), and what it fills in the snapshot: the layout
 * and its votes, each class's inst_size, mirror, instances and shallow, and
 * size8 and total_bytes. Scratch arrays per class live for one call.
 *
 * Threads: none of its own; runs on the thread that builds the snapshot (the
 * viewer's job thread), called once by snapshot.c after ht_classes_read.
 *
 * Must never: trust a distance over the declared fields for an application
 * class (dead space after every instance of one must not size it), allocate
 * per object, recurse over superclasses (classes go by depth, superclasses
 * first, from s->by_depth), or read the dump past the extents the first
 * pass checked.
 */
#include "snapshot_int.h"

#include <stdlib.h>
#include <string.h>

static int nomem(ht_build *b)
{
    return ht_hprof_error(b->h, HT_HPROF_ERR_NOMEM, "out of memory");
}

/* Fields HotSpot injects into JDK classes and the dump leaves out
 * (javaClasses.hpp, the *_INJECTED_FIELDS macros; an intptr is a long on a
 * 64-bit VM), as HPROF type codes: 2 reference, 4 boolean, 8 byte, 9 short,
 * 10 int, 11 long. java.lang.Class's own are measured instead (see
 * size_classes). `only_with` names a class that exists only in the JDKs that
 * inject the field (Thread's came with the virtual threads of JDK 19+, and
 * with them jdk.internal.vm.StackChunk). */
static const struct injected {
    const char *cls, *types, *only_with;
} injected[] = {
    {"java.lang.String", "\x08", NULL},                        /* flags */
    {"java.lang.ClassLoader", "\x0b", NULL},                   /* loader_data */
    {"java.lang.invoke.ResolvedMethodName", "\x0b\x02", NULL}, /* vmtarget, vmholder */
    {"java.lang.invoke.MemberName", "\x0b", NULL},             /* vmindex */
    {"java.lang.invoke.MethodHandleNatives$CallSiteContext", "\x0b\x0b", NULL},
    {"java.lang.StackFrameInfo", "\x09", NULL}, /* version */
    {"java.lang.Module", "\x0b", NULL},         /* module_entry */
    {"java.lang.InternalError", "\x04", NULL},  /* during_unsafe_access */
    /* JDK 21-25: jvmti_thread_state, jvmti_VTMS_transition_disable_count,
     * jvmti_is_in_VTMS_transition, jfr_epoch (checked on JDK 25; JDK 26
     * drops the two VTMS fields, which the heap's evidence then corrects) */
    {"java.lang.Thread", "\x0b\x0a\x04\x09", "jdk.internal.vm.StackChunk"},
    {"jdk.internal.vm.StackChunk", "\x02\x08\x0b\x0a", NULL}, /* cont, flags, pc, max */
};

/* b->inject: for each dumped class of the boot loader (no loader the dump
 * holds) that injected[] names, in a JDK that has the field (only_with), 1 +
 * its index there. */
static int mark_injected(ht_build *b)
{
    const ht_snapshot *s = b->s;
    b->inject = calloc(s->nclasses ? s->nclasses : 1, 1);
    if (!b->inject) return nomem(b);
    for (unsigned i = 0; i < sizeof injected / sizeof *injected; i++) {
        int present = injected[i].only_with == NULL;
        for (uint32_t c = 0; c < s->nclasses && !present; c++)
            present = s->classes[c].obj != HT_NONE && s->classes[c].loader == HT_NONE &&
                      strcmp(s->classes[c].name, injected[i].only_with) == 0;
        for (uint32_t c = 0; c < s->nclasses && present; c++)
            if (s->classes[c].obj != HT_NONE && s->classes[c].loader == HT_NONE &&
                strcmp(s->classes[c].name, injected[i].cls) == 0)
                b->inject[c] = (uint8_t)(i + 1);
    }
    return HT_HPROF_OK;
}

/* Bytes of an instance of class c in layout L: the types of every level's
 * fields, topmost superclass first, with the fields HotSpot injects. A
 * superclass whose size the heap has shown (heap_evidence) is taken as a
 * block of that size with no holes, which its subclasses' fields follow: a
 * level of that many byte fields, which pack from the header without gaps. */
static uint32_t instance_size(ht_build *b, const ht_layout *L, uint32_t c, uint8_t *types,
                              size_t cap, const uint8_t **levels, uint32_t *counts)
{
    const ht_snapshot *s = b->s;
    const ht_hprof *h = b->h;
    unsigned nlv = 0;
    uint32_t opaque = HT_NONE;
    for (uint32_t k = c; k != HT_NONE && nlv <= s->classes[c].depth; k = s->classes[k].super) {
        if (k != c && b->heap_size && b->heap_size[k]) {
            opaque = k;
            break;
        }
        nlv++;
    }
    unsigned depth = nlv + (opaque != HT_NONE), lv = depth;
    uint8_t *t = types;
    for (uint32_t k = c; k != opaque && lv > (opaque != HT_NONE); k = s->classes[k].super) {
        const ht_class *ck = &s->classes[k];
        lv--;
        levels[lv] = t;
        counts[lv] = ck->nfields;
        for (unsigned i = 0; i < ck->nfields; i++)
            *t++ = h->data[ck->fields + 2 + i * (h->id_size + 1) + h->id_size];
        if (k < s->nclasses && b->inject && ck->obj != HT_NONE && b->inject[k]) {
            const char *extra = injected[b->inject[k] - 1].types;
            for (size_t i = 0; extra[i]; i++)
                *t++ = (uint8_t)extra[i], counts[lv]++;
        }
    }
    if (opaque != HT_NONE) {
        /* longs, and an int for a header that is not a multiple of 8: they
         * pack from the header without a gap to exactly the block's end */
        uint32_t n = b->heap_size[opaque] > L->header ? b->heap_size[opaque] - L->header : 0;
        size_t longs = n / 8, ints = (n % 8) / 4;
        if ((size_t)(t - types) + longs + ints > cap)
            return ht_layout_instance_size(L, levels + 1, counts + 1, depth - 1);
        levels[0] = t;
        counts[0] = (uint32_t)(longs + ints);
        memset(t, 11, longs);
        memset(t + longs, 10, ints);
    }
    return ht_layout_instance_size(L, levels, counts, depth);
}

/* Bytes of class c's static fields in its mirror, laid out from an 8-byte
 * aligned start. */
static uint32_t statics_size(ht_build *b, const ht_layout *L, uint32_t c, uint8_t *types)
{
    const ht_hprof *h = b->h;
    size_t p = ht_class_dump_part(h, b->s->offs[b->s->classes[c].obj], 1);
    unsigned count = ht_be16(h->data + p);
    p += 2;
    unsigned real = 0;
    for (unsigned i = 0; i < count; i++) {
        unsigned t = h->data[p + h->id_size];
        /* HotSpot adds "<resolved_references>" and "<init_lock>" as statics:
         * references the class holds, stored outside the mirror's statics */
        size_t len;
        const char *name = ht_snapshot_utf8(b->s, ht_hprof_id(h, p), &len);
        if (!name || len == 0 || name[0] != '<') types[real++] = (uint8_t)t;
        p += h->id_size + 1 + ht_hprof_type_size(h, t);
    }
    return ht_layout_mirror_size(L, 16, types, real) - 16;
}

/* Bytes of object n in L, once the classes are sized. */
static uint64_t object_size(ht_build *b, const ht_layout *L, uint32_t n)
{
    const ht_snapshot *s = b->s;
    const ht_hprof *h = b->h;
    size_t off = s->offs[n];
    unsigned id = h->id_size;
    switch (s->kind[n]) {
    case HT_OBJ_INSTANCE:
        return s->classes[s->cls[n]].inst_size;
    case HT_OBJ_OBJ_ARRAY:
        return ht_layout_array_size(L, 2, ht_be32(h->data + off + 1 + id + 4));
    case HT_OBJ_PRIM_ARRAY:
        return ht_layout_array_size(L, h->data[off + 1 + id + 8],
                                    ht_be32(h->data + off + 1 + id + 4));
    default: {
        uint32_t k = ht_classes_find(b, s->ids[n]);
        return k != HT_NONE ? s->classes[k].mirror : b->class_base;
    }
    }
}

/* Class c's instance size in L laid out whole, from java.lang.Object down:
 * the way for a class whose superclass's layout state overflowed
 * (ht_layout_extend), which fields filling gaps as they come makes rare. */
static uint32_t instance_size_whole(ht_build *b, const ht_layout *L, uint32_t c)
{
    const ht_snapshot *s = b->s;
    size_t all = 0;
    for (uint32_t k = c; k != HT_NONE; k = s->classes[k].super)
        all += s->classes[k].nfields;
    uint32_t deepest = s->classes[c].depth + 2u;
    size_t tcap = all + 8 * (size_t)deepest + 2048; /* fields, injected, a block */
    uint8_t *types = malloc(tcap);
    const uint8_t **levels = malloc(deepest * sizeof *levels);
    uint32_t *counts = malloc(deepest * sizeof *counts);
    uint32_t size =
        types && levels && counts ? instance_size(b, L, c, types, tcap, levels, counts) : 0;
    free(types), free(levels), free(counts);
    return size;
}

/* Every class's layout state (superclasses first), its instance size from
 * it; for the state, a class whose size the heap showed is a block of that
 * size without gaps (see heap_evidence). */
typedef struct laying {
    ht_layout_fields *st;
    uint8_t *whole; /* 1: no state, laid out whole (and so its subclasses) */
    uint8_t *types; /* one level's fields, or one class's statics */
} laying;

static int laying_init(ht_build *b, laying *y)
{
    uint32_t nc = b->s->nclasses ? b->s->nclasses : 1;
    y->st = malloc(nc * sizeof *y->st);
    y->whole = calloc(nc, 1);
    y->types = malloc(65536 + 64);
    return y->st && y->whole && y->types ? 0 : -1;
}
static void laying_free(laying *y)
{
    free(y->st), free(y->whole), free(y->types);
}

/* Class c's instance size in L, its superclass's state already made. */
static uint32_t lay_class(ht_build *b, const ht_layout *L, laying *y, uint32_t c)
{
    const ht_snapshot *s = b->s;
    const ht_hprof *h = b->h;
    const ht_class *ck = &s->classes[c];
    uint32_t up = ck->super;
    if (up == HT_NONE || !y->whole[up]) {
        uint32_t n = 0;
        for (unsigned i = 0; i < ck->nfields; i++)
            y->types[n++] = h->data[ck->fields + 2 + i * (h->id_size + 1) + h->id_size];
        if (ck->obj != HT_NONE && b->inject && b->inject[c])
            for (const char *x = injected[b->inject[c] - 1].types; *x; x++)
                y->types[n++] = (uint8_t)*x;
        if (ht_layout_extend(L, up == HT_NONE ? NULL : &y->st[up], y->types, n, &y->st[c]) == 0)
            return ht_layout_fields_size(L, &y->st[c]);
    }
    y->whole[c] = 1;
    return instance_size_whole(b, L, c);
}

/* Class c shown by the heap to be g bytes: its subclasses follow a block. */
static void lay_block(const ht_layout *L, laying *y, uint32_t c, uint32_t g)
{
    y->st[c] = (ht_layout_fields){.tail = g > L->header ? g : L->header};
    y->whole[c] = 0;
}

/* Every class's instance and mirror sizes in L; the votes of the heap's
 * addresses for L. */
static int size_classes(ht_build *b, const ht_layout *L, uint64_t *votes)
{
    ht_snapshot *s = b->s;
    laying y;
    uint32_t *statics = malloc((s->nclasses ? s->nclasses : 1) * sizeof *statics);
    if (laying_init(b, &y) != 0 || !statics) {
        laying_free(&y), free(statics);
        return nomem(b);
    }
    for (uint32_t i = 0; i < s->nclasses; i++) {
        uint32_t c = s->by_depth[i];
        ht_class *k = &s->classes[c];
        k->inst_size = lay_class(b, L, &y, c);
        if (k->obj == HT_NONE && k->prim_type) k->inst_size = 0;
        statics[c] = k->obj == HT_NONE ? 0 : statics_size(b, L, c, y.types);
    }
    laying_free(&y);
    /* A java.lang.Class object's own size without statics: the smallest gap
     * after a class object, less its statics, and never below what the
     * declared fields need. */
    uint32_t base = s->class_class != HT_NONE ? s->classes[s->class_class].inst_size : 16;
    uint64_t best = UINT64_MAX;
    for (uint32_t n = 0; n + 1 < s->nobjects; n++) {
        if (s->kind[n] != HT_OBJ_CLASS) continue;
        uint64_t gap = s->ids[n + 1] - s->ids[n];
        uint32_t c = ht_classes_find(b, s->ids[n]);
        if (c == HT_NONE || gap <= statics[c]) continue;
        gap -= statics[c];
        if (gap >= base && gap < best && gap % 8 == 0) best = gap;
    }
    if (best != UINT64_MAX && best < 4096) base = (uint32_t)best;
    b->class_base = base;
    for (uint32_t c = 0; c < s->nclasses; c++)
        s->classes[c].mirror = s->classes[c].obj == HT_NONE ? 0 : base + statics[c];
    if (s->class_class != HT_NONE) s->classes[s->class_class].inst_size = base;
    free(statics);

    /* a quarter of a million objects spread over the heap decide as well as
     * all of them, for a tenth of the time on a big dump */
    uint64_t v = 0;
    uint32_t stride = s->nobjects / (1u << 18) + 1;
    if (votes)
        for (uint32_t n = 0; n + 1 < s->nobjects; n += stride)
            if (s->kind[n] != HT_OBJ_CLASS) v += s->ids[n + 1] - s->ids[n] == object_size(b, L, n);
    if (votes) *votes = v;
    s->layout_sampled = s->nobjects > 1 ? (s->nobjects - 2) / stride + 1 : 0;
    return HT_HPROF_OK;
}

/* 1 when class c is privileged as HotSpot's class file parser means it: defined
 * by the boot loader (no loader in its CLASS DUMP) or by the platform loader.
 * Only such classes have @Contended honoured (-XX:+RestrictContended, the
 * default) or fields injected by the VM; any other class is exactly what its
 * declared fields and its superclasses make it. */
static int privileged(const ht_build *b, uint32_t c)
{
    const ht_snapshot *s = b->s;
    const ht_hprof *h = b->h;
    const ht_class *k = &s->classes[c];
    if (k->obj == HT_NONE) return 1; /* a made-up primitive array class */
    uint64_t loader = ht_hprof_id(h, s->offs[k->obj] + 1 + 2 * (size_t)h->id_size + 4);
    if (!loader) return 1;
    if (k->loader == HT_NONE) return 0; /* a loader the dump does not hold: not the boot one */
    uint32_t lc = s->cls[k->loader];
    return s->kind[k->loader] == HT_OBJ_INSTANCE && lc != HT_NONE &&
           strcmp(s->classes[lc].name, "jdk.internal.loader.ClassLoaders$PlatformClassLoader") == 0;
}

/* Sizes the declared fields cannot give: HotSpot pads @Contended fields
 * (honoured in JDK classes only: Thread, the striped counters' cells) and
 * injects fields newer JDKs may add or drop, so a computed size can be short
 * or long. The distance from an object to the next is an upper bound of its
 * size, exact when the two are adjacent. A class whose instances show one
 * smallest distance twice or more, different from its computed size (and
 * less than 1 KiB more), takes that distance:
 *  - smaller than the computed size: always (objects do not overlap, so the
 *    heap proves the fields over-counted, e.g. a JDK that dropped an
 *    injected field);
 *  - larger: only for a privileged class (privileged()). A distance can be
 *    larger than the size for another reason: dead space after the object
 *    (a region HotSpot's full GC did not compact, where JDK 17 leaves the dead
 *    objects out of the dump), and objects allocated in a pattern put the same
 *    dead space after every instance of a class (Jython's
 *    JavaProxyList$ListMulProxyClass: 56 bytes twice, for 32). Only a
 *    privileged class can be bigger than its fields make it, so any other
 *    class keeps its computed size, whatever the distances say.
 * Its subclasses are then laid out after it as after a block of that size,
 * so a single instance of a subclass is right too (a user's subclass of
 * Thread is not privileged: its padding comes this way, from Thread's
 * instances). Classes go by depth, superclasses first. */
static int heap_evidence(ht_build *b, const ht_layout *L)
{
    ht_snapshot *s = b->s;
    uint32_t nc = s->nclasses;
    uint64_t *gap = malloc((nc ? nc : 1) * sizeof *gap);
    uint32_t *seen = calloc(nc ? nc : 1, sizeof *seen);
    b->heap_size = calloc(nc ? nc : 1, sizeof *b->heap_size);
    laying y;
    int rc = HT_HPROF_OK;
    if (laying_init(b, &y) != 0 || !gap || !seen || !b->heap_size) {
        rc = nomem(b);
        goto out;
    }
    for (uint32_t c = 0; c < nc; c++)
        gap[c] = UINT64_MAX;
    for (uint32_t n = 0; n + 1 < s->nobjects; n++) {
        if (s->kind[n] != HT_OBJ_INSTANCE) continue;
        uint32_t c = s->cls[n];
        uint64_t g = s->ids[n + 1] - s->ids[n];
        if (g < gap[c])
            gap[c] = g, seen[c] = 1;
        else if (g == gap[c])
            seen[c]++;
    }
    for (uint32_t i = 0; i < nc; i++) { /* by depth, superclasses first */
        uint32_t c = s->by_depth[i];
        ht_class *cl = &s->classes[c];
        uint32_t size = lay_class(b, L, &y, c);
        if (c == s->class_class || (cl->obj == HT_NONE && cl->prim_type)) continue;
        cl->inst_size = size;
        uint64_t g = gap[c];
        if (g == UINT64_MAX || g == cl->inst_size || seen[c] < 2 || g % 8 ||
            g >= (uint64_t)cl->inst_size + 1024 || (g > cl->inst_size && !privileged(b, c)))
            continue;
        b->heap_size[c] = (uint32_t)g;
        cl->inst_size = (uint32_t)g;
        lay_block(L, &y, c, (uint32_t)g);
        s->sizes_from_heap++;
    }
out:
    laying_free(&y);
    free(gap), free(seen);
    return rc;
}

int ht_classes_size(ht_build *b)
{
    ht_snapshot *s = b->s;
    int rc;
    if ((rc = mark_injected(b))) return rc;
    if (b->o && b->o->layout) {
        s->layout = b->o->layout;
        if ((rc = size_classes(b, s->layout, &s->layout_votes))) return rc;
    } else {
        static const ht_layout *const candidates[] = {&HT_LAYOUT_COMPRESSED, &HT_LAYOUT_COMPACT,
                                                      &HT_LAYOUT_UNCOMPRESSED};
        const ht_layout *best = candidates[0];
        uint64_t best_votes = 0;
        for (unsigned i = 0; i < sizeof candidates / sizeof *candidates; i++) {
            ht_build_progress(b, "sizing", i, 3);
            uint64_t votes;
            if ((rc = size_classes(b, candidates[i], &votes))) return rc;
            if (votes > best_votes) best = candidates[i], best_votes = votes;
        }
        s->layout = best;
        s->layout_inferred = 1;
        s->layout_votes = best_votes;
        if ((rc = size_classes(b, best, NULL))) return rc;
    }
    if ((rc = heap_evidence(b, s->layout))) return rc;
    s->size8 = ht_heap_array((size_t)s->nobjects * sizeof *s->size8, 0);
    if (!s->size8) return nomem(b);
    for (uint32_t n = 0; n < s->nobjects; n++) {
        uint64_t sz = object_size(b, s->layout, n);
        ht_class *c = s->kind[n] == HT_OBJ_CLASS
                          ? (s->class_class != HT_NONE ? &s->classes[s->class_class] : NULL)
                          : &s->classes[s->cls[n]];
        s->size8[n] = (uint32_t)((sz + 7) / 8);
        s->total_bytes += sz;
        if (c) {
            c->instances++;
            c->shallow += sz;
        }
    }
    return HT_HPROF_OK;
}
