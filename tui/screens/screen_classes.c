/*
 * screen_classes.c - the class table screen.
 *
 * Owns: the class table (one row per class, summed over sites, the lens's
 * class filter applied), its sort, the cursor, and the column layout last
 * drawn. Draws the numeric columns that fit (list.c decides, the sorted one
 * always among them; the sorted column is marked in the title row, which is
 * also a click target for sorting), then the class name, which keeps up to
 * half the line so that names are not cut before numbers are dropped. The
 * cursor stays on its class as rows move, as htop's stays on a process.
 * Enter opens the tree of the class under the cursor; Esc there comes back.
 * How sure each row is: SAMPLES and LIVE SMP, the samples its figures rest
 * on; a row whose sorted figure rests on fewer than HT_FEW_SAMPLES is dimmed
 * (one standard error over 30%), and a figure above the bound the data give
 * (columns.h: LIVE above the heap's used bytes) shows HT_COL_OVER_MARK, said
 * in the title row. UI thread only.
 */
#include "screen_classes.h"

#include "list.h"
#include "screen_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *create(void)
{
    ht_classes_screen *v = calloc(1, sizeof *v);
    if (v) ht_class_table_init(&v->table);
    return v;
}

static void destroy(void *self)
{
    ht_classes_screen *v = self;
    ht_class_table_free(&v->table);
    free(v);
}

/* The class under the cursor, to find it again after the rows moved. */
static void cursor_class(const ht_classes_screen *v, char *out, size_t n)
{
    out[0] = '\0';
    if (v->pos.cursor < v->table.nrows) snprintf(out, n, "%s", v->table.rows[v->pos.cursor].name);
}

static void find_class(ht_classes_screen *v, const char *name)
{
    uint32_t at = ht_class_table_find(&v->table, name);
    if (at != UINT32_MAX) v->pos.cursor = at;
}

static int build(void *self, const ht_build_ctx *b)
{
    ht_classes_screen *v = self;
    char keep[512];
    cursor_class(v, keep, sizeof keep);
    int rc = ht_class_table_build(&v->table, b->store, &b->lens->class_filter);
    find_class(v, keep);
    return rc;
}

static void draw(void *self, const ht_draw_ctx *d)
{
    ht_classes_screen *v = self;
    const ht_ui *ui = d->ui;
    ht_class_table *t = &v->table;
    int name_min = t->name_max + 1 < ui->cols / 2 ? t->name_max + 1 : ui->cols / 2;
    ht_col columns[HT_COL_COUNT]; /* the classes', from columns.h's table */
    int ncolumns = ht_col_view(HT_VIEW_CLASSES, 0, columns, HT_COL_COUNT);
    ht_list_layout(d, &v->cols, columns, ncolumns, t->max_abs, t->has_neg, t->sort_col, name_min);
    ht_list_title(d, &v->cols, t->sort_col, t->ascending,
                  t->over ? " CLASS  (" HT_COL_OVER_MARK
                            ": an estimate above the heap's used bytes: too few samples)"
                          : " CLASS");
    int rows = d->height - 1, top = d->top;
    ht_list_fit(&v->pos, &v->shown, t->nrows, rows);
    if (t->nrows == 0) {
        ht_ui_put(stdscr, top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM),
                  d->store->nrows ? "  no class matches the filter" : ht_no_samples_text(d), 1);
        return;
    }
    for (int r = 0; r < rows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        if (i >= t->nrows) break;
        const ht_class_row *row = &t->rows[i];
        char line[1200];
        size_t len = ht_list_cells(d, &v->cols, row->v, line, sizeof line);
        ht_col_mark_over(&v->cols, row->over, line, len);
        snprintf(line + len, sizeof line - len, " %s", row->name);
        int sel = i == v->pos.cursor;
        /* few samples behind the figure sorted by: dimmed */
        ht_color role = ht_col_few(row->v, t->sort_col) ? HT_C_DIM : HT_C_NORMAL;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols, ht_ui_attr(ui, sel ? HT_C_SELECTED : role),
                  line, 1);
    }
    ht_list_more(d, &v->pos, t->nrows, top, rows);
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    ht_classes_screen *v = self;
    *n = v->table.nrows;
    return &v->pos;
}

static ht_col column_at(void *self, int x)
{
    return ht_col_layout_at(&((ht_classes_screen *)self)->cols, x);
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    (void)h;
    ht_classes_screen *v = self;
    char keep[512];
    cursor_class(v, keep, sizeof keep);
    ht_col sorts[HT_COL_COUNT];
    int nsorts = ht_col_view_sorts(HT_VIEW_CLASSES, 0, sorts, HT_COL_COUNT);
    ht_list_sort_op(&v->table.sort_col, &v->table.ascending, op, by, sorts, nsorts);
    ht_class_table_sort(&v->table);
    find_class(v, keep);
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    return strstr(((ht_classes_screen *)ctx)->table.rows[i].name, text) != NULL;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    ht_classes_screen *v = self;
    return ht_list_search(&v->pos, v->table.nrows, text, forward, from_cursor, has_text, v);
}

static int write_rows(const void *rows, const ht_store *s, const char *path, const ht_progress *p)
{
    return ht_export_class_table(rows, s, path, p);
}

static void free_rows(void *rows)
{
    ht_class_table_free(rows);
    free(rows);
}

/* Every column of every row shown, in the order shown. */
static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    ht_classes_screen *v = self;
    ht_class_table *copy = malloc(sizeof *copy);
    if (!copy) return -1;
    ht_class_table_init(copy);
    if (ht_class_table_copy(copy, &v->table, names) != 0) {
        free_rows(copy);
        return -1;
    }
    req->view = "classes";
    snprintf(req->sort, sizeof req->sort, "%s %s",
             v->table.sort_col == HT_COL_NAME ? "CLASS" : ht_col_title(v->table.sort_col),
             v->table.ascending ? "asc" : "desc");
    snprintf(req->class_filter, sizeof req->class_filter, "%s", ht_host_lens(h)->class_filter.text);
    req->rows = copy;
    req->write = write_rows;
    req->free_rows = free_rows;
    return 0;
}

/* Enter: the allocation tree of this class. */
static void open_class(void *self, ht_host *h, int ch)
{
    (void)ch;
    ht_classes_screen *v = self;
    if (v->table.nrows)
        ht_host_open_class(h, &ht_screen_tree, v->table.rows[v->pos.cursor].class_id);
}

/* Esc on the tree it opened: all classes again, back here. */
static void back(void *self, ht_host *h, int ch)
{
    (void)self, (void)ch;
    ht_host_back(h);
}

static const ht_binding KEYS[] = {
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER),
     .help = "open the allocation tree of the selected class (Esc: back)", .act = open_class},
    {HT_KEYS(27), .act = back, .flags = HT_KEY_ABOVE | HT_KEY_CHILD},
    {.flags = HT_KEY_NOTE,
     .label = "SAMPLES",
     .help = "the samples BYTES and INST rest on (LIVE SMP: LIVE's and GROWTH's):\n"
             "n samples, about +-100/sqrt(n)%; a row on under 10 is dimmed;\n" HT_COL_OVER_MARK
             ": an estimate above the heap's used bytes (too few samples)"},
    HT_KEYS_END,
};

const ht_screen ht_screen_classes = {
    .name = "classes",
    .title = "classes",
    .help_title = "Classes",
    .key = '2',
    .filter = HT_FILTER_CLASSES,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .column_at = column_at,
    .sort = sort,
    .search = search,
    .export = export,
};
