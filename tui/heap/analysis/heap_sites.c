/* heap_sites.c - see heap_sites.h. */
#include "heap_sites.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_of(uint32_t trace, uint32_t cls)
{
    return (uint64_t)trace << 32 | cls;
}

static int by_retained(const void *a, const void *b)
{
    const ht_heap_site *x = a, *y = b;
    if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
    uint64_t kx = key_of(x->trace_id, x->class_id), ky = key_of(y->trace_id, y->class_id);
    return kx < ky ? -1 : kx > ky;
}

int ht_heap_sites_build(ht_heap_sites *hs, const ht_snapshot *s, const ht_dominators *d)
{
    memset(hs, 0, sizeof *hs);
    ht_map_init(&hs->index);
    const ht_sampled *m = &s->sampled;
    if (!m->present) return HT_HPROF_OK;
    hs->v = calloc(m->present, sizeof *hs->v);
    if (!hs->v) return HT_HPROF_ERR_NOMEM;
    for (uint32_t k = 0; k < m->present; k++) {
        const ht_sample_obj *o = &m->v[m->by_obj[k]];
        uint64_t key = key_of(o->trace_id, o->class_id), at;
        if (!ht_map_get(&hs->index, key, &at)) {
            at = hs->n++;
            hs->v[at].trace_id = o->trace_id;
            hs->v[at].class_id = o->class_id;
            if (ht_map_put(&hs->index, key, at) != 0) return HT_HPROF_ERR_NOMEM;
        }
        ht_heap_site *site = &hs->v[at];
        site->samples++;
        site->instances += o->instances;
        site->shallow += o->instances * (double)ht_snapshot_shallow(s, o->obj);
        site->retained += o->instances * (double)d->retained[o->obj];
    }
    hs->bound = (double)s->total_bytes;
    for (uint32_t i = 0; i < hs->n; i++) {
        hs->v[i].over = hs->v[i].retained > hs->bound;
        hs->nover += (uint32_t)hs->v[i].over;
    }
    qsort(hs->v, hs->n, sizeof *hs->v, by_retained);
    ht_map_clear(&hs->index);
    for (uint32_t i = 0; i < hs->n; i++)
        if (ht_map_put(&hs->index, key_of(hs->v[i].trace_id, hs->v[i].class_id), i) != 0)
            return HT_HPROF_ERR_NOMEM;
    return HT_HPROF_OK;
}

void ht_heap_sites_free(ht_heap_sites *hs)
{
    free(hs->v);
    ht_map_free(&hs->index);
    memset(hs, 0, sizeof *hs);
}

const ht_heap_site *ht_heap_sites_find(const ht_heap_sites *hs, uint32_t trace, uint32_t cls)
{
    uint64_t at;
    return hs->n && ht_map_get(&hs->index, key_of(trace, cls), &at) ? &hs->v[at] : NULL;
}
