/*
 * paths.h - shortest paths from the GC roots to objects of a snapshot.
 *
 * Owns: one breadth-first search from every root at once, which leaves each
 * reachable object's predecessor on a shortest path (fewest references) from
 * some root; a path is then read backwards in O(its length). By default the
 * referent of a java.lang.ref.Reference (weak, soft, phantom, final) is not
 * followed, so a path shows what really keeps an object alive; `weak` makes
 * the search follow them too.
 *
 * Threads: none of its own; built on the caller's (a job), then read-only.
 *
 * Must never: recurse. Reads the snapshot only.
 */
#ifndef HEAPTOP_PATHS_H
#define HEAPTOP_PATHS_H

#include "labels.h" /* the words a path is written in, which its readers use too */
#include "snapshot.h"

typedef struct ht_paths {
    uint32_t n;
    uint32_t *prev; /* predecessor on the path; HT_ROOT at a root, HT_NONE unreached */
    ht_map root;    /* root object -> index in s->roots of its first root record */
    int weak;       /* referents followed */
} ht_paths;

/* HT_HPROF_OK or HT_HPROF_ERR_NOMEM (h->err set). */
int ht_paths_build(ht_paths *p, const ht_snapshot *s, int weak);
void ht_paths_free(ht_paths *p);

/* The path to object n as objects, root first, into out (at most cap, the
 * last ones kept when longer); its full length, 0 when no root reaches n. */
uint32_t ht_paths_get(const ht_paths *p, uint32_t n, uint32_t *out, uint32_t cap);

/* The path as one line: "root(system class) java.lang.Class(demo.App) -static
 * LISTENERS-> java.util.ArrayList -elementData-> java.lang.Object[] -[17]->
 * demo.Listener", cut to cap bytes; "(no path from a GC root)" when none. */
void ht_paths_format(const ht_paths *p, const ht_snapshot *s, uint32_t n, char *buf, size_t cap);

#endif
