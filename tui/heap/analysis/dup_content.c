/*
 * dup_content.c - an object's content without its references' targets, for
 * duplicates.c's first partition: hashed, and compared exactly (see
 * duplicates_int.h). Reads the object's own record in the mapped dump only.
 */
#include "duplicates_int.h"

#include "hash.h"

#include <string.h>

#define SEED 0x9e3779b97f4a7c15ull

static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 31;
        p += 8, n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w ^ ((uint64_t)n << 59)) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

/* The references of an object in order, each told apart as null, an object
 * of the dump (the next of its outgoing references), or missing from the
 * dump (a dangling id). When the object has as many outgoing references as
 * non-null ones, none is missing and ids need not be looked at. */
typedef struct slots {
    const ht_snapshot *s;
    uint32_t e, end; /* its content references in s->out */
    int all;         /* every non-null reference is in the dump */
} slots;

enum { REF_NULL, REF_OBJECT, REF_MISSING };

static int slot_kind(slots *w, uint64_t id)
{
    if (id == 0) return REF_NULL;
    if (w->all || (w->e < w->end && w->s->ids[w->s->out[w->e]] == id)) {
        w->e++;
        return REF_OBJECT;
    }
    return REF_MISSING;
}

static uint64_t slot_hash(uint64_t h, int kind, uint64_t id)
{
    uint64_t m = kind == REF_MISSING ? ht_mix64(id) ^ 2 : (uint64_t)kind;
    return (h ^ m) * 0x9fb21c651e98df25ull;
}

/* Where an object's values lie in the file. */
typedef struct body {
    const uint8_t *p; /* instance data, array elements */
    uint32_t len;     /* instance: bytes; arrays: elements */
    unsigned type;    /* primitive array: element type */
} body;

static body body_of(const ht_snapshot *s, uint32_t x)
{
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    size_t off = s->offs[x];
    body b = {0};
    b.len = ht_be32(h->data + off + 1 + id + 4);
    if (s->kind[x] == HT_OBJ_INSTANCE) {
        b.len = ht_be32(h->data + off + 1 + 2 * (size_t)id + 4);
        b.p = h->data + off + 1 + 2 * (size_t)id + 8;
    } else if (s->kind[x] == HT_OBJ_OBJ_ARRAY) {
        b.p = h->data + off + 1 + 2 * (size_t)id + 8;
    } else {
        b.type = h->data[off + 1 + id + 8];
        b.p = h->data + off + 1 + id + 9;
    }
    return b;
}

static void slots_init(slots *w, const ht_snapshot *s, uint32_t x, const body *b)
{
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    size_t at = (size_t)(b->p - h->data);
    w->s = s;
    w->e = s->out_start[x] + (s->classes[s->cls[x]].obj != HT_NONE); /* after the class edge */
    w->end = s->out_start[x + 1];
    uint32_t nonnull = 0, c = s->cls[x];
    if (s->kind[x] == HT_OBJ_INSTANCE) {
        ht_refpos_it it;
        uint32_t p;
        for (ht_refpos_begin(&it, s, c); ht_refpos_next(&it, &p);)
            nonnull += ht_hprof_id(h, at + p) != 0;
    } else if (s->kind[x] == HT_OBJ_OBJ_ARRAY) {
        for (uint32_t i = 0; i < b->len; i++)
            nonnull += ht_hprof_id(h, at + (size_t)i * id) != 0;
    }
    w->all = w->end - w->e == nonnull;
}

uint64_t ht_dup_content_hash(const ht_snapshot *s, uint32_t x)
{
    if (ht_dups_collide_for_tests) return 1;
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    uint32_t c = s->cls[x];
    uint64_t k = ht_mix64(SEED ^ c) ^ s->kind[x];
    body b = body_of(s, x);
    slots w;
    slots_init(&w, s, x, &b);
    switch (s->kind[x]) {
    case HT_OBJ_INSTANCE: {
        uint32_t pos = 0, p;
        ht_refpos_it it;
        for (ht_refpos_begin(&it, s, c); ht_refpos_next(&it, &p);) {
            k = hash_bytes(k, b.p + pos, p - pos);
            uint64_t r = ht_hprof_id(h, (size_t)(b.p - h->data) + p);
            k = slot_hash(k, slot_kind(&w, r), r);
            pos = p + id;
        }
        return ht_mix64(hash_bytes(k, b.p + pos, b.len - pos));
    }
    case HT_OBJ_OBJ_ARRAY:
        k = ht_mix64(k ^ b.len);
        for (uint32_t i = 0; i < b.len; i++) {
            uint64_t r = ht_hprof_id(h, (size_t)(b.p - h->data) + (size_t)i * id);
            k = slot_hash(k, slot_kind(&w, r), r);
        }
        return ht_mix64(k);
    default:
        k = ht_mix64(k ^ b.len ^ (uint64_t)b.type << 40);
        return ht_mix64(hash_bytes(k, b.p, (size_t)b.len * ht_hprof_type_size(h, b.type)));
    }
}

/* Two references equal as content before their targets are compared. */
static int same_slot(slots *a, slots *b, uint64_t ra, uint64_t rb)
{
    int ka = slot_kind(a, ra), kb = slot_kind(b, rb);
    return ka == kb && (ka != REF_MISSING || ra == rb);
}

/* x and y (one class) hold the same values, and null and missing references
 * in the same places: the exact test behind every hash match. */
int ht_dup_same_content(const ht_snapshot *s, uint32_t x, uint32_t y)
{
    if (s->cls[x] != s->cls[y] || s->kind[x] != s->kind[y]) return 0;
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    body a = body_of(s, x), b = body_of(s, y);
    if (a.len != b.len || a.type != b.type) return 0;
    slots wa, wb;
    slots_init(&wa, s, x, &a);
    slots_init(&wb, s, y, &b);
    uint32_t c = s->cls[x];
    switch (s->kind[x]) {
    case HT_OBJ_INSTANCE: {
        uint32_t pos = 0, p;
        ht_refpos_it it;
        for (ht_refpos_begin(&it, s, c); ht_refpos_next(&it, &p);) {
            if (memcmp(a.p + pos, b.p + pos, p - pos) != 0) return 0;
            if (!same_slot(&wa, &wb, ht_hprof_id(h, (size_t)(a.p - h->data) + p),
                           ht_hprof_id(h, (size_t)(b.p - h->data) + p)))
                return 0;
            pos = p + id;
        }
        return memcmp(a.p + pos, b.p + pos, a.len - pos) == 0;
    }
    case HT_OBJ_OBJ_ARRAY:
        for (uint32_t i = 0; i < a.len; i++)
            if (!same_slot(&wa, &wb, ht_hprof_id(h, (size_t)(a.p - h->data) + (size_t)i * id),
                           ht_hprof_id(h, (size_t)(b.p - h->data) + (size_t)i * id)))
                return 0;
        return 1;
    default:
        return memcmp(a.p, b.p, (size_t)a.len * ht_hprof_type_size(h, a.type)) == 0;
    }
}
