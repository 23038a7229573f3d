/*
 * paths.c - see paths.h.
 */
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The class index of java.lang.ref.Reference, HT_NONE if absent. */
static uint32_t reference_class(const ht_snapshot *s)
{
    for (uint32_t c = 0; c < s->nclasses; c++)
        if (s->classes[c].loader == HT_NONE &&
            strcmp(s->classes[c].name, "java.lang.ref.Reference") == 0)
            return c;
    return HT_NONE;
}

/* For each class: the byte offset in its instance data of the referent it
 * inherits from java.lang.ref.Reference, or HT_NONE. Each class's from its
 * superclass's (superclasses first): O(classes), however deep. */
static uint32_t *referent_offsets(const ht_snapshot *s)
{
    uint32_t ref = reference_class(s);
    uint32_t *at = malloc((s->nclasses ? s->nclasses : 1) * sizeof *at);
    if (!at) return NULL;
    const ht_hprof *h = s->h;
    uint32_t own = HT_NONE; /* in Reference's own fields, which its instances' data starts with */
    if (ref != HT_NONE) {
        const ht_class *ck = &s->classes[ref];
        uint32_t pos = 0;
        for (unsigned i = 0; i < ck->nfields; i++) {
            size_t f = ck->fields + 2 + (size_t)i * (h->id_size + 1);
            unsigned t = h->data[f + h->id_size];
            size_t len;
            const char *name = ht_snapshot_utf8(s, ht_hprof_id(h, f), &len);
            if (t == 2 && name && len == 8 && memcmp(name, "referent", 8) == 0) own = pos;
            pos += ht_hprof_type_size(h, t);
        }
    }
    for (uint32_t i = 0; i < s->nclasses; i++) {
        uint32_t c = s->by_depth[i], up = s->classes[c].super;
        if (c == ref)
            at[c] = own;
        else if (up != HT_NONE && at[up] != HT_NONE)
            at[c] = at[up] + (s->classes[c].data_size - s->classes[up].data_size);
        else
            at[c] = HT_NONE;
    }
    return at;
}

int ht_paths_build(ht_paths *p, const ht_snapshot *s, int weak)
{
    memset(p, 0, sizeof *p);
    uint32_t n = s->nobjects;
    p->n = n;
    p->weak = weak;
    p->prev = ht_heap_array((size_t)n * sizeof *p->prev, 0);
    ht_map_init(&p->root);
    uint32_t *queue = ht_heap_array((size_t)n * sizeof *queue, 0);
    uint32_t *referent = weak ? NULL : referent_offsets(s);
    if (!p->prev || !queue || (!weak && !referent)) {
        free(queue), free(referent);
        ht_paths_free(p);
        return ht_hprof_error(s->h, HT_HPROF_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        p->prev[i] = HT_NONE;
    uint32_t head = 0, tail = 0;
    for (uint32_t r = 0; r < s->nroots; r++) {
        uint32_t o = s->roots[r].obj;
        if (p->prev[o] == HT_NONE) {
            if (ht_map_put(&p->root, o, r) != 0) {
                free(queue), free(referent);
                ht_paths_free(p);
                return ht_hprof_error(s->h, HT_HPROF_ERR_NOMEM, "out of memory");
            }
            p->prev[o] = HT_ROOT;
            queue[tail++] = o;
        }
    }
    const ht_hprof *h = s->h;
    while (head < tail) {
        uint32_t v = queue[head++];
        uint32_t skip = HT_NONE; /* the referent, left out once */
        if (referent && s->kind[v] == HT_OBJ_INSTANCE && referent[s->cls[v]] != HT_NONE) {
            size_t data = s->offs[v] + 1 + 2 * (size_t)h->id_size + 8;
            skip = ht_snapshot_find(s, ht_hprof_id(h, data + referent[s->cls[v]]));
        }
        for (uint32_t e = s->out_start[v]; e < s->out_start[v + 1]; e++) {
            uint32_t w = s->out[e];
            if (w == skip) {
                skip = HT_NONE;
                continue;
            }
            if (p->prev[w] != HT_NONE) continue;
            p->prev[w] = v;
            queue[tail++] = w;
        }
    }
    free(queue);
    free(referent);
    return HT_HPROF_OK;
}

void ht_paths_free(ht_paths *p)
{
    free(p->prev);
    ht_map_free(&p->root);
    memset(p, 0, sizeof *p);
}

uint32_t ht_paths_get(const ht_paths *p, uint32_t n, uint32_t *out, uint32_t cap)
{
    if (n >= p->n || p->prev[n] == HT_NONE) return 0;
    uint32_t len = 0;
    for (uint32_t x = n; x != HT_ROOT; x = p->prev[x])
        len++;
    /* fill from the end: out holds the last min(len, cap) objects, root side first */
    uint32_t keep = len < cap ? len : cap, i = len;
    for (uint32_t x = n; x != HT_ROOT; x = p->prev[x]) {
        i--;
        if (i < len - keep) break;
        out[i - (len - keep)] = x;
    }
    return len;
}

void ht_paths_format(const ht_paths *p, const ht_snapshot *s, uint32_t n, char *buf, size_t cap)
{
    uint32_t path[64];
    uint32_t len = ht_paths_get(p, n, path, 64);
    if (len == 0) {
        snprintf(buf, cap, "(no path from a GC root)");
        return;
    }
    uint32_t shown = len < 64 ? len : 64;
    size_t at = 0;
    uint64_t r64;
    uint32_t r = ht_map_get(&p->root, path[0], &r64) ? (uint32_t)r64 : HT_NONE;
    if (len > shown)
        at += (size_t)snprintf(buf + at, cap - at, "... %u more -> ", len - shown);
    else {
        char what[800];
        if (r == HT_NONE)
            snprintf(what, sizeof what, "?");
        else
            ht_root_describe(s, r, what, sizeof what);
        at += (size_t)snprintf(buf + at, cap - at, "root(%s) ", what);
    }
    char label[512], ref[256];
    for (uint32_t i = 0; i < shown && at < cap; i++) {
        if (i) {
            uint32_t k = ht_ref_index(s, path[i - 1], path[i]);
            ht_snapshot_ref_name(s, path[i - 1], k, ref, sizeof ref);
            at += (size_t)snprintf(buf + at, cap - at, " -%s-> ", ref);
            if (at >= cap) break;
        }
        ht_object_label(s, path[i], label, sizeof label);
        at += (size_t)snprintf(buf + at, cap - at, "%s", label);
    }
}
