/* export_behaviour.c - see export_behaviour.h. */
#include "export_behaviour.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NODE_COLS[] = {
    "rank", "node",     "classes",  "units",          "objects", "mc_bytes", "md_bytes",
    "mcc",  "branches", "coverage", "retained_bytes", "flagged", NULL};
static const char *const EDGE_COLS[] = {"from", "to", "refs", "units", "dr", "cr", "kept", NULL};

/* A double that reads back to the same one ("%.17g"); "inf" past a double,
 * "" when not a number (a CR under a parent with no MD). */
static void csv_double(ht_csv *o, double v)
{
    char t[40];
    if (isfinite(v))
        snprintf(t, sizeof t, "%.17g", v);
    else if (isinf(v))
        snprintf(t, sizeof t, "%s", v > 0 ? "inf" : "-inf");
    else
        t[0] = '\0';
    ht_csv_field(o, t);
}

/* A cycle node's member classes by name, ';' between; a class node's own
 * name. NULL out of memory. */
static char *member_names(const ht_behaviour *b, const ht_snapshot *s, uint32_t n)
{
    const ht_bhv_node *x = &b->nodes[n];
    char nb[HT_BHV_NAME_MAX];
    if (x->nmembers == 0) return strdup(ht_bhv_name(b, s, n, nb, sizeof nb));
    size_t len = 1;
    for (uint32_t i = 0; i < x->nmembers; i++)
        len += strlen(s->classes[b->member[x->members + i]].name) + 1;
    char *t = malloc(len), *p = t;
    if (!t) return NULL;
    for (uint32_t i = 0; i < x->nmembers; i++) {
        const char *name = s->classes[b->member[x->members + i]].name;
        size_t k = strlen(name);
        if (i) *p++ = ';';
        memcpy(p, name, k);
        p += k;
    }
    *p = '\0';
    return t;
}

ht_export_bhv_rows *ht_export_bhv_rows_new(const ht_behaviour *b, const ht_snapshot *s,
                                           const uint32_t *nodes, uint32_t n, double t1)
{
    ht_export_bhv_rows *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (n && !(c->r = calloc(n, sizeof *c->r))) {
        free(c);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = nodes[i];
        if (k == HT_BHV_ROOT || k >= b->nnodes) continue;
        const ht_bhv_node *x = &b->nodes[k];
        ht_export_bhv_row *r = &c->r[c->n++];
        double cov = 0;
        uint32_t br = ht_bhv_branches(b, k, t1, &cov);
        char nb[HT_BHV_NAME_MAX];
        *r = (ht_export_bhv_row){
            .node = strdup(ht_bhv_name(b, s, k, nb, sizeof nb)),
            .classes = member_names(b, s, k),
            .rank = x->rank,
            .branches = br,
            .units = x->units,
            .objects = x->objects,
            .mc = x->mc,
            .retained = x->retained,
            .md = x->md,
            .mcc = x->mcc,
            .coverage = cov,
            .flagged = br == 0,
        };
        if (!r->node || !r->classes) {
            ht_export_bhv_rows_free(c);
            return NULL;
        }
    }
    return c;
}

void ht_export_bhv_rows_free(void *rows)
{
    ht_export_bhv_rows *c = rows;
    if (!c) return;
    for (uint32_t i = 0; c->r && i < c->n; i++)
        free(c->r[i].node), free(c->r[i].classes);
    free(c->r);
    free(c);
}

static void node_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const ht_export_bhv_row *r = &((const ht_export_bhv_rows *)ctx)->r[i];
    ht_csv_u64(o, r->rank);
    ht_csv_field(o, r->node);
    ht_csv_field(o, r->classes);
    ht_csv_u64(o, r->units);
    ht_csv_u64(o, r->objects);
    ht_csv_u64(o, r->mc);
    csv_double(o, r->md);
    csv_double(o, r->mcc);
    ht_csv_u64(o, r->branches);
    csv_double(o, r->coverage);
    ht_csv_u64(o, r->retained);
    ht_csv_u64(o, r->flagged);
}

int ht_export_bhv_rows_write(const void *rows, const ht_store *st, const char *path,
                             const ht_progress *p)
{
    (void)st;
    return ht_csv_write_rows(path, NODE_COLS, ((const ht_export_bhv_rows *)rows)->n, node_row, rows,
                             p);
}

int ht_export_behaviour(const ht_behaviour *b, const ht_snapshot *s, double t1, const char *path)
{
    uint32_t n = b->nnodes ? b->nnodes - 1 : 0;
    ht_export_bhv_rows *rows = ht_export_bhv_rows_new(b, s, b->ranked, n, t1);
    if (!rows) {
        errno = ENOMEM;
        return -1;
    }
    int rc = ht_export_bhv_rows_write(rows, NULL, path, NULL);
    int e = errno;
    ht_export_bhv_rows_free(rows);
    errno = e;
    return rc;
}

/* The edge rows first (by index), then one row per node with a self-edge. */
typedef struct edge_ctx {
    const ht_behaviour *b;
    const ht_snapshot *s;
    const uint32_t *selfs; /* nodes with rself > 0 */
} edge_ctx;

static void edge_row(ht_csv *o, const void *ctx, uint64_t i)
{
    const edge_ctx *c = ctx;
    if (i < c->b->nedges) {
        const ht_bhv_edge *e = &c->b->edges[i];
        char nb[HT_BHV_NAME_MAX];
        ht_csv_field(o, ht_bhv_name(c->b, c->s, e->from, nb, sizeof nb));
        ht_csv_field(o, ht_bhv_name(c->b, c->s, e->to, nb, sizeof nb));
        ht_csv_u64(o, e->refs);
        ht_csv_u64(o, e->units);
        csv_double(o, e->dr);
        csv_double(o, e->cr);
        ht_csv_u64(o, e->kept);
        return;
    }
    uint32_t n = c->selfs[i - c->b->nedges];
    char nb[HT_BHV_NAME_MAX];
    const char *name = ht_bhv_name(c->b, c->s, n, nb, sizeof nb);
    ht_csv_field(o, name);
    ht_csv_field(o, name);
    ht_csv_field(o, ""); /* references within a node are not counted, only its units */
    ht_csv_u64(o, c->b->nodes[n].rself);
    ht_csv_field(o, "");
    ht_csv_field(o, "");
    ht_csv_u64(o, 0);
}

int ht_export_behaviour_edges(const ht_behaviour *b, const ht_snapshot *s, const char *path)
{
    uint32_t nself = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        nself += b->nodes[n].rself > 0;
    edge_ctx c = {.b = b, .s = s, .selfs = NULL};
    uint32_t *selfs = malloc((nself ? nself : 1) * sizeof *selfs);
    if (!selfs) {
        errno = ENOMEM;
        return -1;
    }
    nself = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (b->nodes[n].rself) selfs[nself++] = n;
    c.selfs = selfs;
    int rc = ht_csv_write_rows(path, EDGE_COLS, (uint64_t)b->nedges + nself, edge_row, &c, NULL);
    int e = errno;
    free(selfs);
    errno = e;
    return rc;
}
