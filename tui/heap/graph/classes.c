/*
 * classes.c - the snapshot's class table (see snapshot.h): every CLASS DUMP
 * read into s->classes (name in Java's spelling, superclass, loader,
 * declared instance fields), the primitive array classes found or made up,
 * each object's class (s->cls), each class's depth, field bytes and
 * reference offsets (s->refpos), the classes in depth order (s->by_depth),
 * and each loader's classes (s->defined). Sizes are class_sizes.c's.
 *
 * Owns: the arrays it fills in the snapshot, the class id -> index map
 * (b->class_of), b->prim_class; scratch arrays per class live for one call.
 *
 * Threads: none of its own; runs on the thread that builds the snapshot (the
 * viewer's job thread), called once by snapshot.c after the walk.
 *
 * Must never: trust the file beyond the extents the first pass checked. A
 * class that is its own superclass, a chain deeper than HT_MAX_CLASS_DEPTH,
 * fields that add up past 4 GiB and an instance whose field data is not what
 * its class declares end the build with a message; a class an object names
 * and the dump lacks becomes "<unknown class 0x...>". No recursion over
 * superclasses: each class is made once from its superclass's figures.
 */
#include "snapshot_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nomem(ht_build *b)
{
    return ht_hprof_error(b->h, HT_HPROF_ERR_NOMEM, "out of memory");
}

uint32_t ht_classes_find(const ht_build *b, uint64_t class_id)
{
    uint64_t i;
    return ht_map_get(&b->class_of, class_id, &i) ? (uint32_t)i : HT_NONE;
}

static int add_class(ht_build *b, uint64_t class_id, uint32_t obj, char *name)
{
    ht_snapshot *s = b->s;
    if (!name) return nomem(b);
    if (s->nclasses == b->class_cap) {
        uint32_t cap = b->class_cap ? b->class_cap * 2 : 256;
        void *p = realloc(s->classes, cap * sizeof *s->classes);
        if (!p) {
            free(name);
            return nomem(b);
        }
        s->classes = p;
        b->class_cap = cap;
    }
    if (obj != HT_NONE && ht_map_put(&b->class_of, class_id, s->nclasses) != 0) {
        free(name);
        return nomem(b);
    }
    s->classes[s->nclasses++] = (ht_class){
        .obj = obj, .super = HT_NONE, .loader = HT_NONE, .name = name, .inst_size = 0, .mirror = 0};
    return HT_HPROF_OK;
}

/* The class index for a class id an object names; a class the dump lacks
 * becomes an "<unknown class 0x...>" with no fields. */
static int class_for(ht_build *b, uint64_t class_id, uint32_t *out)
{
    uint64_t i;
    if (ht_map_get(&b->class_of, class_id, &i)) {
        *out = (uint32_t)i;
        return HT_HPROF_OK;
    }
    char tmp[48];
    snprintf(tmp, sizeof tmp, "<unknown class 0x%llx>", (unsigned long long)class_id);
    int rc = add_class(b, class_id, HT_NONE, strdup(tmp));
    if (rc) return rc;
    if (ht_map_put(&b->class_of, class_id, b->s->nclasses - 1) != 0) return nomem(b);
    *out = b->s->nclasses - 1;
    return HT_HPROF_OK;
}

/* Offset of the u2 count of a CLASS DUMP's part (0 pool, 1 statics, 2
 * instance fields); the first pass has checked the extents. */
size_t ht_class_dump_part(const ht_hprof *h, size_t off, int part)
{
    unsigned id = h->id_size;
    size_t p = off + 1 + 7 * (size_t)id + 8;
    for (int k = 0; k < part; k++) {
        unsigned count = ht_be16(h->data + p);
        p += 2;
        for (unsigned i = 0; i < count; i++) {
            unsigned head = k == 0 ? 3 : id + 1;
            unsigned t = h->data[p + head - 1];
            p += head + ht_hprof_type_size(h, t);
        }
    }
    return p;
}

static char *name_of(ht_build *b, uint64_t class_id)
{
    uint64_t name_id, body;
    if (ht_map_get(&b->load, class_id, &name_id) && ht_map_get(&b->s->utf8, name_id, &body))
        return ht_hprof_class_name(b->h, body);
    char tmp[48];
    snprintf(tmp, sizeof tmp, "<unknown class 0x%llx>", (unsigned long long)class_id);
    return strdup(tmp);
}

/* Per class: its depth, the size of its instances' field data, the
 * references it declares and where in its own fields' data they are, the
 * nearest superclass declaring any, and the order of the classes by depth.
 * Each class from its superclass's figures, once: O(classes + fields). */
static int class_shapes(ht_build *b)
{
    ht_snapshot *s = b->s;
    const ht_hprof *h = b->h;
    uint32_t nc = s->nclasses;
    uint64_t total = 0;
    uint8_t *state = calloc(nc ? nc : 1, 1); /* 0 new, 1 on the walk, 2 done */
    uint32_t *path = malloc((HT_MAX_CLASS_DEPTH + 2) * sizeof *path);
    uint32_t *own = malloc((nc ? nc : 1) * sizeof *own); /* own data bytes */
    s->refpos_start = malloc(((size_t)nc + 1) * sizeof *s->refpos_start);
    s->by_depth = malloc((nc ? nc : 1) * sizeof *s->by_depth);
    uint32_t *at = calloc((size_t)HT_MAX_CLASS_DEPTH + 2, sizeof *at);
    int rc = HT_HPROF_OK;
    if (!state || !path || !own || !s->refpos_start || !s->by_depth || !at) {
        rc = nomem(b);
        goto out;
    }
    for (uint32_t c = 0; c < nc; c++) {
        const ht_class *ck = &s->classes[c];
        uint32_t data = 0, refs = 0;
        for (unsigned i = 0; i < ck->nfields; i++) {
            unsigned t = h->data[ck->fields + 2 + i * (h->id_size + 1) + h->id_size];
            data += ht_hprof_type_size(h, t);
            refs += t == 2;
        }
        own[c] = data; /* 65535 fields of 8 bytes at most */
        s->refpos_start[c] = refs;
        total += refs;
    }
    for (uint32_t c = 0; c < nc; c++) {
        /* up to a class already done (or the top), then down the path */
        uint32_t n = 0, k = c;
        while (k != HT_NONE && state[k] != 2) {
            if (state[k] == 1)
                rc = ht_hprof_error(b->h, HT_HPROF_ERR_FORMAT,
                                    "corrupt dump: class %s is its own superclass",
                                    s->classes[c].name);
            else if (n > HT_MAX_CLASS_DEPTH)
                rc = ht_hprof_error(b->h, HT_HPROF_ERR_FORMAT,
                                    "corrupt dump: class %s has more than %d superclasses",
                                    s->classes[c].name, HT_MAX_CLASS_DEPTH);
            if (rc) goto out;
            state[k] = 1;
            path[n++] = k;
            k = s->classes[k].super;
        }
        while (n--) {
            ht_class *ck = &s->classes[path[n]], *up = k == HT_NONE ? NULL : &s->classes[k];
            uint64_t depth = up ? up->depth + 1u : 0;
            uint64_t data = own[path[n]] + (up ? (uint64_t)up->data_size : 0);
            if (depth > HT_MAX_CLASS_DEPTH) {
                rc = ht_hprof_error(b->h, HT_HPROF_ERR_FORMAT,
                                    "corrupt dump: class %s has more than %d superclasses",
                                    s->classes[c].name, HT_MAX_CLASS_DEPTH);
                goto out;
            }
            if (data > UINT32_MAX) {
                rc = ht_hprof_error(b->h, HT_HPROF_ERR_FORMAT,
                                    "corrupt dump: class %s declares %llu bytes of fields",
                                    ck->name, (unsigned long long)data);
                goto out;
            }
            ck->depth = (uint16_t)depth;
            ck->data_size = (uint32_t)data;
            ck->nrefs = s->refpos_start[path[n]] + (up ? up->nrefs : 0);
            ck->ref_up = !up ? HT_NONE : s->refpos_start[k] ? k : up->ref_up;
            state[path[n]] = 2;
            k = path[n];
        }
    }
    /* superclasses first: a counting sort by depth */
    for (uint32_t c = 0; c < nc; c++)
        at[s->classes[c].depth + 1]++;
    for (uint32_t d = 0; d <= HT_MAX_CLASS_DEPTH; d++)
        at[d + 1] += at[d];
    for (uint32_t c = 0; c < nc; c++)
        s->by_depth[at[s->classes[c].depth]++] = c;
    /* each class's own references, where they are in its own fields' data */
    s->refpos = malloc((total ? total : 1) * sizeof *s->refpos);
    if (!s->refpos) {
        rc = nomem(b);
        goto out;
    }
    uint32_t put = 0;
    for (uint32_t c = 0; c < nc; c++) {
        const ht_class *ck = &s->classes[c];
        s->refpos_start[c] = put;
        uint32_t pos = 0;
        for (unsigned i = 0; i < ck->nfields; i++) {
            unsigned t = h->data[ck->fields + 2 + i * (h->id_size + 1) + h->id_size];
            if (t == 2) s->refpos[put++] = pos;
            pos += ht_hprof_type_size(h, t);
        }
    }
    s->refpos_start[nc] = put;
out:
    free(state), free(path), free(own), free(at);
    return rc;
}

static int class_loaders(ht_build *b)
{
    ht_snapshot *s = b->s;
    /* each loader's classes, for the loader -> class references */
    s->defined = malloc((s->nclasses ? s->nclasses : 1) * sizeof *s->defined);
    if (!s->defined) return nomem(b);
    uint32_t nd = 0;
    for (uint32_t c = 0; c < s->nclasses; c++)
        if (s->classes[c].obj != HT_NONE && s->classes[c].loader != HT_NONE) {
            uint64_t v = 0;
            ht_map_get(&s->loaders, s->classes[c].loader, &v);
            if (ht_map_put(&s->loaders, s->classes[c].loader, v + 1) != 0) return nomem(b);
            nd++;
        }
    /* counts -> starts (start << 32 | count), then place */
    uint32_t start = 0;
    for (uint32_t c = 0; c < s->nclasses; c++) {
        uint32_t l = s->classes[c].loader;
        uint64_t v;
        if (s->classes[c].obj == HT_NONE || l == HT_NONE || !ht_map_get(&s->loaders, l, &v) ||
            v >> 32)
            continue;
        ht_map_put(&s->loaders, l, (uint64_t)(start + 1) << 32 | (uint32_t)v); /* +1: 0 = unset */
        start += (uint32_t)v;
    }
    uint32_t *fill = calloc(s->nclasses ? s->nclasses : 1, sizeof *fill);
    if (!fill) return nomem(b);
    for (uint32_t c = 0; c < s->nclasses; c++) {
        uint32_t l = s->classes[c].loader;
        uint64_t v;
        if (s->classes[c].obj == HT_NONE || l == HT_NONE || !ht_map_get(&s->loaders, l, &v))
            continue;
        uint32_t first = (uint32_t)(v >> 32) - 1;
        /* fill[] counts per loader's first slot */
        s->defined[first + fill[first]++] = s->classes[c].obj;
    }
    free(fill);
    (void)nd;
    return HT_HPROF_OK;
}

int ht_classes_read(ht_build *b)
{
    ht_snapshot *s = b->s;
    const ht_hprof *h = b->h;
    unsigned id = h->id_size;
    ht_build_progress(b, "classes", 0, s->nobjects);
    int rc;
    for (uint32_t n = 0; n < s->nobjects; n++) {
        if (s->kind[n] != HT_OBJ_CLASS) continue;
        if ((rc = add_class(b, s->ids[n], n, name_of(b, s->ids[n])))) return rc;
        ht_class *c = &s->classes[s->nclasses - 1];
        c->fields = ht_class_dump_part(h, s->offs[n], 2);
        c->nfields = ht_be16(h->data + c->fields);
    }
    uint32_t dumped = s->nclasses;
    for (uint32_t c = 0; c < dumped; c++) {
        size_t off = s->offs[s->classes[c].obj];
        uint64_t super = ht_hprof_id(h, off + 1 + id + 4);
        uint64_t loader = ht_hprof_id(h, off + 1 + 2 * id + 4);
        s->classes[c].super = super ? ht_classes_find(b, super) : HT_NONE;
        s->classes[c].loader = loader ? ht_snapshot_find(s, loader) : HT_NONE;
        if (s->class_class == HT_NONE && s->classes[c].loader == HT_NONE &&
            strcmp(s->classes[c].name, "java.lang.Class") == 0)
            s->class_class = c;
    }
    for (unsigned t = 0; t < 12; t++)
        b->prim_class[t] = HT_NONE;
    for (uint32_t c = 0; c < dumped; c++)
        for (unsigned t = 4; t < 12; t++)
            if (b->prim_class[t] == HT_NONE &&
                strcmp(s->classes[c].name, ht_hprof_prim_array_name(t)) == 0)
                b->prim_class[t] = c;
    for (unsigned t = 4; t < 12; t++)
        if (b->prim_class[t] == HT_NONE) {
            if ((rc = add_class(b, 0, HT_NONE, strdup(ht_hprof_prim_array_name(t))))) return rc;
            b->prim_class[t] = s->nclasses - 1;
        }
    for (unsigned t = 4; t < 12; t++)
        s->classes[b->prim_class[t]].prim_type = (uint8_t)t;

    s->cls = ht_heap_array((size_t)s->nobjects * sizeof *s->cls, 0);
    if (!s->cls) return nomem(b);
    for (uint32_t n = 0; n < s->nobjects; n++) {
        size_t off = s->offs[n];
        uint32_t c = HT_NONE;
        switch (s->kind[n]) {
        case HT_OBJ_INSTANCE:
            rc = class_for(b, ht_hprof_id(h, off + 1 + id + 4), &c);
            break;
        case HT_OBJ_OBJ_ARRAY:
            rc = class_for(b, ht_hprof_id(h, off + 1 + id + 8), &c);
            break;
        case HT_OBJ_PRIM_ARRAY:
            c = b->prim_class[h->data[off + 1 + id + 8]]; /* 4..11, checked by the walk */
            rc = 0;
            break;
        default:
            c = s->class_class;
            rc = 0;
        }
        if (rc) return rc;
        s->cls[n] = c;
    }
    if ((rc = class_shapes(b)) || (rc = class_loaders(b))) return rc;
    /* an instance's field data must be what its class declares */
    for (uint32_t n = 0; n < s->nobjects; n++) {
        if (s->kind[n] != HT_OBJ_INSTANCE) continue;
        size_t off = s->offs[n];
        uint32_t len = ht_be32(h->data + off + 1 + 2 * id + 4);
        const ht_class *c = &s->classes[s->cls[n]];
        if (len != c->data_size && c->obj != HT_NONE)
            return ht_hprof_error(b->h, HT_HPROF_ERR_FORMAT,
                                  "corrupt INSTANCE DUMP at offset %zu: %u bytes of fields, its "
                                  "class %s declares %u",
                                  off, len, c->name, c->data_size);
    }
    return HT_HPROF_OK;
}
