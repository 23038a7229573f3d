/* screen_refs_export.c - the reference browser's export (screen_refs_rows.h):
 * a copy of the rows shown, written as CSV by a job. UI thread (the copy);
 * the job's thread (the writing). */
#include "screen_refs_rows.h"

#include "export_csv.h"

#include <stdlib.h>
#include <string.h>

typedef struct refs_export {
    uint32_t n;
    ref_row *rows;
    uint64_t *row_ids; /* the id of the object each row names (0: none) */
} refs_export;

static void free_export(void *p)
{
    refs_export *e = p;
    free(e->rows);
    free(e->row_ids);
    free(e);
}

static void refs_export_row(ht_csv *o, const void *ctx, uint64_t i)
{
    static const char *const parts[] = {"heading",    "field", "referenced_by",
                                        "references", "path",  "more"};
    const refs_export *e = ctx;
    const ref_row *r = &e->rows[i];
    ht_csv_field(o, parts[r->kind]);
    ht_csv_u64(o, r->depth);
    if (r->obj == HT_NONE)
        ht_csv_field(o, "");
    else
        ht_csv_object_id(o, e->row_ids[i]);
    const char *t = r->text;
    while (*t == ' ')
        t++;
    ht_csv_field(o, t);
}

static int write_export(const void *p, const ht_store *st, const char *path, const ht_progress *pr)
{
    (void)st;
    static const char *const cols[] = {"part", "depth", "object_id", "text", NULL};
    return ht_csv_write_rows(path, cols, ((const refs_export *)p)->n, refs_export_row, p, pr);
}

int ht_refs_export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)h, (void)names;
    refs_screen *v = self;
    refs_export *e = calloc(1, sizeof *e);
    if (!e) return -1;
    if (ht_refs_current(v) && v->nrows) {
        e->rows = malloc(v->nrows * sizeof *e->rows);
        e->row_ids = malloc(v->nrows * sizeof *e->row_ids);
        if (!e->rows || !e->row_ids) {
            free_export(e);
            return -1;
        }
        memcpy(e->rows, v->rows, v->nrows * sizeof *e->rows);
        for (uint32_t i = 0; i < v->nrows; i++)
            e->row_ids[i] = v->rows[i].obj == HT_NONE ? 0 : v->x->s.ids[v->rows[i].obj];
        e->n = v->nrows;
    }
    req->view = "references";
    req->rows = e;
    req->write = write_export;
    req->free_rows = free_export;
    return 0;
}
