/*
 * screen_threads.c - the threads table: one row per thread the CPU sampler
 * saw.
 *
 * Owns: the table (thread_table.h: state, CPU % in the last second, exact
 * CPU ms since first seen, samples, the mark's DIFF ms and DIFF SMP), its
 * sort (any column or the name), the cursor (kept on its thread as rows
 * move), the column layout last drawn. The lens's thread filter narrows it
 * (and the CPU trees). Enter opens the CPU tree of the thread under the
 * cursor: its stacks (Esc there comes back). The title says that in cpu=on
 * a thread's CPU is exact but its frames are taken at safepoints; with
 * sampling off it says so. UI thread only.
 */
#include "list.h"
#include "screen.h"
#include "thread_table.h"
#include "tree_jump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct threads_screen {
    ht_thread_table table;
    ht_list_pos pos;
    ht_col_layout cols;
    int shown;
} threads_screen;

extern const ht_screen ht_screen_threads, ht_screen_cpu_tree;

static void *create(void)
{
    threads_screen *v = calloc(1, sizeof *v);
    if (v) ht_thread_table_init(&v->table);
    return v;
}

static void destroy(void *self)
{
    threads_screen *v = self;
    ht_thread_table_free(&v->table);
    free(v);
}

static uint32_t cursor_thread(const threads_screen *v)
{
    return v->pos.cursor < v->table.nrows ? v->table.rows[v->pos.cursor].id : 0;
}

static void find_thread(threads_screen *v, uint32_t id)
{
    uint32_t at = ht_thread_table_find(&v->table, id);
    if (at != UINT32_MAX) v->pos.cursor = at;
}

static int build(void *self, const ht_build_ctx *b)
{
    threads_screen *v = self;
    uint32_t keep = cursor_thread(v);
    int rc = ht_thread_table_build(&v->table, b->store, &b->lens->thread_filter);
    find_thread(v, keep);
    return rc;
}

static void draw(void *self, const ht_draw_ctx *d)
{
    threads_screen *v = self;
    const ht_ui *ui = d->ui;
    const ht_store *s = d->store;
    ht_thread_table *t = &v->table;
    int name_min = t->name_max + 1 < ui->cols / 2 ? t->name_max + 1 : ui->cols / 2;
    if (name_min < 12) name_min = 12;
    ht_col columns[HT_COL_COUNT];
    int ncolumns = ht_col_view(HT_VIEW_THREADS, 0, columns, HT_COL_COUNT);
    ht_list_layout(d, &v->cols, columns, ncolumns, t->max_abs, t->has_neg, t->sort_col, name_min);
    ht_list_title(d, &v->cols, t->sort_col, t->ascending,
                  s->info.cpu_mode == HT_CPU_ON
                      ? " THREAD  (cpu=on: CPU exact, frames at safepoints)"
                  : s->info.cpu_mode == HT_CPU_OFF ? " THREAD  (CPU sampling is off)"
                                                   : " THREAD");
    int rows = d->height - 1, top = d->top;
    ht_list_fit(&v->pos, &v->shown, t->nrows, rows);
    if (t->nrows == 0) {
        const char *why = d->no_jvm && !s->ncpu_threads ? "  a dump file has no CPU samples"
                          : s->info.cpu_mode == HT_CPU_OFF
                              ? "  CPU sampling is off (start the agent with cpu=on, or: heaptop "
                                "control PID cpu on)"
                          : s->ncpu_threads ? "  no thread matches the filter"
                                            : "  no CPU samples yet";
        ht_ui_put(stdscr, top + 1, 0, ui->cols, ht_ui_attr(ui, HT_C_DIM), why, 1);
        return;
    }
    for (int r = 0; r < rows; r++) {
        uint32_t i = v->pos.top + (uint32_t)r;
        if (i >= t->nrows) break;
        const ht_thread_row *row = &t->rows[i];
        char line[1600], name[HT_STORE_CPU_NAME_MAX + 32];
        size_t len = ht_list_cells(d, &v->cols, row->v, line, sizeof line);
        ht_store_cpu_thread_name(s, row->id, name, sizeof name);
        const ht_store_cpu_thread *th = ht_store_cpu_thread_by_id(s, row->id);
        snprintf(line + len, sizeof line - len, " %s%s", name,
                 th && th->rec.daemon ? " (daemon)" : "");
        /* an ended thread keeps its figures, greyed */
        ht_color role = row->v[HT_COL_THREAD_STATE] == HT_THREAD_TERMINATED ? HT_C_STALE
                        : row->v[HT_COL_CPU_NOW] > 0                        ? HT_C_NORMAL
                                                                            : HT_C_DIM;
        ht_ui_put(stdscr, top + 1 + r, 0, ui->cols,
                  ht_ui_attr(ui, i == v->pos.cursor ? HT_C_SELECTED : role), line, 1);
    }
    ht_list_more(d, &v->pos, t->nrows, top, rows);
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    threads_screen *v = self;
    *n = v->table.nrows;
    return &v->pos;
}

static ht_col column_at(void *self, int x)
{
    return ht_col_layout_at(&((threads_screen *)self)->cols, x);
}

static void sort(void *self, ht_host *h, ht_sort_op op, ht_col by)
{
    threads_screen *v = self;
    if (op == HT_SORT_LEAK) {
        ht_host_status(h, "no growth here: DIFF ms is the CPU used while the mark ran");
        return;
    }
    uint32_t keep = cursor_thread(v);
    ht_col sorts[HT_COL_COUNT];
    int nsorts = ht_col_view_sorts(HT_VIEW_THREADS, 0, sorts, HT_COL_COUNT);
    ht_list_sort_op(&v->table.sort_col, &v->table.ascending, op, by, sorts, nsorts);
    if (v->table.sort_col == HT_COL_NAME && op != HT_SORT_REVERSE && op != HT_SORT_BY)
        v->table.ascending = 1; /* names A to Z first */
    ht_thread_table_sort(&v->table, ht_host_store(h));
    find_thread(v, keep);
}

typedef struct has_ctx {
    const threads_screen *v;
    const ht_store *s;
} has_ctx;

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const has_ctx *c = ctx;
    char name[HT_STORE_CPU_NAME_MAX + 32];
    ht_store_cpu_thread_name(c->s, c->v->table.rows[i].id, name, sizeof name);
    return strstr(name, text) != NULL;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    threads_screen *v = self;
    has_ctx c = {v, s};
    return ht_list_search(&v->pos, v->table.nrows, text, forward, from_cursor, has_text, &c);
}

static int write_rows(const void *rows, const ht_store *s, const char *path, const ht_progress *p)
{
    return ht_export_threads(rows, s, path, p);
}

static void free_rows(void *rows)
{
    ht_thread_table_free(rows);
    free(rows);
}

/* Every column of every row shown, in the order shown. (The summary has
 * no field for the thread filter: the rows are what it left.) */
static int export(void *self, ht_host *h, const ht_store *names, ht_export_req *req)
{
    (void)h, (void)names;
    threads_screen *v = self;
    ht_thread_table *copy = malloc(sizeof *copy);
    if (!copy) return -1;
    ht_thread_table_init(copy);
    if (ht_thread_table_copy(copy, &v->table) != 0) {
        free_rows(copy);
        return -1;
    }
    req->view = "threads";
    snprintf(req->sort, sizeof req->sort, "%s %s", ht_col_title(v->table.sort_col),
             v->table.ascending ? "asc" : "desc");
    req->rows = copy;
    req->write = write_rows;
    req->free_rows = free_rows;
    return 0;
}

/* Enter: the CPU tree of this thread, its stacks (Esc comes back). */
static void open_thread(void *self, ht_host *h, int ch)
{
    (void)ch;
    threads_screen *v = self;
    uint32_t id = cursor_thread(v);
    if (!id) return;
    ht_jump_send(h,
                 &(ht_jump){.to = &ht_screen_cpu_tree, .from = &ht_screen_threads, .thread = id});
}

static const ht_binding KEYS[] = {
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER),
     .help = "the CPU tree of the selected thread: its stacks (Esc: back)", .act = open_thread},
    {.flags = HT_KEY_NOTE,
     .label = "CPU% NOW",
     .help = "CPU in the last second (100% = one core); CPU ms: exact, since the\n"
             "sampler first saw the thread; NATIVE: RUNNABLE in native code (a\n"
             "blocking read uses no CPU); TERMINATED threads keep their figures"},
    HT_KEYS_END,
};

const ht_screen ht_screen_threads = {
    .name = "threads",
    .title = "threads (CPU)",
    .help_title = "Threads",
    .filter = HT_FILTER_THREADS,
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
