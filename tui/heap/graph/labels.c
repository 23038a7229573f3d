/*
 * labels.c - objects and GC roots named for people (see labels.h): an
 * object's class label, a root's kind, and the thread and frame a root
 * record names, read from the snapshot and its mapped dump.
 */
#include "labels.h"

#include "values.h"

#include <stdio.h>
#include <string.h>

void ht_object_label(const ht_snapshot *s, uint32_t n, char *buf, size_t cap)
{
    if (s->kind[n] == HT_OBJ_CLASS) {
        uint32_t c = ht_snapshot_class_index(s, n);
        snprintf(buf, cap, "java.lang.Class(%s)", c == HT_NONE ? "?" : s->classes[c].name);
        return;
    }
    snprintf(buf, cap, "%s", ht_snapshot_class_name(s, n)); /* Java's name already */
}

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

void ht_loader_label(const ht_snapshot *s, uint32_t c, char *buf, size_t cap)
{
    uint32_t l = s->classes[c].loader;
    if (l == HT_NONE) {
        snprintf(buf, cap, "boot");
        return;
    }
    uint32_t name = ht_field_object(s, l, "name"); /* ClassLoader.name */
    if (name != HT_NONE) {
        char text[128];
        ht_object_preview(s, name, text, sizeof text);
        size_t n = strlen(text);
        if (n >= 2 && text[0] == '"') { /* the text, unquoted */
            snprintf(buf, cap, "%.*s", (int)(n - 2), text + 1);
            return;
        }
    }
    ht_object_label(s, l, buf, cap);
}
