/* sampled.c - see sampled.h. */
#include "sampled.h"

#include "heap_marker.h"
#include "protocol.h"
#include "snapshot_int.h"

#include <stdlib.h>
#include <string.h>

static int nomem(ht_build *b)
{
    return ht_hprof_error(b->h, HT_HPROF_ERR_NOMEM, "out of memory");
}

static uint64_t be64(const uint8_t *p)
{
    return (uint64_t)ht_be32(p) << 32 | ht_be32(p + 4);
}

/* Where in an instance's field data the reference field `referent` is, for
 * instances of the class with id class_id (its fields first, then its
 * superclasses', as HotSpot dumps them); -1 when it has none. Read from the
 * class dumps themselves: the class table is not built yet. */
static long referent_pos(const ht_snapshot *s, uint64_t class_id)
{
    const ht_hprof *h = s->h;
    long pos = 0;
    for (unsigned depth = 0; class_id && depth < HT_MAX_CLASS_DEPTH; depth++) {
        uint32_t c = ht_snapshot_find(s, class_id);
        if (c == HT_NONE || s->kind[c] != HT_OBJ_CLASS) return -1;
        size_t off = s->offs[c];
        size_t f = ht_class_dump_part(h, off, 2);
        unsigned nf = ht_be16(h->data + f);
        for (unsigned i = 0; i < nf; i++) {
            size_t e = f + 2 + (size_t)i * (h->id_size + 1);
            unsigned t = h->data[e + h->id_size];
            size_t len;
            const char *nm = ht_snapshot_utf8(s, ht_hprof_id(h, e), &len);
            if (t == 2 && nm && len == 8 && memcmp(nm, "referent", 8) == 0) return pos;
            pos += ht_hprof_type_size(h, t);
        }
        class_id = ht_hprof_id(h, off + 1 + h->id_size + 4); /* its superclass */
    }
    return -1;
}

/* The referent of WeakReference object n (0 for null or not one). */
static uint64_t referent_of(const ht_snapshot *s, uint32_t n, uint64_t *cache_class,
                            long *cache_pos)
{
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    if (s->kind[n] != HT_OBJ_INSTANCE) return 0;
    size_t off = s->offs[n];
    uint64_t cls = ht_hprof_id(h, off + 1 + id + 4);
    if (cls != *cache_class) {
        *cache_class = cls;
        *cache_pos = referent_pos(s, cls);
    }
    uint32_t len = ht_be32(h->data + off + 1 + 2 * id + 4);
    if (*cache_pos < 0 || (uint64_t)*cache_pos + id > len) return 0;
    return ht_hprof_id(h, off + 1 + 2 * id + 8 + (size_t)*cache_pos);
}

/* The marker's table, when object n is its Object[]: the long[]'s number,
 * with the sample count and the session byte[]'s number; HT_NONE otherwise. */
static uint32_t marker_table(const ht_snapshot *s, uint32_t n, uint32_t *count, uint32_t *session)
{
    const ht_hprof *h = s->h;
    unsigned id = h->id_size;
    if (s->kind[n] != HT_OBJ_OBJ_ARRAY) return HT_NONE;
    size_t off = s->offs[n];
    uint32_t len = ht_be32(h->data + off + 1 + id + 4);
    if (len < HT_MARKER_FIRST) return HT_NONE;
    uint32_t t = ht_snapshot_find(s, ht_hprof_id(h, off + 1 + 2 * id + 8));
    if (t == HT_NONE || s->kind[t] != HT_OBJ_PRIM_ARRAY) return HT_NONE;
    size_t toff = s->offs[t];
    uint32_t tlen = ht_be32(h->data + toff + 1 + id + 4);
    const uint8_t *d = h->data + toff + 1 + id + 9;
    if (h->data[toff + 1 + id + 8] != 11 || tlen < HT_MARKER_HEAD) return HT_NONE; /* long[] */
    if (be64(d) != (uint64_t)HT_MARKER_MAGIC || be64(d + 8) != HT_MARKER_VERSION) return HT_NONE;
    uint64_t k = be64(d + 16);
    if (k != len - (uint64_t)HT_MARKER_FIRST ||
        (uint64_t)tlen != HT_MARKER_HEAD + k * HT_MARKER_WORDS)
        return HT_NONE;
    uint32_t b = ht_snapshot_find(s, ht_hprof_id(h, off + 1 + 2 * id + 8 + id));
    if (b == HT_NONE || s->kind[b] != HT_OBJ_PRIM_ARRAY || h->data[s->offs[b] + 1 + id + 8] != 8)
        return HT_NONE; /* byte[] */
    *count = (uint32_t)k;
    *session = b;
    return t;
}

/* The run's pid and start from the session's first message, its HELLO; left
 * 0 when that is not a well-formed HELLO. */
static void session_run(ht_sampled *m)
{
    ht_reader r;
    ht_reader_init(&r, m->session, m->session_len);
    uint32_t n = ht_get_u32(&r); /* each message after its length */
    const uint8_t *msg = ht_get_bytes(&r, n);
    ht_msg hm;
    if (r.failed || !msg || ht_msg_open(msg, n, &hm) != HT_OK || hm.type != HT_MSG_HELLO_REP ||
        ht_msg_validate(&hm) != HT_OK)
        return;
    ht_reader body;
    ht_msg_reader(&hm, &body);
    ht_hello hello;
    ht_dec_hello(&body, &hello);
    m->run_pid = hello.pid;
    m->run_start_ms = hello.start_epoch_ms;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Take the objects whose ids are in hidden (ascending) out of ids and offs. */
static int drop_objects(ht_build *b, const uint64_t *hidden, uint32_t nhidden)
{
    ht_snapshot *s = b->s;
    uint32_t kept = 0, k = 0;
    for (uint32_t i = 0; i < s->nobjects; i++) {
        while (k < nhidden && hidden[k] < s->ids[i])
            k++;
        if (k < nhidden && hidden[k] == s->ids[i]) continue;
        s->ids[kept] = s->ids[i];
        s->offs[kept++] = s->offs[i];
    }
    s->nobjects = kept;
    return ht_snapshot_index(b);
}

int ht_sampled_take(ht_build *b)
{
    ht_snapshot *s = b->s;
    const ht_hprof *h = b->h;
    ht_sampled *m = &s->sampled;
    for (uint32_t r = 0; r < s->nroots; r++) {
        if (s->roots[r].kind != HT_SUB_ROOT_JNI_GLOBAL) continue;
        uint32_t arr = ht_snapshot_find(s, ht_hprof_id(h, s->roots[r].off + 1)), n = 0, ses = 0;
        uint32_t table = arr == HT_NONE ? HT_NONE : marker_table(s, arr, &n, &ses);
        if (table == HT_NONE) continue;
        m->v = calloc(n ? n : 1, sizeof *m->v);
        m->referent = calloc(n ? n : 1, sizeof *m->referent);
        m->hidden = malloc(((size_t)n + 3) * sizeof *m->hidden);
        if (!m->v || !m->referent || !m->hidden) return nomem(b);
        m->n = n;
        unsigned id = h->id_size;
        m->hidden[m->nhidden++] = s->ids[arr];
        m->hidden[m->nhidden++] = s->ids[table];
        m->hidden[m->nhidden++] = s->ids[ses];
        size_t soff = s->offs[ses];
        m->session = h->data + soff + 1 + id + 9;
        m->session_len = ht_be32(h->data + soff + 1 + id + 4);
        m->marked = 1;
        session_run(m);
        const uint8_t *rows = h->data + s->offs[table] + 1 + id + 9 + 8 * HT_MARKER_HEAD;
        size_t elems = s->offs[arr] + 1 + 2 * (size_t)id + 8;
        uint64_t cache_class = 0;
        long cache_pos = -1;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *row = rows + (size_t)i * 8 * HT_MARKER_WORDS;
            uint64_t site = be64(row + 8), bytes = be64(row + 16), inst = be64(row + 24);
            ht_sample_obj *o = &m->v[i];
            o->serial = be64(row);
            o->trace_id = (uint32_t)(site >> 32);
            o->class_id = (uint32_t)site;
            memcpy(&o->bytes, &bytes, sizeof o->bytes);
            memcpy(&o->instances, &inst, sizeof o->instances);
            o->obj = HT_NONE;
            uint64_t wid = ht_hprof_id(h, elems + (size_t)(i + HT_MARKER_FIRST) * id);
            uint32_t w = wid ? ht_snapshot_find(s, wid) : HT_NONE;
            if (w == HT_NONE) continue; /* the object died before the marker was made */
            m->hidden[m->nhidden++] = wid;
            m->referent[i] = referent_of(s, w, &cache_class, &cache_pos);
        }
        qsort(m->hidden, m->nhidden, sizeof *m->hidden, cmp_u64);
        return drop_objects(b, m->hidden, m->nhidden);
    }
    return HT_HPROF_OK;
}

int ht_sampled_resolve(ht_build *b)
{
    ht_snapshot *s = b->s;
    ht_sampled *m = &s->sampled;
    if (!m->n) return HT_HPROF_OK;
    uint64_t *key = malloc(m->n * sizeof *key); /* object << 32 | index, to sort */
    m->by_obj = malloc(m->n * sizeof *m->by_obj);
    if (!key || !m->by_obj) {
        free(key);
        return nomem(b);
    }
    for (uint32_t i = 0; i < m->n; i++) {
        m->v[i].obj = m->referent[i] ? ht_snapshot_find(s, m->referent[i]) : HT_NONE;
        if (m->v[i].obj != HT_NONE) key[m->present++] = (uint64_t)m->v[i].obj << 32 | i;
    }
    qsort(key, m->present, sizeof *key, cmp_u64);
    for (uint32_t k = 0; k < m->present; k++)
        m->by_obj[k] = (uint32_t)key[k];
    free(key);
    free(m->referent);
    m->referent = NULL;
    return HT_HPROF_OK;
}

const ht_sample_obj *ht_sampled_of(const ht_snapshot *s, uint32_t n)
{
    const ht_sampled *m = &s->sampled;
    uint32_t lo = 0, hi = m->present;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->v[m->by_obj[mid]].obj < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->present && m->v[m->by_obj[lo]].obj == n ? &m->v[m->by_obj[lo]] : NULL;
}

int ht_sampled_hidden(const ht_snapshot *s, uint64_t id)
{
    const ht_sampled *m = &s->sampled;
    return m->nhidden && bsearch(&id, m->hidden, m->nhidden, sizeof id, cmp_u64) != NULL;
}

void ht_sampled_free(ht_sampled *m)
{
    free(m->v);
    free(m->by_obj);
    free(m->hidden);
    free(m->referent);
    memset(m, 0, sizeof *m);
}
