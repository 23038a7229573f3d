/*
 * behaviour_snapshot.c - the behaviour analysis (behaviour.h) over a heap
 * snapshot: the snapshot's Java-level references given to
 * ht_behaviour_build_input as runs of its own out[] array, copied nowhere.
 *
 * Owns: for the length of one build, two arrays by class (how many of a
 * class object's references are its statics; whether any instance of the
 * class defines classes, i.e. is a loader) and the roots and "via class
 * metadata" objects as object numbers: bytes per class and per root, none
 * per object.
 *
 * What a run is (snapshot.h and refs.c lay out out[]):
 *  - an instance: its class edge first (when its class object is in the
 *    dump), then its reference fields in dump order, then, for a class
 *    loader, every class it defined (class objects of the dump, so all of
 *    them: cut from the end in constant time): the run is the fields alone;
 *  - an object array: the class edge, then its elements: the elements;
 *  - a primitive array: its class edge only: empty;
 *  - a class object: super, loader, signers, protection domain and the
 *    constant pool's references, then its statics' values LAST: the statics
 *    alone (ht_snapshot_static_refs counts them, once per class).
 * Null and dangling ids are not in out[], so each count is of what is there.
 *
 * Roots via class metadata (the design note's D1b) are offered in the order
 * behaviour.h asks: the class objects, then each loader once, then whatever
 * else the dominator tree reaches (reachable(): the tree's idom), which only
 * modelling edges led to (a constant pool's object). Only objects the tree
 * reaches are offered: the classes of a loader nothing holds are garbage.
 *
 * Threads: the caller's (the snapshot's job). Must never: read out[] outside
 * the object's own run, whatever a crafted dump holds.
 */
#include "behaviour.h"

#include <stdlib.h>

typedef struct snap_in {
    const ht_snapshot *s;
    const ht_dominators *d; /* reachable: the tree holds the object */
    uint32_t *statics;      /* by class: its class object's static references in out[] */
    uint8_t *loader_of;     /* by class: 1 when an instance of it defined classes */
} snap_in;

static uint64_t snap_size(const void *ctx, uint32_t n)
{
    return ht_snapshot_shallow(((const snap_in *)ctx)->s, n);
}

static const char *snap_class_name(const void *ctx, uint32_t c)
{
    const ht_snapshot *s = ((const snap_in *)ctx)->s;
    return c < s->nclasses ? s->classes[c].name : "?";
}

static int snap_reachable(const void *ctx, uint32_t n)
{
    const ht_dominators *d = ((const snap_in *)ctx)->d;
    return n < d->n && d->idom[n] != HT_NONE;
}

static const uint32_t *snap_refs(const void *ctx, uint32_t n, uint32_t *count)
{
    const snap_in *x = ctx;
    const ht_snapshot *s = x->s;
    uint32_t a = s->out_start[n], e = s->out_start[n + 1];
    uint32_t c = s->cls[n];
    switch (s->kind[n]) {
    case HT_OBJ_PRIM_ARRAY:
        a = e;
        break;
    case HT_OBJ_CLASS: {
        uint32_t k = ht_snapshot_class_index(s, n);
        uint32_t st = k == HT_NONE ? 0 : x->statics[k];
        a = st < e - a ? e - st : a;
        break;
    }
    default: /* an instance or an object array */
        if (c == HT_NONE) break;
        if (a < e && s->classes[c].obj != HT_NONE && s->out[a] == s->classes[c].obj) a++;
        uint64_t v;
        if (s->kind[n] == HT_OBJ_INSTANCE && x->loader_of[c] && ht_map_get(&s->loaders, n, &v)) {
            /* its defined classes, the run's last (uint32_t)v entries: each
             * is a class object of the dump, so refs.c put every one in
             * out[]; cut in constant time, never past the run's start */
            uint32_t defined = (uint32_t)v;
            e -= defined < e - a ? defined : e - a;
        }
        break;
    }
    *count = e - a;
    return s->out + a;
}

int ht_behaviour_build(ht_behaviour *b, const ht_snapshot *s, const ht_dominators *d,
                       const ht_bhv_opts *o, const ht_snapshot_opts *p)
{
    uint32_t nc = s->nclasses ? s->nclasses : 1;
    snap_in r = {.s = s, .d = d}, *x = &r;
    x->statics = calloc(nc, sizeof *x->statics);
    x->loader_of = calloc(nc, 1);
    uint32_t *roots = malloc((s->nroots ? s->nroots : 1) * sizeof *roots);
    /* class objects, then each loader once (at its first defined class) */
    uint32_t *meta = malloc(2 * (size_t)nc * sizeof *meta);
    if (!x->statics || !x->loader_of || !roots || !meta) {
        free(x->statics), free(x->loader_of), free(roots), free(meta);
        return ht_hprof_error(s->h, HT_HPROF_ERR_NOMEM, "out of memory");
    }
    uint32_t nroots = 0, nmeta = 0;
    for (uint32_t i = 0; i < s->nroots; i++)
        if (s->roots[i].obj < s->nobjects) roots[nroots++] = s->roots[i].obj;
    /* only what the dominator tree reaches: a class of an unreachable
     * loader is garbage, not a root via class metadata */
    for (uint32_t c = 0; c < s->nclasses; c++) {
        uint32_t obj = s->classes[c].obj;
        if (obj == HT_NONE) continue;
        x->statics[c] = ht_snapshot_static_refs(s, obj);
        if (!d || snap_reachable(x, obj)) meta[nmeta++] = obj;
    }
    for (uint32_t c = 0; c < s->nclasses; c++) {
        uint32_t obj = s->classes[c].obj, l = s->classes[c].loader;
        uint64_t v;
        if (obj == HT_NONE || l >= s->nobjects || !ht_map_get(&s->loaders, l, &v)) continue;
        if (s->cls[l] < s->nclasses) x->loader_of[s->cls[l]] = 1;
        if (s->defined[(uint32_t)(v >> 32) - 1] == obj && (!d || snap_reachable(x, l)))
            meta[nmeta++] = l;
    }
    ht_bhv_input in = {
        .nobjects = s->nobjects,
        .nclasses = s->nclasses,
        .cls = s->cls,
        .ctx = &r,
        .size = snap_size,
        .refs = snap_refs,
        .class_name = snap_class_name,
        .roots = roots,
        .nroots = nroots,
        .meta = meta,
        .nmeta = nmeta,
        .reachable = d ? snap_reachable : NULL,
        .dom = d,
    };
    int rc = ht_behaviour_build_input(b, &in, o, p, s->h);
    free(x->statics), free(x->loader_of), free(roots), free(meta);
    return rc;
}
