/*
 * refs.c - the snapshot's references (see snapshot.h): decoded from the
 * mapped file, resolved to object numbers, kept as compressed adjacency
 * arrays both ways, and named again on demand.
 */
#include "snapshot_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nomem(ht_build *b)
{
    return ht_hprof_error(b->h, HT_HPROF_ERR_NOMEM, "out of memory");
}

static uint64_t class_obj_id(const ht_snapshot *s, uint32_t c)
{
    return c != HT_NONE && s->classes[c].obj != HT_NONE ? s->ids[s->classes[c].obj] : 0;
}

int ht_refs_each(const ht_snapshot *s, uint32_t n, ht_ref_fn f, void *ctx)
{
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    size_t off = s->offs[n];
    const uint8_t *d = h->data;
    int rc;
    switch (s->kind[n]) {
    case HT_OBJ_INSTANCE: {
        if ((rc = f(ctx, class_obj_id(s, s->cls[n]), 0))) return rc;
        size_t data = off + 1 + 2 * id + 8;
        uint32_t c = s->cls[n];
        uint32_t k = 1, pos;
        ht_refpos_it it;
        for (ht_refpos_begin(&it, s, c); ht_refpos_next(&it, &pos); k++)
            if ((rc = f(ctx, ht_hprof_id(h, data + pos), k))) return rc;
        uint64_t v;
        if (ht_map_count(&s->loaders) && ht_map_get(&s->loaders, n, &v)) /* a class loader */
            for (uint32_t i = 0; i < (uint32_t)v; i++, k++)
                if ((rc = f(ctx, s->ids[s->defined[(v >> 32) - 1 + i]], k))) return rc;
        return 0;
    }
    case HT_OBJ_OBJ_ARRAY: {
        if ((rc = f(ctx, class_obj_id(s, s->cls[n]), 0))) return rc;
        uint32_t len = ht_be32(d + off + 1 + id + 4);
        size_t e = off + 1 + 2 * id + 8;
        for (uint32_t i = 0; i < len; i++)
            if ((rc = f(ctx, ht_hprof_id(h, e + (size_t)i * id), i + 1))) return rc;
        return 0;
    }
    case HT_OBJ_PRIM_ARRAY:
        return f(ctx, class_obj_id(s, s->cls[n]), 0);
    default: {
        /* super, loader, signers, protection domain */
        for (unsigned i = 0; i < 4; i++)
            if ((rc = f(ctx, ht_hprof_id(h, off + 1 + id + 4 + (size_t)i * id), i))) return rc;
        uint32_t k = 4;
        size_t p = off + 1 + 7 * (size_t)id + 8;
        for (int part = 0; part < 2; part++) { /* constant pool, statics */
            unsigned count = ht_be16(d + p);
            p += 2;
            for (unsigned i = 0; i < count; i++) {
                unsigned head = part == 0 ? 3 : id + 1;
                unsigned t = d[p + head - 1];
                if (t == 2 && (rc = f(ctx, ht_hprof_id(h, p + head), k++))) return rc;
                p += head + ht_hprof_type_size(h, t);
            }
        }
        return 0;
    }
    }
}

uint32_t ht_snapshot_static_refs(const ht_snapshot *s, uint32_t n)
{
    if (n >= s->nobjects || s->kind[n] != HT_OBJ_CLASS) return 0;
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    size_t p = s->offs[n] + 1 + 7 * (size_t)id + 8;
    uint32_t got = 0;
    for (int part = 0; part < 2; part++) { /* constant pool, statics: as ht_refs_each reads them */
        unsigned count = ht_be16(h->data + p);
        p += 2;
        for (unsigned i = 0; i < count; i++) {
            unsigned head = part == 0 ? 3 : id + 1;
            unsigned t = h->data[p + head - 1];
            if (t == 2 && part == 1) {
                uint64_t v = ht_hprof_id(h, p + head);
                got += v != 0 && ht_snapshot_find(s, v) != HT_NONE; /* what add_ref keeps */
            }
            p += head + ht_hprof_type_size(h, t);
        }
    }
    return got;
}

/* ---- building ---- */

typedef struct collect {
    ht_snapshot *s;
    ht_build *b;
    uint64_t cur, cap;
} collect;

static int add_ref(void *ctx, uint64_t id, uint32_t k)
{
    collect *c = ctx;
    (void)k;
    if (id == 0) return 0;
    ht_snapshot *s = c->s;
    uint32_t m = ht_snapshot_find(s, id);
    if (m == HT_NONE) {
        s->dangling += !ht_sampled_hidden(s, id); /* a reference to the marker is none */
        return 0;
    }
    if (c->cur == c->cap) {
        uint64_t cap = c->cap * 2;
        if (cap > UINT32_MAX) cap = UINT32_MAX;
        if (c->cur == cap)
            return ht_hprof_error(c->b->h, HT_HPROF_ERR_FORMAT,
                                  "more than 2^32 references in the dump: too many for heaptop");
        void *p = realloc(s->out, cap * sizeof *s->out);
        if (!p) return nomem(c->b);
        s->out = p;
        c->cap = cap;
    }
    s->out[c->cur++] = m;
    return 0;
}

int ht_refs_build(ht_build *b)
{
    ht_snapshot *s = b->s;
    uint32_t n = s->nobjects;
    uint64_t cap = (uint64_t)n * 3 + 1024;
    collect c = {.s = s, .b = b, .cap = cap > UINT32_MAX ? UINT32_MAX : cap};
    s->out_start = ht_heap_array(((size_t)n + 1) * sizeof *s->out_start, 0);
    s->out = ht_heap_array(c.cap * sizeof *s->out, 0);
    if (!s->out_start || !s->out) return nomem(b);
    int rc;
    for (uint32_t i = 0; i < n; i++) {
        s->out_start[i] = (uint32_t)c.cur;
        if ((rc = ht_refs_each(s, i, add_ref, &c))) return rc;
        if ((i & 0xfffff) == 0) {
            ht_build_progress(b, "references", i, n);
            if (ht_build_cancelled(b)) return HT_HPROF_ERR_CANCELLED;
        }
    }
    s->out_start[n] = (uint32_t)c.cur;
    s->nrefs = c.cur;
    void *p = realloc(s->out, (c.cur ? c.cur : 1) * sizeof *s->out);
    if (p) s->out = p;

    /* incoming: counted, then placed */
    ht_build_progress(b, "incoming references", 0, n);
    s->in_start = ht_heap_array(((size_t)n + 1) * sizeof *s->in_start, 1);
    s->in = ht_heap_array(c.cur * sizeof *s->in, 0);
    if (!s->in_start || !s->in) return nomem(b);
    for (uint64_t e = 0; e < c.cur; e++)
        s->in_start[s->out[e] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        s->in_start[i + 1] += s->in_start[i];
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t e = s->out_start[i]; e < s->out_start[i + 1]; e++)
            s->in[s->in_start[s->out[e]]++] = i;
    for (uint32_t i = n; i > 0; i--) /* each start moved to the next one's: move back */
        s->in_start[i] = s->in_start[i - 1];
    s->in_start[0] = 0;
    return HT_HPROF_OK;
}

/* ---- names ---- */

typedef struct nth {
    const ht_snapshot *s;
    uint32_t want, seen, slot;
} nth;

static int find_nth(void *ctx, uint64_t id, uint32_t k)
{
    nth *t = ctx;
    if (id == 0 || ht_snapshot_find(t->s, id) == HT_NONE) return 0;
    if (t->seen++ == t->want) {
        t->slot = k;
        return 1;
    }
    return 0;
}

/* The name of a field: "name" from its UTF8 id, or "?" when missing. */
static void field_name(const ht_snapshot *s, uint64_t name_id, const char *prefix, char *buf,
                       size_t cap)
{
    size_t len;
    const char *p = ht_snapshot_utf8(s, name_id, &len);
    if (!p) p = "?", len = 1;
    snprintf(buf, cap, "%s%.*s", prefix, (int)(len > 200 ? 200 : len), p);
}

void ht_snapshot_ref_name(const ht_snapshot *s, uint32_t n, uint32_t k, char *buf, size_t cap)
{
    nth t = {.s = s, .want = k};
    snprintf(buf, cap, "?");
    if (ht_refs_each(s, n, find_nth, &t) != 1) return;
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    if (s->kind[n] == HT_OBJ_CLASS) {
        static const char *const fixed[4] = {"<super>", "<loader>", "<signers>",
                                             "<protection domain>"};
        if (t.slot < 4) {
            snprintf(buf, cap, "%s", fixed[t.slot]);
            return;
        }
        /* constant pool entries, then statics, counted as ht_refs_each does */
        uint32_t k2 = 4;
        size_t p = s->offs[n] + 1 + 7 * (size_t)id + 8;
        for (int part = 0; part < 2; part++) {
            unsigned count = ht_be16(h->data + p);
            p += 2;
            for (unsigned i = 0; i < count; i++) {
                unsigned head = part == 0 ? 3 : id + 1;
                unsigned ty = h->data[p + head - 1];
                if (ty == 2 && k2++ == t.slot) {
                    if (part == 0)
                        snprintf(buf, cap, "<constant pool %u>", ht_be16(h->data + p));
                    else
                        field_name(s, ht_hprof_id(h, p), "static ", buf, cap);
                    return;
                }
                p += head + ht_hprof_type_size(h, ty);
            }
        }
        return;
    }
    if (t.slot == 0) {
        snprintf(buf, cap, "<class>");
        return;
    }
    if (s->kind[n] == HT_OBJ_OBJ_ARRAY) {
        snprintf(buf, cap, "[%u]", t.slot - 1);
        return;
    }
    /* the (slot-1)-th reference field, in dump order: own fields, then
     * super's; after them, a loader's classes */
    uint32_t want = t.slot - 1, seen = 0;
    uint32_t c0 = s->cls[n];
    if (want >= s->classes[c0].nrefs) {
        snprintf(buf, cap, "<defined class>");
        return;
    }
    for (uint32_t c = s->cls[n]; c != HT_NONE; c = s->classes[c].super) {
        const ht_class *ck = &s->classes[c];
        for (unsigned i = 0; i < ck->nfields; i++) {
            size_t f = ck->fields + 2 + (size_t)i * (id + 1);
            if (h->data[f + id] != 2) continue;
            if (seen++ == want) {
                field_name(s, ht_hprof_id(h, f), "", buf, cap);
                return;
            }
        }
    }
}

uint32_t ht_ref_index(const ht_snapshot *s, uint32_t n, uint32_t m)
{
    for (uint32_t e = s->out_start[n]; e < s->out_start[n + 1]; e++)
        if (s->out[e] == m) return e - s->out_start[n];
    return HT_NONE;
}
