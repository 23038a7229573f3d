/*
 * screen_chooser.c - the JVM chooser: what `heaptop` with no argument opens
 * on, htop's process list for the JVMs the user may attach to (root: every
 * user's). Columns PID, OWNER (the JVM's user), MAIN (class or jar),
 * UPTIME, HEAP USED (from the JVM's perf data; "-" without), AGENT
 * ("heaptop", "attachable", "not attachable: why"). The loop refreshes the
 * list every few seconds through a discovery job (tasks.h, jvms.h) and hands
 * it over with ht_screen_chooser_set; the cursor stays on its pid as rows
 * come and go. Up/Down, the filter (main class names) and search as on the
 * other lists; Enter asks the loop to connect (ht_host_choose), which
 * attaches first, as a job, when the JVM has no agent (and, for root on
 * another user's JVM, starts heaptop again as `heaptop PID`: app.c).
 *
 * UI thread only. It never reads /proc or files itself and never waits:
 * discovery and attaching are jobs. It draws only into its area.
 */
#include "screen_chooser.h"

#include "list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chooser {
    ht_jvm_list list; /* the last discovery's */
    int have;         /* a discovery finished */
    char err[256];    /* the last discovery's error */
    uint32_t *rows;   /* indices into list.v that pass the filter */
    uint32_t nrows;
    ht_list_pos pos;
    pid_t at; /* the pid under the cursor: kept across refreshes */
} chooser;

static void *create(void)
{
    return calloc(1, sizeof(chooser));
}

static void destroy(void *self)
{
    chooser *c = self;
    ht_jvms_free(&c->list);
    free(c->rows);
    free(c);
}

static const ht_jvm *selected(const chooser *c)
{
    return c->pos.cursor < c->nrows ? &c->list.v[c->rows[c->pos.cursor]] : NULL;
}

/* The rows the filter lets through, the cursor back on its pid. */
static int build(void *self, const ht_build_ctx *b)
{
    chooser *c = self;
    const ht_jvm *sel = selected(c);
    if (sel) c->at = sel->pid;
    uint32_t *rows = realloc(c->rows, (c->list.n ? c->list.n : 1) * sizeof *rows);
    if (!rows) return -1;
    c->rows = rows;
    c->nrows = 0;
    for (size_t i = 0; i < c->list.n; i++)
        if (ht_filter_match(&b->lens->jvm_filter, c->list.v[i].main))
            rows[c->nrows++] = (uint32_t)i;
    for (uint32_t i = 0; i < c->nrows; i++)
        if (c->list.v[rows[i]].pid == c->at) c->pos.cursor = i;
    if (c->pos.cursor >= c->nrows) c->pos.cursor = c->nrows ? c->nrows - 1 : 0;
    return 0;
}

void ht_screen_chooser_set(void *self, ht_jvm_list *l, const char *err)
{
    chooser *c = self;
    if (err) {
        snprintf(c->err, sizeof c->err, "%s", err);
        return;
    }
    const ht_jvm *sel = selected(c);
    if (sel) c->at = sel->pid;
    ht_jvms_free(&c->list);
    c->list = *l;
    memset(l, 0, sizeof *l);
    c->nrows = 0; /* stale until the loop rebuilds */
    c->have = 1;
    c->err[0] = '\0';
}

static void uptime_text(uint64_t s, char *out, size_t n)
{
    if (s >= 86400)
        snprintf(out, n, "%llud %02llu:%02llu", (unsigned long long)(s / 86400),
                 (unsigned long long)(s / 3600 % 24), (unsigned long long)(s / 60 % 60));
    else
        snprintf(out, n, "%02llu:%02llu:%02llu", (unsigned long long)(s / 3600),
                 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
}

static void draw(void *self, const ht_draw_ctx *d)
{
    chooser *c = self;
    const ht_ui *ui = d->ui;
    int cols = ui->cols, y = d->top;
    /* MAIN as wide as its longest name, within [12, a third of the line] */
    int mw = 12;
    for (uint32_t i = 0; i < c->nrows; i++) {
        int w = (int)strlen(c->list.v[c->rows[i]].main);
        if (w > mw) mw = w;
    }
    if (mw > cols / 3) mw = cols / 3;
    /* OWNER as wide as its longest name, within [5, 12] */
    int ow = 5;
    for (uint32_t i = 0; i < c->nrows; i++) {
        int w = (int)strlen(c->list.v[c->rows[i]].owner);
        if (w > ow) ow = w;
    }
    if (ow > 12) ow = 12;
    char line[1024];
    snprintf(line, sizeof line, "%7s  %-*.*s  %-*.*s %11s %10s  %s", "PID", ow, ow, "OWNER", mw, mw,
             "MAIN", "UPTIME", "HEAP USED", "AGENT");
    ht_ui_put(stdscr, y++, 0, cols, ht_ui_attr(ui, HT_C_TITLE), line, 1);
    int height = d->height - 1;
    if (!c->nrows) {
        const char *user = c->list.user[0] ? c->list.user : "this user";
        if (c->err[0])
            snprintf(line, sizeof line, "cannot list the JVMs: %s", c->err);
        else if (!c->have)
            snprintf(line, sizeof line, "looking for JVMs ...");
        else if (c->list.n)
            snprintf(line, sizeof line, "none of the %zu JVMs %s%s passes the filter", c->list.n,
                     c->list.all_users ? "" : "of user ", c->list.all_users ? "" : user);
        else if (c->list.all_users)
            snprintf(line, sizeof line, "no JVMs are running (of any user); start one");
        else
            snprintf(line, sizeof line, "no JVMs of user %s are running; start one, or give a PID",
                     user);
        ht_ui_put(stdscr, y, 0, cols, ht_ui_attr(ui, HT_C_DIM), line, 1);
        return;
    }
    ht_list_clamp(&c->pos, c->nrows, height);
    for (int r = 0; r < height && c->pos.top + (uint32_t)r < c->nrows; r++) {
        uint32_t i = c->pos.top + (uint32_t)r;
        const ht_jvm *j = &c->list.v[c->rows[i]];
        char up[32], heap[32], agent[256];
        uptime_text(j->uptime_s, up, sizeof up);
        if (j->heap_known)
            ht_ui_bytes((double)j->heap_used, d->unit, heap, sizeof heap);
        else
            snprintf(heap, sizeof heap, "-");
        ht_jvm_agent_text(j, agent, sizeof agent);
        snprintf(line, sizeof line, "%7d  %-*.*s  %-*.*s %11s %10s  %s", (int)j->pid, ow, ow,
                 j->owner, mw, mw, j->main, up, heap, agent);
        int sel = i == c->pos.cursor;
        int attr = sel                                 ? ht_ui_attr(ui, HT_C_SELECTED)
                   : j->agent == HT_JVM_NOT_ATTACHABLE ? ht_ui_attr(ui, HT_C_DIM)
                   : j->agent == HT_JVM_AGENT_READY    ? ht_ui_attr(ui, HT_C_GOOD)
                                                       : ht_ui_attr(ui, HT_C_NORMAL);
        ht_ui_put(stdscr, y + r, 0, cols, attr, line, 1);
    }
}

static ht_list_pos *list(void *self, uint32_t *n)
{
    chooser *c = self;
    *n = c->nrows;
    return &c->pos;
}

static int has_text(void *ctx, uint32_t i, const char *text)
{
    const chooser *c = ctx;
    const ht_jvm *j = &c->list.v[c->rows[i]];
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)j->pid);
    return strstr(j->main, text) || strcmp(pid, text) == 0 || strcmp(j->owner, text) == 0;
}

static int search(void *self, const ht_store *s, const char *text, int forward, int from_cursor)
{
    (void)s;
    chooser *c = self;
    return ht_list_search(&c->pos, c->nrows, text, forward, from_cursor, has_text, c);
}

static void choose(void *self, ht_host *h, int ch)
{
    (void)ch;
    const ht_jvm *j = selected(self);
    if (!j) return;
    switch (j->agent) {
    case HT_JVM_AGENT_READY:
        ht_host_choose(h, j->pid, 0);
        break;
    case HT_JVM_ATTACHABLE:
        ht_host_choose(h, j->pid, 1);
        break;
    case HT_JVM_AGENT_ELSEWHERE:
        ht_host_status(h, "pid %d runs heaptop's agent, but not where heaptop PID looks: %s",
                       (int)j->pid, j->reason);
        break;
    default:
        ht_host_status(h, "pid %d (%s) cannot be attached: %s", (int)j->pid, j->main, j->reason);
        break;
    }
}

static const ht_binding KEYS[] = {
    {HT_KEYS('\n'), HT_ALSO('\r', KEY_ENTER),
     .help = "connect to the selected JVM (its agent, or heaptop attaches one first)",
     .act = choose},
    HT_KEYS_END,
};

const ht_screen ht_screen_chooser = {
    .name = "jvms",
    .title = "JVMs",
    .help_title = "JVMs (heaptop with no argument)",
    .key = 0,
    .tabless = 1, /* opened only at start, never in the Tab order */
    .filter = HT_FILTER_JVMS,
    .keys = KEYS,
    .create = create,
    .destroy = destroy,
    .build = build,
    .draw = draw,
    .list = list,
    .search = search,
};
