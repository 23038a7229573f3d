/* live_map.c - see live_map.h. */
#include "live_map.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t tag, size_t mask)
{
    return (size_t)ht_mix64(tag) & mask;
}

int ht_live_init(ht_live_map *m, size_t max_count)
{
    memset(m, 0, sizeof *m);
    m->max_count = max_count;
    m->mask = 1023;
    m->slots = calloc(m->mask + 1, sizeof *m->slots);
    return m->slots ? 0 : -1;
}

void ht_live_destroy(ht_live_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static void insert_raw(ht_live_entry *slots, size_t mask, const ht_live_entry *e)
{
    size_t i = slot_of(e->tag, mask);
    while (slots[i].tag != 0)
        i = (i + 1) & mask;
    slots[i] = *e;
}

static int grow(ht_live_map *m)
{
    size_t nmask = m->mask * 2 + 1;
    ht_live_entry *ns = calloc(nmask + 1, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i <= m->mask; i++)
        if (m->slots[i].tag) insert_raw(ns, nmask, &m->slots[i]);
    free(m->slots);
    m->slots = ns;
    m->mask = nmask;
    return 0;
}

int ht_live_full(const ht_live_map *m)
{
    return m->count >= m->max_count;
}

int ht_live_put(ht_live_map *m, uint64_t tag, uint32_t agg, double bytes, double instances)
{
    if (tag == 0 || m->count >= m->max_count) return -1;
    if ((m->count + 1) * 2 > m->mask + 1 && grow(m) != 0) return -1;
    ht_live_entry e = {tag, agg, 0, bytes, instances};
    insert_raw(m->slots, m->mask, &e);
    m->count++;
    return 0;
}

int ht_live_take(ht_live_map *m, uint64_t tag, ht_live_entry *out)
{
    if (tag == 0) return 0;
    size_t i = slot_of(tag, m->mask);
    while (m->slots[i].tag != tag) {
        if (m->slots[i].tag == 0) return 0;
        i = (i + 1) & m->mask;
    }
    *out = m->slots[i];
    /* Backward-shift deletion keeps every probe chain unbroken without tombstones. */
    size_t hole = i;
    size_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (m->slots[j].tag == 0) break;
        size_t home = slot_of(m->slots[j].tag, m->mask);
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        int in_range = (hole <= j) ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            m->slots[hole] = m->slots[j];
            hole = j;
        }
    }
    m->slots[hole].tag = 0;
    m->count--;
    return 1;
}
