/*
 * screen.h - what a screen is, and what a screen may ask of the loop.
 *
 * A screen is one file (screen_*.c) exposing one descriptor, ht_screen: its
 * name, the key that brings it up, its keys (a table of bindings, from which
 * the key bar and the help are generated), and hooks: create its state, build
 * its model from the store, draw it into its area, and the capabilities the
 * global keys ask for (a list to move in, sorting, search, the filter it
 * edits, export). A hook a screen does not have is NULL, and the key that
 * would use it does nothing there. registry.c lists the screens, one line
 * each; adding a screen is a new file and a line there (docs/design.md).
 *
 * The model is htop's: a panel class with an event handler (the hooks), a
 * function bar and an action table (the bindings); here the bar and the help
 * come from the same table that dispatches, so a key cannot be in one and not
 * the others.
 *
 * Threads: everything here runs on the UI thread. A screen sees its own state
 * (the void * its create() made), the store, its area and the loop through
 * ht_host; never the whole app. A hook must not block: anything that can take
 * longer than a frame (a request to the agent, writing files) is a job
 * (jobs.h), started through the loop (tasks.h). A screen never reads the
 * keyboard and never draws outside its area.
 */
#ifndef HEAPTOP_SCREEN_H
#define HEAPTOP_SCREEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "columns.h"
#include "export_views.h"
#include "filter.h"
#include "store.h"
#include "ui.h"

/* The loop, as a screen sees it: only through the ht_host_* functions. */
typedef struct ht_app ht_host;

/* What the user narrowed the data to. Kept by the loop because more than one
 * screen applies it (the class filter narrows the tree too), the header shows
 * it and exports record it. */
typedef struct ht_lens {
    ht_filter class_filter;   /* class names: the classes screen edits it, tree and classes apply */
    ht_filter frame_filter;   /* frames: the trees (allocation, CPU) edit and apply it */
    ht_filter thread_filter;  /* thread names: the threads table edits it, the CPU trees apply it */
    ht_filter ref_filter;     /* classes of the objects the reference browser lists */
    ht_filter jvm_filter;     /* main classes of the JVMs the chooser lists */
    ht_filter console_filter; /* lines of the launched program's output (the Console) */
    uint32_t only_class;      /* the tree of one class (a class id), opened from the class table */
} ht_lens;

/* Which of the lens's filters the filter key edits on a screen. */
typedef enum ht_filter_kind {
    HT_FILTER_NONE = 0,
    HT_FILTER_CLASSES,
    HT_FILTER_FRAMES,
    HT_FILTER_REFS,
    HT_FILTER_JVMS,
    HT_FILTER_CONSOLE,
    HT_FILTER_THREADS,
} ht_filter_kind;

/* A list's cursor and first shown row. */
typedef struct ht_list_pos {
    uint32_t cursor, top;
} ht_list_pos;

/* What build() gets. */
typedef struct ht_build_ctx {
    const ht_store *store;
    const ht_lens *lens;
    struct ht_heap *heap; /* the heap snapshot on screen, or NULL (analysis.h) */
    /* the loop's count of snapshots loaded, at a stable address: a screen
     * keeps the pointer and the value it built from, and touches its model
     * of a snapshot only while they agree (a new snapshot frees the old) */
    const uint64_t *heap_gen;
    /* non-NULL for a rebuild that may be abandoned for a waiting key: poll it
     * now and then and return 1 when it says so */
    int (*should_stop)(void *ctx);
    void *stop_ctx;
    /* heaptop run: the program's output (console.h), at a stable address;
     * NULL when heaptop did not start the program */
    const struct ht_console *console;
    /* what is kept of the snapshot before the one on screen, for a compare
     * (compare.h), or NULL; replaced with heap, under the same heap_gen */
    const struct ht_heap_figures *heap_before;
} ht_build_ctx;

/* What draw() gets: it draws rows [top, top + height) of stdscr. */
typedef struct ht_draw_ctx {
    const ht_ui *ui;
    const ht_store *store;
    struct ht_heap *heap; /* the heap snapshot on screen, or NULL */
    uint64_t heap_gen;    /* its generation (see ht_build_ctx) */
    int top, height;
    ht_unit unit; /* what byte figures are shown in (ui.h) */
    int no_jvm;   /* a dump file (heaptop open): no JVM, no samples to wait for */
} ht_draw_ctx;

/* What an allocation screen (tree, classes) says before it has a row: samples
 * come from heaptop's agent, so a dump file has them only when the agent took
 * it (its run rides along), and will never get any. */
static inline const char *ht_no_samples_text(const ht_draw_ctx *d)
{
    return d->no_jvm ? "  this dump has no allocation samples (only heaptop's own dumps do): "
                       "its heap is on 4-6 and 9"
                     : "  no samples yet";
}

/* What the sort keys ask for. */
typedef enum ht_sort_op {
    HT_SORT_NEXT,    /* > F6: the next column, largest first */
    HT_SORT_PREV,    /* < */
    HT_SORT_REVERSE, /* I */
    HT_SORT_BY,      /* a click on a column title: that column; the sorted one again reverses */
    HT_SORT_LEAK,    /* G: live growth since Begin, largest first */
} ht_sort_op;

/* What an export writes, filled by a screen's export hook: a copy of what it
 * shows, which a job (tasks.h) writes off the UI thread and then frees. */
typedef struct ht_export_req {
    const char *view; /* tree, hotspots, classes, telemetry: file name and summary */
    char sort[64];    /* what the rows are sorted by, "GROWTH B desc" ("" when unsorted) */
    char class_filter[HT_FILTER_MAX_TEXT]; /* the lens as the screen applied it */
    char frame_filter[HT_FILTER_MAX_TEXT];
    char only_class[512];
    /* the Behaviour screen's t1, t2, scc, count ("" elsewhere) */
    char t1[8], t2[8], scc[16], count[16];
    void *rows; /* a copy of what the screen shows, or NULL */
    /* on the worker: write rows (names and figures from the store's copy) */
    int (*write)(const void *rows, const ht_store *s, const char *path, const ht_progress *p);
    void (*free_rows)(void *rows);
} ht_export_req;

/* A key binding, and one line (or a part of one) of the help. */
typedef void (*ht_action)(void *self, ht_host *h, int ch);

enum {
    HT_KEY_HEADING = 1u << 0, /* not a key: a heading of the help (the text in help) */
    HT_KEY_NOTE = 1u << 1,    /* not a key: a line of the help (label, help) */
    HT_KEY_RIGHT = 1u << 2,   /* on the line before, its keys at col, its help at help_col */
    HT_KEY_ABOVE = 1u << 3,   /* bound, and documented by the line before (no text) */
    HT_KEY_CHILD = 1u << 4,   /* acts while the screen this one opened is in front */
    HT_KEY_LIST = 1u << 5,    /* "keys, help" in one run: more keys than the key column holds */
    HT_KEY_SCREENS = 1u << 6, /* (global) the screens' own keys go here in the help */
    HT_KEY_SWITCH = 1u << 7,  /* (global) its keys, then every screen's key; help: their titles */
    HT_KEY_SORTERS = 1u << 8, /* (heading) %s: the names of the screens that sort */
    HT_KEY_MODAL = 1u << 9,   /* (global) its F-key (F10 quit) acts as it closes the help */
};

#define HT_BINDING_KEYS 8
typedef struct ht_binding {
    int keys[HT_BINDING_KEYS]; /* the keys, as the help names them, in that order (0 ends) */
    int also[4];               /* more keys that do the same, not named (',' for '<') */
    const char *help;          /* what it does; a "\n" continues under it */
    const char *bar;           /* its label on the key bar (it has a function key) */
    ht_action act;
    unsigned flags;
    short col, help_col; /* HT_KEY_RIGHT */
    const char *label;   /* HT_KEY_NOTE: the key column's text ("in a prompt") */
} ht_binding;
#define HT_KEYS(...) .keys = {__VA_ARGS__}
#define HT_ALSO(...) .also = {__VA_ARGS__}
#define HT_KEYS_END                                                                                \
    {                                                                                              \
        .help = NULL                                                                               \
    } /* the end of a table */

typedef struct ht_screen {
    const char *name;       /* one word: the Sorting heading, export file names */
    const char *title;      /* in the help's list of screens: "allocation tree" */
    const char *help_title; /* the heading of its keys in the help (NULL: not listed) */
    int key;                /* the key that brings it up ('1'), 0: none */
    int modal;              /* a key it does not bind closes it (the help) */
    int tabless;            /* never in the Tab order (the chooser: opened only at start) */
    ht_filter_kind filter;  /* what the filter key edits here */
    const ht_binding *keys; /* its own keys, ended by HT_KEYS_END */

    /* its state, the self of every hook (NULL: out of memory); a screen
     * without create() keeps none and gets self NULL */
    void *(*create)(void);
    void (*destroy)(void *self);
    /* brought to the front: by its key (drilled 0) or by another screen
     * opening it on something (drilled 1: the tree of one class) */
    void (*enter)(void *self, int drilled);
    /* rebuild the model from the store: 0, 1 abandoned (should_stop), -1 out
     * of memory. NULL: draws straight from the store. */
    int (*build)(void *self, const ht_build_ctx *b);
    void (*draw)(void *self, const ht_draw_ctx *d);
    /* its rows, for the moving keys and the mouse (n: how many) */
    ht_list_pos *(*list)(void *self, uint32_t *n);
    /* the column whose title is at x on its first row (HT_COL_COUNT: none) */
    ht_col (*column_at)(void *self, int x);
    void (*sort)(void *self, ht_host *h, ht_sort_op op, ht_col col);
    /* move to the next (forward) or previous row whose name holds text,
     * starting at the cursor's when from_cursor; 1 found */
    int (*search)(void *self, const ht_store *s, const char *text, int forward, int from_cursor);
    /* fill req with a copy of what it shows (names from names, a copy of the
     * store that the job will own); 0, or -1 out of memory */
    int (*export)(void *self, ht_host *h, const ht_store *names, ht_export_req *req);
} ht_screen;

/* registry.c: every screen, in Tab order; the help and the screen list last. */
extern const ht_screen *const ht_screens[];
extern const int ht_nscreens;
/* A screen's place in ht_screens, or -1. */
int ht_screen_index(const ht_screen *s);
/* Whether Tab, S-Tab and the screen list (F2) reach s: not modal, not tabless
 * (a screen without a number key is reached so). */
int ht_screen_in_tabs(const ht_screen *s);
/* The screen after (dir 1) or before (-1) screen `from` in the Tab order;
 * from itself when no other is in it. _in: among list[0..n) instead of the
 * registry's. */
int ht_screen_next(int from, int dir);
int ht_screen_next_in(const ht_screen *const *list, int n, int from, int dir);

/* --- what a screen may ask of the loop (app.c) --- */
const ht_store *ht_host_store(const ht_host *h);
const ht_lens *ht_host_lens(const ht_host *h);
/* One line on the status line for a few seconds. */
void ht_host_status(ht_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The screen's model no longer matches what it should show: rebuild it. */
void ht_host_rebuild(ht_host *h);
/* Bring screen `to` to the front showing one class (its tree): Esc returns. */
void ht_host_open_class(ht_host *h, const ht_screen *to, uint32_t class_id);
/* The next screen brought to the front (a jump, tree_jump.h) is opened
 * from this one: Esc there returns (ht_host_back), all classes as they were. */
void ht_host_open_next(ht_host *h, const ht_screen *to);
/* Leave what ht_host_open_class(), ht_host_open_next(), ht_host_filter_classes() or
 * ht_host_browse() opened, while it is in front: all classes again (the
 * class filter as it was, unless changed since), back where it was opened
 * from. 1 done, 0 nothing was opened so (the caller's own Esc then). */
int ht_host_back(ht_host *h);
/* The heap snapshot on screen (analysis.h), or NULL when none is loaded. */
struct ht_heap *ht_host_heap(ht_host *h);
/* Bring the reference browser to the front on object n of the snapshot
 * (the way back is kept: Backspace returns, and on the first object to the
 * screen it was opened from, ht_host_back). */
void ht_host_browse(ht_host *h, uint32_t n);
/* Set the lens's class filter to text (the filter syntax; "=name" for
 * exactly a class) and bring screen `to` to the front: one screen's thing
 * shown by its classes on another (a Behaviour node on heap classes); Esc
 * there (ht_host_back) comes back and puts the filter back. 0, or -1 (said
 * on the status line, the filter unchanged) when text does not parse. */
int ht_host_filter_classes(ht_host *h, const char *text, const ht_screen *to);
/* Bring screen `to` to the front (the screen list's choice). */
void ht_host_show(ht_host *h, const ht_screen *to);
/* Open the source file of frame f (its method id is of store names: the
 * live store, or a dump's run) at its line, on the Source screen (Esc
 * returns): found on --source and the JDK's src.zip off the UI thread
 * (app_source.c); a frame without a line says so on the status line. */
void ht_host_open_source(ht_host *h, const ht_store *names, const ht_frame_rec *f);
/* Rows a list shows on this terminal (a page). */
int ht_host_page(const ht_host *h);
/* The chooser picked JVM pid: connect to its agent, or (attach) load the
 * agent into it first, as a job. */
void ht_host_choose(ht_host *h, pid_t pid, int attach);
/* Marks take heap snapshots (Begin and End each take one, without asking
 * first, and End's is compared with Begin's) or not: toggled, said on the
 * status line; 1 on, 0 off, -1 no JVM to take them from. */
int ht_host_toggle_mark_snapshots(ht_host *h);

/* Keep a cursor inside [0, n) and visible in a window of `height` rows. */
void ht_list_clamp(ht_list_pos *p, uint32_t n, int height);

#endif
