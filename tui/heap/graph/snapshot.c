/*
 * snapshot.c - the passes that turn a mapped dump into a graph (see
 * snapshot.h): the walk that finds every object, the numbering by id and the
 * index that finds an id again. Classes are in classes.c, references in
 * refs.c.
 */
#include "snapshot_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void *ht_heap_array(size_t n, int zero)
{
    if (n == 0) n = 1;
    void *p = zero ? calloc(1, n) : malloc(n);
    const size_t huge = 2u << 20;
    if (p && n >= 2 * huge) {
        uintptr_t a = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
        uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(huge - 1);
        if (e > a) madvise((void *)a, e - a, MADV_HUGEPAGE);
    }
    return p;
}

int ht_build_cancelled(ht_build *b)
{
    return b->o && b->o->cancelled && b->o->cancelled(b->o->ctx);
}

void ht_build_progress(ht_build *b, const char *phase, uint64_t done, uint64_t total)
{
    if (b->o && b->o->progress) b->o->progress(b->o->ctx, phase, done, total);
}

static int nomem(ht_build *b)
{
    return ht_hprof_error(b->h, HT_HPROF_ERR_NOMEM, "out of memory");
}

/* ---- the walk: where every object and root is ---- */

static int on_record(void *ctx, ht_hprof_rec kind, size_t body, uint32_t len)
{
    ht_build *b = ctx;
    (void)len;
    const ht_hprof *h = b->h;
    int rc = 0;
    if (kind == HT_REC_UTF8)
        rc = ht_map_put(&b->s->utf8, ht_hprof_id(h, body), body);
    else if (kind == HT_REC_LOAD_CLASS)
        rc =
            ht_map_put(&b->load, ht_hprof_id(h, body + 4), ht_hprof_id(h, body + 8 + h->id_size)) ||
            ht_map_put(&b->s->class_serials, ht_be32(h->data + body), ht_hprof_id(h, body + 4));
    else if (kind == HT_REC_FRAME)
        rc = ht_map_put(&b->s->frames, ht_hprof_id(h, body), body);
    else if (kind == HT_REC_TRACE)
        rc = ht_map_put(&b->s->traces, ht_be32(h->data + body), body);
    return rc ? nomem(b) : HT_HPROF_OK;
}

static int on_sub(void *ctx, ht_hprof_sub kind, size_t off, size_t len)
{
    ht_build *b = ctx;
    ht_snapshot *s = b->s;
    (void)len;
    if (kind < HT_SUB_ROOT_COUNT) {
        if (s->nroots == b->root_cap) {
            uint32_t cap = b->root_cap ? b->root_cap * 2 : 1024;
            void *p = realloc(s->roots, cap * sizeof *s->roots);
            if (!p) return nomem(b);
            s->roots = p;
            b->root_cap = cap;
        }
        s->roots[s->nroots++] = (ht_root){.obj = HT_NONE, .kind = (uint8_t)kind, .off = off};
        return HT_HPROF_OK;
    }
    if (s->nobjects == b->ncap) {
        if (b->ncap >= UINT32_MAX / 2)
            return ht_hprof_error(b->h, HT_HPROF_ERR_FORMAT,
                                  "more than 2^31 objects in the dump (at offset %zu): too many "
                                  "for heaptop",
                                  off);
        uint32_t cap = b->ncap ? b->ncap * 2 : 1 << 16;
        void *p = realloc(s->offs, (size_t)cap * sizeof *s->offs);
        if (!p) return nomem(b);
        s->offs = p;
        b->ncap = cap;
    }
    s->offs[s->nobjects++] = off;
    if ((s->nobjects & 0xfffff) == 0) {
        ht_build_progress(b, "reading", off, b->h->size);
        if (ht_build_cancelled(b)) return HT_HPROF_ERR_CANCELLED;
    }
    return HT_HPROF_OK;
}

/* ---- numbering by id ---- */

typedef struct pair {
    uint64_t id, off;
} pair;

/* LSD radix sort by id, a byte at a time, skipping bytes all ids share (the
 * high bytes of addresses and the low bits of aligned ones). */
static int sort_pairs(ht_build *b, pair *a, size_t n)
{
    pair *tmp = ht_heap_array(n * sizeof *tmp, 0);
    if (!tmp && n) return nomem(b);
    size_t(*count)[256] = calloc(8, sizeof *count);
    if (!count) {
        free(tmp);
        return nomem(b);
    }
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 8; d++)
            count[d][(a[i].id >> (8 * d)) & 0xff]++;
    pair *src = a, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        if (n == 0 || count[d][(a[0].id >> (8 * d)) & 0xff] == n) continue; /* one value */
        size_t pos[256], sum = 0;
        for (int v = 0; v < 256; v++) {
            pos[v] = sum;
            sum += count[d][v];
        }
        for (size_t i = 0; i < n; i++)
            dst[pos[(src[i].id >> (8 * d)) & 0xff]++] = src[i];
        pair *t = src;
        src = dst, dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(count);
    free(tmp);
    return HT_HPROF_OK;
}

static int number_objects(ht_build *b)
{
    ht_snapshot *s = b->s;
    size_t n = s->nobjects;
    ht_build_progress(b, "indexing", 0, n);
    pair *a = ht_heap_array(n * sizeof *a, 0);
    if (!a) return nomem(b);
    for (size_t i = 0; i < n; i++) {
        size_t off = s->offs[i];
        /* every object sub-record has its id right after the tag */
        a[i] = (pair){ht_hprof_id(b->h, off + 1), off};
    }
    int rc = sort_pairs(b, a, n);
    if (rc) {
        free(a);
        return rc;
    }
    free(s->offs);
    s->offs = ht_heap_array(n * sizeof *s->offs, 0);
    s->ids = ht_heap_array(n * sizeof *s->ids, 0);
    if (!s->offs || !s->ids) {
        free(a);
        return nomem(b);
    }
    for (size_t i = 0; i < n; i++) {
        if (i && a[i].id == a[i - 1].id) {
            rc = ht_hprof_error(b->h, HT_HPROF_ERR_FORMAT,
                                "corrupt dump: object id 0x%llx at offset %llu was already "
                                "dumped at offset %llu",
                                (unsigned long long)a[i].id, (unsigned long long)a[i].off,
                                (unsigned long long)a[i - 1].off);
            break;
        }
        s->ids[i] = a[i].id;
        s->offs[i] = a[i].off;
    }
    free(a);
    return rc ? rc : ht_snapshot_index(b);
}

int ht_snapshot_index(ht_build *b)
{
    ht_snapshot *s = b->s;
    size_t n = s->nobjects;
    free(s->bucket);
    free(s->kind);
    /* The find index: ids fall in buckets by their high bits; bucket[k] is
     * the first object whose bucket is >= k. About one bucket per object. */
    uint64_t span = n ? s->ids[n - 1] - s->ids[0] : 0;
    unsigned shift = 0;
    while (shift < 63 && (span >> shift) > (uint64_t)(n ? n : 1))
        shift++;
    s->bucket_shift = shift;
    s->nbuckets = (uint32_t)(span >> shift) + 2;
    s->bucket = ht_heap_array((size_t)s->nbuckets * sizeof *s->bucket, 0);
    if (!s->bucket) return nomem(b);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t bk = (uint32_t)((s->ids[i] - s->ids[0]) >> shift);
        while (k <= bk)
            s->bucket[k++] = i;
    }
    while (k < s->nbuckets)
        s->bucket[k++] = (uint32_t)n;

    s->kind = ht_heap_array(n, 0);
    if (!s->kind) return nomem(b);
    for (size_t i = 0; i < n; i++) {
        unsigned tag = b->h->data[s->offs[i]];
        s->kind[i] = tag == 0x20   ? HT_OBJ_CLASS
                     : tag == 0x21 ? HT_OBJ_INSTANCE
                     : tag == 0x22 ? HT_OBJ_OBJ_ARRAY
                                   : HT_OBJ_PRIM_ARRAY;
    }
    return HT_HPROF_OK;
}

uint32_t ht_snapshot_find(const ht_snapshot *s, uint64_t id)
{
    if (s->nobjects == 0 || id < s->ids[0] || id > s->ids[s->nobjects - 1]) return HT_NONE;
    uint64_t bk = (id - s->ids[0]) >> s->bucket_shift;
    uint32_t lo = s->bucket[bk], hi = s->bucket[bk + 1]; /* [lo, hi) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nobjects && s->ids[lo] == id ? lo : HT_NONE;
}

/* The roots the dump lists, by object number; and every class the boot
 * loader defined that the dump does not list as a root.
 *
 * Why the boot loader's classes are all roots: HotSpot writes ROOT STICKY
 * CLASS for the boot loader's instance classes but not for its array classes
 * (Long[], ByteBuffer[], int[][]), which live in the same never-unloaded
 * class loader data and are as permanent (the boot loader has no object a
 * class could hang from, unlike other loaders, whose classes are reached
 * through the loader: see refs.c). Without a root of their own the one
 * instance of such an array would seem to retain its class, and a class
 * with no instance would be unreachable garbage. An independent reader of
 * the same dumps (another HPROF parser, dominators by another algorithm)
 * agreed with this rule on every class of 12 dumps. A class whose loader
 * object the dump does not hold (loader HT_NONE as well) is taken as the
 * boot loader's too: nothing else could keep it. */
static int resolve_roots(ht_build *b)
{
    ht_snapshot *s = b->s;
    uint32_t kept = 0;
    uint8_t *rooted = calloc(s->nobjects / 8 + 1, 1);
    if (!rooted) return ht_hprof_error(b->h, HT_HPROF_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < s->nroots; i++) {
        ht_root r = s->roots[i];
        r.obj = ht_snapshot_find(s, ht_hprof_id(b->h, r.off + 1));
        if (r.obj == HT_NONE) {
            s->dangling +=
                !ht_sampled_hidden(s, ht_hprof_id(b->h, r.off + 1)); /* not the marker's */
            continue;
        }
        rooted[r.obj >> 3] |= (uint8_t)(1u << (r.obj & 7));
        s->roots[kept++] = r;
    }
    s->nroots = kept;
    for (uint32_t c = 0; c < s->nclasses; c++) {
        uint32_t o = s->classes[c].obj;
        if (o == HT_NONE || s->classes[c].loader != HT_NONE || (rooted[o >> 3] & (1u << (o & 7))))
            continue;
        if (s->nroots == b->root_cap) {
            uint32_t cap = b->root_cap ? b->root_cap * 2 : 1024;
            void *p = realloc(s->roots, cap * sizeof *s->roots);
            if (!p) {
                free(rooted);
                return ht_hprof_error(b->h, HT_HPROF_ERR_NOMEM, "out of memory");
            }
            s->roots = p;
            b->root_cap = cap;
        }
        s->roots[s->nroots++] =
            (ht_root){.obj = o, .kind = HT_SUB_ROOT_STICKY_CLASS, .off = s->offs[o]};
    }
    free(rooted);
    return HT_HPROF_OK;
}

const char *ht_snapshot_utf8(const ht_snapshot *s, uint64_t id, size_t *len)
{
    uint64_t body;
    if (!ht_map_get(&s->utf8, id, &body)) return NULL;
    *len = ht_be32(s->h->data + body - 4) - s->h->id_size;
    return (const char *)s->h->data + body + s->h->id_size;
}

uint32_t ht_snapshot_class_index(const ht_snapshot *s, uint32_t n)
{
    /* dumped classes were added in object order; made-up ones (obj HT_NONE) last */
    uint32_t lo = 0, hi = s->nclasses;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->classes[mid].obj < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nclasses && s->classes[lo].obj == n ? lo : HT_NONE;
}

const char *ht_snapshot_class_name(const ht_snapshot *s, uint32_t n)
{
    uint32_t c = s->kind[n] == HT_OBJ_CLASS ? s->class_class : s->cls[n];
    return c == HT_NONE ? "java.lang.Class" : s->classes[c].name;
}

int ht_snapshot_build(ht_snapshot *s, ht_hprof *h, const ht_snapshot_opts *opts)
{
    memset(s, 0, sizeof *s);
    s->h = h;
    s->class_class = HT_NONE;
    ht_map_init(&s->utf8);
    ht_map_init(&s->loaders);
    ht_map_init(&s->frames);
    ht_map_init(&s->traces);
    ht_map_init(&s->class_serials);
    ht_build b = {.s = s, .h = h, .o = opts};
    ht_map_init(&b.load);
    ht_map_init(&b.class_of);
    ht_hprof_visitor v = {.ctx = &b, .record = on_record, .sub = on_sub};
    int rc = ht_hprof_walk(h, &s->summary, &v);
    /* each phase's end asks whether the file shrank meanwhile (hprof.h):
     * what it made of the zeros is then dropped with one message */
    if (!rc) rc = ht_hprof_check(h, number_objects(&b));
    if (!rc) rc = ht_hprof_check(h, ht_sampled_take(&b));
    if (!rc) rc = ht_hprof_check(h, ht_classes_read(&b));
    if (!rc) rc = ht_build_cancelled(&b) ? HT_HPROF_ERR_CANCELLED : ht_classes_size(&b);
    if (!rc) rc = ht_hprof_check(h, resolve_roots(&b));
    if (!rc) rc = ht_build_cancelled(&b) ? HT_HPROF_ERR_CANCELLED : ht_refs_build(&b);
    if (!rc) rc = ht_sampled_resolve(&b);
    rc = ht_hprof_check(h, rc);
    if (rc == HT_HPROF_ERR_CANCELLED) ht_hprof_error(h, rc, "cancelled");
    ht_map_free(&b.load);
    ht_map_free(&b.class_of);
    free(b.inject);
    free(b.heap_size);
    if (rc) {
        char err[sizeof h->err];
        memcpy(err, h->err, sizeof err);
        ht_snapshot_free(s);
        s->h = h;
        memcpy(h->err, err, sizeof err);
    }
    return rc;
}

void ht_snapshot_free(ht_snapshot *s)
{
    free(s->ids);
    free(s->offs);
    free(s->cls);
    free(s->size8);
    free(s->kind);
    free(s->out_start);
    free(s->out);
    free(s->in_start);
    free(s->in);
    for (uint32_t i = 0; i < s->nclasses; i++)
        free(s->classes[i].name);
    free(s->classes);
    free(s->roots);
    free(s->refpos);
    free(s->refpos_start);
    free(s->by_depth);
    free(s->bucket);
    free(s->defined);
    ht_map_free(&s->loaders);
    ht_map_free(&s->frames);
    ht_map_free(&s->traces);
    ht_map_free(&s->class_serials);
    ht_map_free(&s->utf8);
    ht_hprof_summary_free(&s->summary);
    ht_sampled_free(&s->sampled);
    memset(s, 0, sizeof *s);
}
