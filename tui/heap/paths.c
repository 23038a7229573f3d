/*
 * paths.c - see paths.h.
 */
#include "paths.h"

#include "values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ht_root_kind_name(unsigned kind)
{
    static const char *const names[HT_SUB_ROOT_COUNT] = {
        "unknown",      "JNI global",   "JNI local",    "Java frame", "native stack",
        "system class", "thread block", "busy monitor", "thread",
    };
    return kind < HT_SUB_ROOT_COUNT ? names[kind] : "?";
}

/* "name" of a UTF8 id into buf ("?" when missing). */
static void utf8_text(const ht_snapshot *s, uint64_t id, char *buf, size_t cap)
{
    size_t len;
    const char *p = ht_snapshot_utf8(s, id, &len);
    snprintf(buf, cap, "%.*s", p ? (int)(len > 200 ? 200 : len) : 1, p ? p : "?");
}

/* Frame `depth` of stack trace `serial`: "demo.App.run(App.java:42)". */
static int frame_text(const ht_snapshot *s, uint32_t serial, uint32_t depth, char *buf, size_t cap)
{
    const ht_hprof *h = s->h;
    uint64_t tb, fb, cid;
    if (!ht_map_get(&s->traces, serial, &tb)) return 0;
    uint32_t nframes = ht_be32(h->data + tb + 8);
    if (depth >= nframes) return 0; /* the first pass checked nframes against the length */
    uint64_t frame = ht_hprof_id(h, tb + 12 + (size_t)depth * h->id_size);
    if (!ht_map_get(&s->frames, frame, &fb)) return 0;
    unsigned id = h->id_size;
    char method[256], source[256], cls[256] = "?";
    utf8_text(s, ht_hprof_id(h, fb + id), method, sizeof method);
    utf8_text(s, ht_hprof_id(h, fb + 3 * id), source, sizeof source);
    if (ht_map_get(&s->class_serials, ht_be32(h->data + fb + 4 * id), &cid)) {
        uint32_t n = ht_snapshot_find(s, cid);
        uint32_t c = n == HT_NONE ? HT_NONE : ht_snapshot_class_index(s, n);
        if (c != HT_NONE) snprintf(cls, sizeof cls, "%s", s->classes[c].name);
    }
    int32_t line = (int32_t)ht_be32(h->data + fb + 4 * id + 4);
    if (line > 0)
        snprintf(buf, cap, "%s.%s(%s:%d)", cls, method, source, line);
    else
        snprintf(buf, cap, "%s.%s(%s)", cls, method, line == -3 ? "native" : source);
    return 1;
}

/* A thread object's name, quoted ("?" when it has none). */
static void thread_name(const ht_snapshot *s, uint32_t thread, char *buf, size_t cap)
{
    uint32_t name = ht_field_object(s, thread, "name");
    if (name == HT_NONE)
        snprintf(buf, cap, "?");
    else
        ht_object_preview(s, name, buf, cap);
}

void ht_root_describe(const ht_snapshot *s, uint32_t r, char *buf, size_t cap)
{
    const ht_root *root = &s->roots[r];
    const ht_hprof *h = s->h;
    const char *kind = ht_root_kind_name(root->kind);
    size_t at = root->off + 1 + h->id_size; /* after the tag and the object's id */
    int has_thread = root->kind == HT_SUB_ROOT_JAVA_FRAME || root->kind == HT_SUB_ROOT_JNI_LOCAL ||
                     root->kind == HT_SUB_ROOT_NATIVE_STACK ||
                     root->kind == HT_SUB_ROOT_THREAD_BLOCK;
    if (!has_thread) {
        if (root->kind == HT_SUB_ROOT_THREAD_OBJ) {
            char name[160];
            thread_name(s, root->obj, name, sizeof name);
            snprintf(buf, cap, "thread %s", name);
        } else {
            snprintf(buf, cap, "%s", kind);
        }
        return;
    }
    uint32_t serial = ht_be32(h->data + at);
    /* the thread: the THREAD OBJ root with that serial */
    char name[160] = "?";
    uint32_t trace = 0;
    int found = 0;
    for (uint32_t i = 0; i < s->nroots && !found; i++) {
        const ht_root *t = &s->roots[i];
        if (t->kind != HT_SUB_ROOT_THREAD_OBJ ||
            ht_be32(h->data + t->off + 1 + h->id_size) != serial)
            continue;
        found = 1;
        trace = ht_be32(h->data + t->off + 1 + h->id_size + 4);
        thread_name(s, t->obj, name, sizeof name);
    }
    char frame[600];
    if ((root->kind == HT_SUB_ROOT_JAVA_FRAME || root->kind == HT_SUB_ROOT_JNI_LOCAL) && found &&
        frame_text(s, trace, ht_be32(h->data + at + 4), frame, sizeof frame))
        snprintf(buf, cap, "%s: thread %s at %s", kind, name, frame);
    else
        snprintf(buf, cap, "%s: thread %s", kind, name);
}

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

uint32_t ht_ref_index(const ht_snapshot *s, uint32_t n, uint32_t m)
{
    for (uint32_t e = s->out_start[n]; e < s->out_start[n + 1]; e++)
        if (s->out[e] == m) return e - s->out_start[n];
    return HT_NONE;
}

void ht_object_label(const ht_snapshot *s, uint32_t n, char *buf, size_t cap)
{
    if (s->kind[n] == HT_OBJ_CLASS) {
        uint32_t c = ht_snapshot_class_index(s, n);
        snprintf(buf, cap, "java.lang.Class(%s)", c == HT_NONE ? "?" : s->classes[c].name);
        return;
    }
    snprintf(buf, cap, "%s", ht_snapshot_class_name(s, n)); /* Java's name already */
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
