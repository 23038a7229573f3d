/* source_lines.c - see source_lines.h. */
#include "source_lines.h"

#include "export_lines.h"
#include "hashmap.h"
#include "outdir.h"
#include "shown.h"
#include "source_find.h"
#include "source_margin.h"
#include "source_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file the frames are in, and the rows through it, per column. */
typedef struct lfile {
    char *rel;       /* pkg/Outer.java */
    uint32_t method; /* one of its methods: its class and SourceFile find it */
    uint32_t lines;  /* the largest line a frame names (at most HT_LINES_MAX_LINE) */
    uint32_t *rows[HT_MARGIN_COLS], nrows[HT_MARGIN_COLS], cap[HT_MARGIN_COLS];
    uint32_t last[HT_MARGIN_COLS]; /* the last row added, + 1 */
} lfile;

typedef struct lines {
    const ht_store *s;
    lfile *f;
    uint32_t n, cap;
    ht_map by_method; /* method id -> file index + 1, or 0: in no file */
    ht_map by_name;   /* hash of rel (salted on a collision) -> file index */
} lines;

static void lines_free(lines *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        free(l->f[i].rel);
        for (int c = 0; c < HT_MARGIN_COLS; c++)
            free(l->f[i].rows[c]);
    }
    free(l->f);
    ht_map_free(&l->by_method);
    ht_map_free(&l->by_name);
}

/* The file of method id: *out its index + 1, or 0 when its code is in no
 * file a name can be made for. 0, or -1 out of memory. */
static int file_of(lines *l, uint32_t id, uint64_t *out)
{
    if (ht_map_get(&l->by_method, id, out)) return 0;
    *out = 0;
    const ht_smethod *m = ht_store_method(l->s, id);
    char rel[HT_SOURCE_REL_MAX], err[700];
    if (m && m->cls && ht_source_rel(m->cls, m->src, rel, sizeof rel, err, sizeof err) == 0) {
        uint64_t h = ht_hash_bytes(rel, strlen(rel)), at;
        uint32_t salt = 0;
        for (;; salt++) { /* a name's key, or the first free one of its salts */
            uint64_t key = ht_map_salt(h, salt);
            if (!ht_map_get(&l->by_name, key, &at)) break;
            if (strcmp(l->f[at].rel, rel) == 0) {
                *out = at + 1;
                break;
            }
        }
        if (!*out) {
            if (l->n == l->cap) {
                uint32_t cap = l->cap ? l->cap * 2 : 64;
                lfile *grown = realloc(l->f, cap * sizeof *grown);
                if (!grown) return -1;
                l->f = grown;
                l->cap = cap;
            }
            lfile *f = &l->f[l->n];
            *f = (lfile){.rel = strdup(rel), .method = id};
            if (!f->rel || ht_map_put(&l->by_name, ht_map_salt(h, salt), l->n) != 0) {
                free(f->rel);
                return -1;
            }
            *out = ++l->n;
        }
    }
    return ht_map_put(&l->by_method, id, *out);
}

/* Row i of column c noted in file f (once however many frames it has there). */
static int note_row(lfile *f, ht_margin_col c, uint32_t i)
{
    if (f->last[c] == i + 1) return 0;
    if (f->nrows[c] == f->cap[c]) {
        uint32_t cap = f->cap[c] ? f->cap[c] * 2 : 16;
        uint32_t *grown = realloc(f->rows[c], cap * sizeof *grown);
        if (!grown) return -1;
        f->rows[c] = grown;
        f->cap[c] = cap;
    }
    f->rows[c][f->nrows[c]++] = i;
    f->last[c] = i + 1;
    return 0;
}

/* Every row of every column noted in the files its frames are in. */
static int collect(lines *l)
{
    for (int c = 0; c < HT_MARGIN_COLS; c++) {
        uint32_t n = ht_store_stack_rows(l->s, (ht_margin_col)c);
        for (uint32_t i = 0; i < n; i++) {
            ht_stack st;
            if (!ht_store_stack_at(l->s, (ht_margin_col)c, i, &st)) continue;
            for (uint32_t k = 0; k < st.depth; k++) {
                int32_t line = st.frames[k].line;
                uint64_t at;
                if (line < 1 || (uint32_t)line > HT_LINES_MAX_LINE) continue;
                if (file_of(l, st.frames[k].method_id, &at) != 0) return -1;
                if (!at) continue;
                lfile *f = &l->f[at - 1];
                if ((uint32_t)line > f->lines) f->lines = (uint32_t)line;
                if (note_row(f, (ht_margin_col)c, i) != 0) return -1;
            }
        }
    }
    return 0;
}

/* The margin's iteration over one file's rows of one column. */
typedef struct file_rows {
    const ht_store *s;
    const lfile *f;
    ht_margin_col col;
    uint32_t at;
} file_rows;

static int file_next(void *ctx, ht_stack *out)
{
    file_rows *r = ctx;
    while (r->at < r->f->nrows[r->col])
        if (ht_store_stack_at(r->s, r->col, r->f->rows[r->col][r->at++], out)) return 1;
    return 0;
}

typedef struct in_ctx {
    lines *l;
    uint32_t file; /* index + 1 */
} in_ctx;

static int in_this_file(void *ctx, uint32_t method_id)
{
    in_ctx *c = ctx;
    uint64_t at = 0;
    return ht_map_get(&c->l->by_method, method_id, &at) && at == c->file;
}

static int by_name(const void *a, const void *b, void *ctx)
{
    const lines *l = ctx;
    return strcmp(l->f[*(const uint32_t *)a].rel, l->f[*(const uint32_t *)b].rel);
}

/* File i's lines with figures written to o: 1 found, 0 found nowhere, -1
 * out of memory. */
static int write_file(lines *l, uint32_t i, const ht_source_path *p, ht_csv *o, uint64_t *rows)
{
    lfile *f = &l->f[i];
    const ht_smethod *m = ht_store_method(l->s, f->method);
    ht_source_found *found = calloc(1, sizeof *found);
    if (!found) return -1;
    char err[4400];
    int ok = m && ht_source_find(p, m->cls, m->src, found, err, sizeof err) == 0;
    const ht_source_text *t = ok ? &found->text : NULL;
    /* the frames' lines past a file's end (another version) keep their figures */
    uint32_t n = t && t->nlines > f->lines ? t->nlines : f->lines;
    if (n > HT_LINES_MAX_LINE) n = HT_LINES_MAX_LINE;
    ht_margin g;
    if (ht_margin_init(&g, n) != 0) {
        ht_source_found_free(found);
        free(found);
        return -1;
    }
    in_ctx in = {.l = l, .file = i + 1};
    int rc = 0;
    for (int c = 0; c < HT_MARGIN_COLS && rc == 0; c++) {
        file_rows fr = {.s = l->s, .f = f, .col = (ht_margin_col)c};
        ht_stacks it = {.next = file_next, .ctx = &fr};
        rc = ht_margin_add(&g, (ht_margin_col)c, &it, in_this_file, &in);
    }
    for (uint32_t k = 0; k < n && rc == 0; k++) {
        const ht_margin_line *ml = &g.lines[k];
        if (ml->incl[HT_MARGIN_ALLOC] <= 0 && ml->incl[HT_MARGIN_CPU] <= 0) continue;
        int has = t && k < t->nlines;
        ht_export_lines_row(o, f->rel, k + 1, ml->incl[HT_MARGIN_ALLOC], ml->incl[HT_MARGIN_CPU],
                            has ? t->bytes + t->start[k] : NULL, has ? t->length[k] : 0);
        (*rows)++;
    }
    ht_margin_free(&g);
    ht_source_found_free(found);
    free(found);
    return rc != 0 ? -1 : ok;
}

int ht_source_lines_write(const ht_store *s, const ht_source_path *given, uint32_t pid,
                          const char *dir, char *say, size_t sayn)
{
    char path[4200], shown[HT_SHOWN_MAX], zip[4200], jdk_why[1200] = "";
    snprintf(path, sizeof path, "%s/lines.csv", dir);
    ht_shown(path, shown, sizeof shown);
    ht_source_path p;
    ht_source_path_init(&p);
    lines l = {.s = s};
    ht_map_init(&l.by_method);
    ht_map_init(&l.by_name);
    uint32_t *order = NULL;
    ht_csv o;
    int opened = 0, rc = -1, e = ENOMEM;
    if (ht_source_path_copy(&p, given) != 0) goto out;
    if (ht_source_jdk_zip(pid, s->info.jdk_version, zip, sizeof zip, jdk_why, sizeof jdk_why) ==
        0) {
        if (ht_source_path_add(&p, zip, HT_SOURCE_ZIP, 1) != 0) goto out;
        jdk_why[0] = '\0';
    }
    if (collect(&l) != 0 || !(order = malloc(((size_t)l.n + 1) * sizeof *order))) goto out;
    for (uint32_t i = 0; i < l.n; i++)
        order[i] = i;
    qsort_r(order, l.n, sizeof *order, by_name, &l);
    if (ht_export_lines_open(&o, path) != 0) {
        e = errno;
        goto out;
    }
    opened = 1;
    uint64_t rows = 0;
    uint32_t files = 0, missing = 0;
    char names[600] = "";
    size_t nl = 0;
    for (uint32_t j = 0; j < l.n; j++) {
        uint64_t before = rows;
        int found = write_file(&l, order[j], &p, &o, &rows);
        if (found < 0) goto out;
        if (rows == before) continue; /* no line of it has figures */
        files++;
        if (found) continue;
        if (missing++ < 5 && nl < sizeof names)
            nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "",
                                   l.f[order[j]].rel);
    }
    opened = 0;
    if (ht_csv_close(&o) != 0) {
        e = errno;
        goto out;
    }
    rc = 0;
    int len = snprintf(say, sayn, "wrote %s: %llu lines of %u files", shown,
                       (unsigned long long)rows, files);
    if (missing && len > 0 && (size_t)len < sayn)
        len += snprintf(say + len, sayn - (size_t)len, "; %u found nowhere (no text): %s%s",
                        missing, names, missing > 5 ? ", ..." : "");
    if (jdk_why[0] && len > 0 && (size_t)len < sayn)
        snprintf(say + len, sayn - (size_t)len, "; the JDK's sources: %s", jdk_why);
out:
    if (opened) ht_csv_abort(&o);
    if (rc != 0) {
        char why[HT_SHOWN_MAX + 512];
        if (e == ENOMEM)
            snprintf(why, sizeof why, "out of memory");
        else
            ht_outdir_why(dir, e ? e : EIO, why, sizeof why);
        snprintf(say, sayn, "%s (lines.csv)", why);
    }
    free(order);
    lines_free(&l);
    ht_source_path_free(&p);
    return rc;
}
