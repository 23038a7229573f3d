/* screen_refs_export.c - the reference browser's export (screen_refs_rows.h):
 * a copy of the rows shown, each with its part and the id of the object it
 * names, written as CSV by a job (export_heap.h's layout). UI thread (the
 * copy); the job's thread (the writing). */
#include "screen_refs_rows.h"

#include <stdio.h>

int ht_refs_export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)h, (void)names;
    refs_screen *v = self;
    int live = ht_heaplist_current(&v->src);
    ht_export_heap_refs *e = ht_export_heap_refs_new(live ? v->nrows : 0);
    if (!e) return -1;
    for (uint32_t i = 0; live && i < v->nrows; i++, e->n++) {
        const ref_row *r = &v->rows[i];
        ht_export_ref_row *o = &e->r[i];
        o->part = r->kind;
        o->depth = r->depth;
        o->has_id = r->obj != HT_NONE;
        o->id = o->has_id ? v->src.x->s.ids[r->obj] : 0;
        snprintf(o->text, sizeof o->text, "%s", r->text);
    }
    ht_heaplist_export(req, NULL, "references", NULL, 0, e, ht_export_heap_refs_write,
                       ht_export_heap_refs_free);
    return 0;
}
