/*
 * dup_holders.c - who holds the copies of a duplicate group
 * (ht_dups_holders, duplicates.h): the copies' referrers named by class and
 * field, counted per name. Runs on the caller's thread (the UI's, on
 * Enter), reads the snapshot only.
 */
#include "duplicates.h"

#include "hashmap.h"
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct holders {
    ht_dup_holder *rows;
    uint32_t *last; /* by row: 1 + the copy it last counted */
    uint32_t n, cap;
    ht_map idx; /* hash of a name (salted on a clash) -> row */
} holders;

static int held(holders *w, const char *name, uint32_t copy)
{
    uint64_t h = ht_hash_bytes(name, strlen(name)), v;
    uint32_t salt = 0;
    for (; ht_map_get(&w->idx, ht_map_salt(h, salt), &v); salt++)
        if (strcmp(w->rows[v].name, name) == 0) {
            if (w->last[v] != copy + 1) w->rows[v].copies++, w->last[v] = copy + 1;
            return 0;
        }
    if (w->n == w->cap) {
        uint32_t cap = w->cap * 2 + 16;
        ht_dup_holder *r = realloc(w->rows, cap * sizeof *r);
        if (!r) return -1;
        w->rows = r;
        uint32_t *l = realloc(w->last, cap * sizeof *l);
        if (!l) return -1;
        w->last = l, w->cap = cap;
    }
    if (ht_map_put(&w->idx, ht_map_salt(h, salt), w->n) != 0) return -1;
    ht_dup_holder *r = &w->rows[w->n];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->copies = 1, r->example = copy;
    w->last[w->n++] = copy + 1;
    return 0;
}

/* The name of what object p holds copy x by. */
static void holder_name(const ht_snapshot *s, uint32_t p, uint32_t x, char *buf, size_t cap)
{
    char field[200], label[200];
    if (s->kind[p] == HT_OBJ_OBJ_ARRAY) {
        ht_object_label(s, p, label, sizeof label);
        snprintf(buf, cap, "%.200s element", label);
        return;
    }
    uint32_t k = ht_ref_index(s, p, x);
    if (k == HT_NONE)
        snprintf(field, sizeof field, "?");
    else
        ht_snapshot_ref_name(s, p, k, field, sizeof field);
    if (s->kind[p] == HT_OBJ_CLASS) {
        uint32_t c = ht_snapshot_class_index(s, p);
        const char *cn = c != HT_NONE ? s->classes[c].name : "?";
        if (strncmp(field, "static ", 7) == 0)
            snprintf(buf, cap, "static %.110s.%.110s", cn, field + 7);
        else
            snprintf(buf, cap, "%.110s %.110s", cn, field);
        return;
    }
    ht_object_label(s, p, label, sizeof label);
    snprintf(buf, cap, "%.110s.%.110s", label, field);
}

static int by_copies(const void *a, const void *b)
{
    const ht_dup_holder *x = a, *y = b;
    if (x->copies != y->copies) return x->copies < y->copies ? 1 : -1;
    return strcmp(x->name, y->name);
}

int ht_dups_holders(const ht_snapshot *s, const ht_dups *g, uint32_t gi, ht_dup_holder **out,
                    uint32_t *n)
{
    *out = NULL, *n = 0;
    if (gi >= g->ngroups) return 0;
    const ht_dup_group *gr = &g->groups[gi];
    const uint32_t *m = g->members + gr->first;
    holders w = {0};
    ht_map_init(&w.idx);
    ht_map copies; /* copy -> 1 */
    ht_map_init(&copies);
    char name[240];
    int rc = ht_map_reserve(&copies, gr->copies);
    for (uint32_t i = 0; !rc && i < gr->copies; i++)
        rc = ht_map_put(&copies, m[i], 1);
    for (uint32_t r = 0; !rc && r < s->nroots; r++)
        if (ht_map_get(&copies, s->roots[r].obj, NULL)) {
            snprintf(name, sizeof name, "GC root (%s)", ht_root_kind_name(s->roots[r].kind));
            rc = held(&w, name, s->roots[r].obj);
            if (!rc) rc = ht_map_put(&copies, s->roots[r].obj, 2);
        }
    for (uint32_t i = 0; !rc && i < gr->copies; i++) {
        uint32_t x = m[i], a = s->in_start[x], b = s->in_start[x + 1];
        int any = 0;
        for (uint32_t e = a; !rc && e < b; e++) {
            uint32_t p = s->in[e];
            if (e > a && s->in[e - 1] == p) continue; /* p holds it twice */
            holder_name(s, p, x, name, sizeof name);
            rc = held(&w, name, x);
            any = 1;
        }
        uint64_t v = 0;
        if (!rc && !any && ht_map_get(&copies, x, &v) && v != 2)
            rc = held(&w, "nothing (unreachable)", x);
    }
    ht_map_free(&copies);
    ht_map_free(&w.idx);
    free(w.last);
    if (rc) {
        free(w.rows);
        return -1;
    }
    qsort(w.rows, w.n, sizeof *w.rows, by_copies);
    *out = w.rows, *n = w.n;
    return 0;
}
