/*
 * layout.c - shallow object sizes as HotSpot lays objects out (see layout.h).
 *
 * HotSpot keeps a linked list of blocks (header, fields, EMPTY gaps, and one
 * EMPTY block without end); for a size only the gaps and where the last field
 * ends matter, so that is all this keeps: `holes`, sorted by offset, and
 * `tail`. The super's layout rebuilt by reconstruct_layout + fill_holes is
 * exactly the one the previous level left (gaps never touch: each is followed
 * by a field), so one state walks down the hierarchy.
 *
 * Fields of one size are interchangeable, so a level is counted by size
 * (8, 4, 2, 1, then references) instead of sorted: a run of n fields of size
 * s searches the holes field by field while that succeeds, and once a search
 * fails the rest of the run is appended in one step, as FieldLayout::add
 * does. Each successful search uses at least s bytes of gaps, which are fewer
 * than 8 bytes each, so a level costs O(fields + gap bytes * holes).
 */
#include "layout.h"

#include <stdlib.h>
#include <string.h>

const ht_layout HT_LAYOUT_COMPRESSED = {"compressed oops", 12, 4, 12, 16, 16, 8};
const ht_layout HT_LAYOUT_UNCOMPRESSED = {"uncompressed oops", 12, 8, 12, 16, 16, 8};
const ht_layout HT_LAYOUT_COMPACT = {"compact headers", 8, 4, 8, 12, 16, 8};

const ht_layout *ht_layout_by_name(const char *name)
{
    static const struct {
        const char *name;
        const ht_layout *layout;
    } all[] = {{"compressed", &HT_LAYOUT_COMPRESSED},
               {"uncompressed", &HT_LAYOUT_UNCOMPRESSED},
               {"compact", &HT_LAYOUT_COMPACT}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, all[i].name) == 0) return all[i].layout;
    return NULL;
}

/* Past this a layout is absurd; stop and saturate rather than compute on. */
#define LAYOUT_LIMIT ((uint64_t)UINT32_MAX)

unsigned ht_layout_type_size(const ht_layout *L, unsigned type)
{
    switch (type) {
    case HT_TYPE_OBJECT:
        return L ? L->oop : 0;
    case HT_TYPE_BOOLEAN:
    case HT_TYPE_BYTE:
        return 1;
    case HT_TYPE_CHAR:
    case HT_TYPE_SHORT:
        return 2;
    case HT_TYPE_FLOAT:
    case HT_TYPE_INT:
        return 4;
    case HT_TYPE_DOUBLE:
    case HT_TYPE_LONG:
        return 8;
    default:
        return 0;
    }
}

/* HPROF type code -> where ht_layout_instance_size counts it: [1] [2] [4] [8]
 * primitives by size, [3] references, [0] no type. */
static const uint8_t slot[12] = {0, 0, 3, 0, 1, 2, 4, 8, 1, 2, 4, 8};

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return a > 1 ? (x + a - 1) / a * a : x;
}

static unsigned object_align(const ht_layout *L)
{
    return L->align ? L->align : 8;
}

/* align_up(x, 8) then to the object alignment, as the epilogue and
 * align_object_size do; saturates. */
static uint32_t object_size(const ht_layout *L, uint64_t end)
{
    if (end > LAYOUT_LIMIT) return UINT32_MAX;
    uint64_t s = align_up(align_up(end, 8), object_align(L));
    return s > LAYOUT_LIMIT ? UINT32_MAX : (uint32_t)s;
}

uint64_t ht_layout_array_size(const ht_layout *L, unsigned elem_type, uint64_t length)
{
    if (!L) return 0;
    unsigned es = ht_layout_type_size(L, elem_type);
    if (!es) return 0;
    uint64_t base = es == 8 ? L->array_base8 : L->array_base;
    uint64_t a = object_align(L);
    if (length > (UINT64_MAX - base - 2 * a - 8) / es) return UINT64_MAX;
    return align_up(align_up(base + length * es, 8), a);
}

/* --- Instance fields: the gaps and the end of a layout being built. */

typedef struct hole {
    uint64_t off;
    uint32_t size;
} hole;

#define INLINE_HOLES 64

typedef struct lay {
    uint64_t tail; /* where the EMPTY block without end starts */
    hole *h;       /* sorted by offset, none touching another */
    size_t n, cap;
    int oom;
    hole inl[INLINE_HOLES];
} lay;

/* Room for one more hole. There is never more than one hole per field (each
 * is followed by a field), so this grows with the input, never past it. */
static int reserve(lay *y)
{
    if (y->n < y->cap) return 1;
    size_t cap = y->cap * 2;
    hole *h = y->h == y->inl ? malloc(cap * sizeof *h) : realloc(y->h, cap * sizeof *h);
    if (!h) {
        y->oom = 1;
        return 0;
    }
    if (y->h == y->inl) memcpy(h, y->inl, y->n * sizeof *h);
    y->h = h;
    y->cap = cap;
    return 1;
}

static uint32_t pad_for(uint64_t off, unsigned a)
{
    return off % a ? (uint32_t)(a - off % a) : 0;
}

/* FieldLayout::add's search: the smallest hole the field fits with its
 * alignment, from the end back (so the highest offset among equals); -1 if
 * none. LayoutRawBlock::fit: size >= field + alignment adjustment. */
static long best_hole(const lay *y, unsigned s)
{
    long best = -1;
    for (size_t i = y->n; i-- > 0;) {
        const hole *c = &y->h[i];
        if ((uint64_t)c->size >= (uint64_t)s + pad_for(c->off, s) &&
            (best < 0 || c->size < y->h[best].size))
            best = (long)i;
    }
    return best;
}

/* insert_field_block into hole i: an alignment gap stays EMPTY before the
 * field, what is left after it stays EMPTY, an empty remainder goes. */
static int fill(lay *y, size_t i, unsigned s)
{
    hole c = y->h[i];
    uint32_t adj = pad_for(c.off, s);
    uint32_t rest = c.size - adj - s;
    hole parts[2];
    size_t np = 0;
    if (adj) parts[np++] = (hole){c.off, adj};
    if (rest) parts[np++] = (hole){c.off + adj + s, rest};
    if (np == 2 && !reserve(y)) return 0;
    /* replace the one entry at i by the np parts, keeping the order */
    memmove(&y->h[i + np], &y->h[i + 1], (y->n - i - 1) * sizeof *y->h);
    memcpy(&y->h[i], parts, np * sizeof *parts);
    y->n = y->n - 1 + np;
    return 1;
}

/* Append n fields of size s at the end: the first after an alignment gap
 * (a new hole), the others follow it without one. */
static int append(lay *y, unsigned s, uint64_t n)
{
    uint32_t adj = pad_for(y->tail, s);
    if (adj) {
        if (!reserve(y)) return 0;
        y->h[y->n++] = (hole){y->tail, adj};
        y->tail += adj;
    }
    y->tail += n * s;
    return 1;
}

/* A run of n fields of size (and alignment) s, as FieldLayout::add places
 * them: a search per field until one fails, then the rest appended. */
static int place(lay *y, unsigned s, uint64_t n)
{
    while (n > 0) {
        long i = best_hole(y, s);
        if (i < 0) return append(y, s, n);
        if (!fill(y, (size_t)i, s)) return 0;
        n--;
    }
    return 1;
}

/* One level of nt fields of types t added to y. */
static void add_level(lay *y, const ht_layout *L, const uint8_t *t, uint32_t nt)
{
    uint64_t by_size[9] = {0};
    for (uint32_t k = 0; t && k < nt; k++)
        by_size[t[k] < 12 ? slot[t[k]] : 0]++;
    uint64_t refs = by_size[3];
    /* compute_regular_layout: primitives largest first, then oops, each list
     * a separate add() (so a failed search does not carry over) */
    static const unsigned sizes[] = {8, 4, 2, 1};
    for (int k = 0; k < 4 && !y->oom; k++)
        if (by_size[sizes[k]]) place(y, sizes[k], by_size[sizes[k]]);
    if (refs && L->oop && !y->oom) place(y, L->oop, refs);
}

static void lay_init(lay *y, uint64_t tail)
{
    y->tail = tail;
    y->h = y->inl;
    y->n = 0;
    y->cap = INLINE_HOLES;
    y->oom = 0;
}

uint32_t ht_layout_instance_size(const ht_layout *L, const uint8_t *const *types,
                                 const uint32_t *ntypes, unsigned nlevels)
{
    if (!L) return 0;
    lay y;
    lay_init(&y, L->header);
    for (unsigned lv = 0; lv < nlevels && types && ntypes; lv++) {
        add_level(&y, L, types[lv], types[lv] ? ntypes[lv] : 0);
        if (y.oom || y.tail > LAYOUT_LIMIT) break;
    }
    if (y.h != y.inl) free(y.h);
    return y.oom ? 0 : object_size(L, y.tail);
}

int ht_layout_extend(const ht_layout *L, const ht_layout_fields *super, const uint8_t *types,
                     uint32_t ntypes, ht_layout_fields *out)
{
    if (!L) return -1;
    lay y;
    lay_init(&y, super ? super->tail : L->header);
    for (uint32_t i = 0; super && i < super->ngaps && i < HT_LAYOUT_GAPS; i++)
        y.h[y.n++] = (hole){super->gap_off[i], super->gap_size[i]};
    if (y.tail <= LAYOUT_LIMIT) add_level(&y, L, types, ntypes);
    int rc = y.oom || y.n > HT_LAYOUT_GAPS ? -1 : 0;
    if (!rc) {
        out->tail = y.tail > LAYOUT_LIMIT ? LAYOUT_LIMIT + 1 : y.tail;
        out->ngaps = (uint32_t)y.n;
        for (size_t i = 0; i < y.n; i++) /* gaps are under 8 bytes, below the tail */
            out->gap_off[i] = (uint32_t)y.h[i].off, out->gap_size[i] = (uint8_t)y.h[i].size;
    }
    if (y.h != y.inl) free(y.h);
    return rc;
}

uint32_t ht_layout_fields_size(const ht_layout *L, const ht_layout_fields *f)
{
    return L ? object_size(L, f->tail) : 0;
}

uint32_t ht_layout_mirror_size(const ht_layout *L, uint32_t class_base, const uint8_t *static_types,
                               uint32_t nstatic)
{
    if (!L) return 0;
    uint64_t prim[9] = {0};
    for (uint32_t k = 0; static_types && k < nstatic; k++)
        prim[static_types[k] < 12 ? slot[static_types[k]] : 0]++;
    uint64_t refs = prim[3];
    /* The static layout's start is its end block: add_contiguously(oops) and
     * add(primitives) only ever append, each after its alignment gap. */
    uint64_t end = align_up(class_base, 8);
    if (refs && L->oop) end = align_up(end, L->oop) + refs * L->oop;
    static const unsigned sizes[] = {8, 4, 2, 1};
    for (int k = 0; k < 4; k++)
        if (prim[sizes[k]]) end = align_up(end, sizes[k]) + prim[sizes[k]] * sizes[k];
    return object_size(L, end);
}
