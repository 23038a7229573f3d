/* values.c - see values.h. */
#include "values.h"

#include "labels.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A value of HPROF type t at p, as text (references: "0x..." or "null"). */
static void prim_text(const ht_hprof *h, unsigned t, const uint8_t *p, char *buf, size_t cap)
{
    uint64_t v = 0;
    unsigned n = ht_hprof_type_size(h, t);
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    switch (t) {
    case 4:
        snprintf(buf, cap, "%s", v ? "true" : "false");
        break;
    case 5:
        if (v >= 32 && v < 127)
            snprintf(buf, cap, "'%c'", (char)v);
        else
            snprintf(buf, cap, "\\u%04x", (unsigned)v);
        break;
    case 6: {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, 4);
        snprintf(buf, cap, "%g", (double)f);
        break;
    }
    case 7: {
        double d;
        memcpy(&d, &v, 8);
        snprintf(buf, cap, "%g", d);
        break;
    }
    case 8:
        snprintf(buf, cap, "%d", (int8_t)v);
        break;
    case 9:
        snprintf(buf, cap, "%d", (int16_t)v);
        break;
    case 10:
        snprintf(buf, cap, "%" PRId32, (int32_t)v);
        break;
    case 11:
        snprintf(buf, cap, "%" PRId64, (int64_t)v);
        break;
    default:
        snprintf(buf, cap, v ? "0x%" PRIx64 : "null", v);
    }
}

/* Offset of the field `name` (of type `type`) in instance n's data, or -1. */
static long field_at(const ht_snapshot *s, uint32_t n, const char *name, unsigned type)
{
    const ht_hprof *h = s->h;
    size_t want = strlen(name);
    long pos = 0;
    for (uint32_t c = s->cls[n]; c != HT_NONE; c = s->classes[c].super) {
        const ht_class *ck = &s->classes[c];
        for (unsigned i = 0; i < ck->nfields; i++) {
            size_t f = ck->fields + 2 + (size_t)i * (h->id_size + 1);
            unsigned t = h->data[f + h->id_size];
            size_t len;
            const char *nm = ht_snapshot_utf8(s, ht_hprof_id(h, f), &len);
            if (t == type && nm && len == want && memcmp(nm, name, len) == 0) return pos;
            pos += ht_hprof_type_size(h, t);
        }
    }
    return -1;
}

static size_t instance_data(const ht_snapshot *s, uint32_t n)
{
    return s->offs[n] + 1 + 2 * (size_t)s->h->id_size + 8;
}

uint32_t ht_field_object(const ht_snapshot *s, uint32_t n, const char *name)
{
    if (n >= s->nobjects || s->kind[n] != HT_OBJ_INSTANCE) return HT_NONE;
    long at = field_at(s, n, name, 2);
    if (at < 0) return HT_NONE;
    uint64_t id = ht_hprof_id(s->h, instance_data(s, n) + (size_t)at);
    return id ? ht_snapshot_find(s, id) : HT_NONE;
}

/* A String's text, quoted, cut to cap. */
static int string_text(const ht_snapshot *s, uint32_t n, char *buf, size_t cap)
{
    const ht_hprof *h = s->h;
    long at = field_at(s, n, "value", 2);
    if (at < 0) return 0;
    uint32_t arr = ht_snapshot_find(s, ht_hprof_id(h, instance_data(s, n) + (size_t)at));
    if (arr == HT_NONE || s->kind[arr] != HT_OBJ_PRIM_ARRAY) return 0;
    long coder_at = field_at(s, n, "coder", 8);
    int utf16 = coder_at >= 0 && h->data[instance_data(s, n) + (size_t)coder_at] == 1;
    size_t off = s->offs[arr];
    uint32_t len = ht_be32(h->data + off + 1 + h->id_size + 4);
    unsigned t = h->data[off + 1 + h->id_size + 8];
    const uint8_t *p = h->data + off + 1 + h->id_size + 9;
    size_t o = 0;
    if (cap < 8) return 0;
    buf[o++] = '"';
    uint32_t chars = t == 5 ? len : utf16 ? len / 2 : len; /* char[] before JDK 9 */
    for (uint32_t i = 0; i < chars && o + 6 < cap; i++) {
        unsigned c = t == 5  ? (unsigned)(p[2 * i] << 8 | p[2 * i + 1])
                     : utf16 ? (unsigned)(p[2 * i] | p[2 * i + 1] << 8) /* little-endian */
                             : p[i];
        buf[o++] = c >= 32 && c < 127 ? (char)c : '?';
    }
    buf[o++] = '"';
    buf[o] = 0;
    return 1;
}

void ht_object_preview(const ht_snapshot *s, uint32_t n, char *buf, size_t cap)
{
    buf[0] = 0;
    if (n >= s->nobjects || cap < 16) return;
    const ht_hprof *h = s->h;
    if (s->kind[n] == HT_OBJ_INSTANCE) {
        const char *cls = ht_snapshot_class_name(s, n);
        if (strcmp(cls, "java.lang.String") == 0) {
            string_text(s, n, buf, cap);
            return;
        }
        static const struct {
            const char *cls;
            unsigned type;
        } boxes[] = {{"java.lang.Integer", 10}, {"java.lang.Long", 11},
                     {"java.lang.Short", 9},    {"java.lang.Byte", 8},
                     {"java.lang.Boolean", 4},  {"java.lang.Character", 5},
                     {"java.lang.Double", 7},   {"java.lang.Float", 6}};
        for (unsigned i = 0; i < sizeof boxes / sizeof *boxes; i++)
            if (strcmp(cls, boxes[i].cls) == 0) {
                long at = field_at(s, n, "value", boxes[i].type);
                if (at >= 0)
                    prim_text(h, boxes[i].type, h->data + instance_data(s, n) + (size_t)at, buf,
                              cap);
                return;
            }
        return;
    }
    if (s->kind[n] != HT_OBJ_PRIM_ARRAY) return;
    size_t off = s->offs[n];
    uint32_t len = ht_be32(h->data + off + 1 + h->id_size + 4);
    unsigned t = h->data[off + 1 + h->id_size + 8], sz = ht_hprof_type_size(h, t);
    const uint8_t *p = h->data + off + 1 + h->id_size + 9;
    size_t o = (size_t)snprintf(buf, cap, "[%" PRIu32 "] {", len);
    char one[48];
    for (uint32_t i = 0; i < len && o + 8 < cap; i++) {
        prim_text(h, t, p + (size_t)i * sz, one, sizeof one);
        size_t l = strlen(one);
        if (o + l + 8 >= cap) {
            o += (size_t)snprintf(buf + o, cap - o, ", ...");
            break;
        }
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", one);
    }
    if (o + 2 < cap) snprintf(buf + o, cap - o, "}");
}

/* A reference's text: the target's class and preview. */
static void ref_text(const ht_snapshot *s, uint64_t id, ht_field *fl)
{
    fl->target = id ? ht_snapshot_find(s, id) : HT_NONE;
    if (!id) {
        snprintf(fl->value, sizeof fl->value, "null");
        return;
    }
    if (fl->target == HT_NONE) {
        snprintf(fl->value, sizeof fl->value, "0x%" PRIx64 " (not in the dump)", id);
        return;
    }
    char label[160], preview[96];
    ht_object_label(s, fl->target, label, sizeof label);
    ht_object_preview(s, fl->target, preview, sizeof preview);
    snprintf(fl->value, sizeof fl->value, "%s%s%s", label, preview[0] ? " " : "", preview);
}

uint64_t ht_fields_each(const ht_snapshot *s, uint32_t n, uint32_t max,
                        void (*f)(void *ctx, const ht_field *fl), void *ctx)
{
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    size_t off = s->offs[n];
    ht_field fl;
    uint64_t count = 0;
    size_t len;
    const char *nm;
    switch (s->kind[n]) {
    case HT_OBJ_INSTANCE: {
        size_t data = instance_data(s, n), pos = 0;
        for (uint32_t c = s->cls[n]; c != HT_NONE; c = s->classes[c].super) {
            const ht_class *ck = &s->classes[c];
            for (unsigned i = 0; i < ck->nfields; i++, count++) {
                size_t fo = ck->fields + 2 + (size_t)i * (id + 1);
                unsigned t = h->data[fo + id];
                nm = ht_snapshot_utf8(s, ht_hprof_id(h, fo), &len);
                snprintf(fl.name, sizeof fl.name, "%.*s", nm ? (int)(len > 100 ? 100 : len) : 1,
                         nm ? nm : "?");
                fl.target = HT_NONE;
                if (t == 2)
                    ref_text(s, ht_hprof_id(h, data + pos), &fl);
                else
                    prim_text(h, t, h->data + data + pos, fl.value, sizeof fl.value);
                f(ctx, &fl);
                pos += ht_hprof_type_size(h, t);
            }
        }
        return count;
    }
    case HT_OBJ_OBJ_ARRAY: {
        uint32_t n_el = ht_be32(h->data + off + 1 + id + 4);
        for (uint32_t i = 0; i < n_el && i < max; i++) {
            snprintf(fl.name, sizeof fl.name, "[%" PRIu32 "]", i);
            ref_text(s, ht_hprof_id(h, off + 1 + 2 * (size_t)id + 8 + (size_t)i * id), &fl);
            f(ctx, &fl);
        }
        return n_el;
    }
    case HT_OBJ_PRIM_ARRAY: {
        uint32_t n_el = ht_be32(h->data + off + 1 + id + 4);
        unsigned t = h->data[off + 1 + id + 8], sz = ht_hprof_type_size(h, t);
        for (uint32_t i = 0; i < n_el && i < max; i++) {
            snprintf(fl.name, sizeof fl.name, "[%" PRIu32 "]", i);
            fl.target = HT_NONE;
            prim_text(h, t, h->data + off + 1 + id + 9 + (size_t)i * sz, fl.value, sizeof fl.value);
            f(ctx, &fl);
        }
        return n_el;
    }
    default: {
        /* statics: after the constant pool */
        size_t p = off + 1 + 7 * (size_t)id + 8;
        unsigned cp = ht_be16(h->data + p);
        p += 2;
        for (unsigned i = 0; i < cp; i++)
            p += 3 + ht_hprof_type_size(h, h->data[p + 2]);
        unsigned ns = ht_be16(h->data + p);
        p += 2;
        for (unsigned i = 0; i < ns; i++, count++) {
            unsigned t = h->data[p + id];
            nm = ht_snapshot_utf8(s, ht_hprof_id(h, p), &len);
            snprintf(fl.name, sizeof fl.name, "static %.*s", nm ? (int)(len > 100 ? 100 : len) : 1,
                     nm ? nm : "?");
            fl.target = HT_NONE;
            if (t == 2)
                ref_text(s, ht_hprof_id(h, p + id + 1), &fl);
            else
                prim_text(h, t, h->data + p + id + 1, fl.value, sizeof fl.value);
            f(ctx, &fl);
            p += id + 1 + ht_hprof_type_size(h, t);
        }
        return count;
    }
    }
}

typedef struct content_line {
    char *buf;
    size_t cap, len;
    int array, first;
} content_line;

static void content_field(void *ctx, const ht_field *fl)
{
    content_line *c = ctx;
    if (c->len + 8 >= c->cap) return;
    int n = snprintf(c->buf + c->len, c->cap - c->len, "%s%s%s%s", c->first ? "" : ", ",
                     c->array ? "" : fl->name, c->array ? "" : "=", fl->value);
    c->first = 0;
    if (n < 0 || (size_t)n >= c->cap - c->len) { /* cut: end with "..." */
        c->len = c->cap - 1;
        memcpy(c->buf + c->cap - 4, "...", 3);
    } else {
        c->len += (size_t)n;
    }
}

void ht_object_content(const ht_snapshot *s, uint32_t n, char *buf, size_t cap)
{
    ht_object_preview(s, n, buf, cap);
    if (buf[0] || cap < 16 || n >= s->nobjects) return;
    if (s->kind[n] != HT_OBJ_INSTANCE && s->kind[n] != HT_OBJ_OBJ_ARRAY) return;
    content_line c = {buf, cap - 1, 0, s->kind[n] == HT_OBJ_OBJ_ARRAY, 1};
    if (c.array) {
        uint32_t len = ht_be32(s->h->data + s->offs[n] + 1 + s->h->id_size + 4);
        c.len = (size_t)snprintf(buf, c.cap, "[%" PRIu32 "] ", len);
    }
    buf[c.len++] = '{';
    ht_fields_each(s, n, 16, content_field, &c);
    if (c.len < c.cap) buf[c.len++] = '}';
    buf[c.len] = 0;
}
