/*
 * tree_jump.h - a frame or a thread handed from one screen to another: the
 * jump key between the allocation tree and the CPU tree (the same frame in
 * the other), the CPU screens' shape key (the same frame top-down or in hot
 * spots), and Enter on the threads table (the CPU tree of one thread).
 *
 * Owns: the one request waiting for the screen it names. The sender fills
 * it and brings that screen to the front (ht_host_show); the screen reads
 * it in build() and, once a build has put the frame in its tree, selects
 * the frame (its way unfolded) and clears the request. A screen's state is
 * its own (screen.h), so this is the only way one screen hands another a
 * frame. UI thread only.
 */
#ifndef HEAPTOP_TREE_JUMP_H
#define HEAPTOP_TREE_JUMP_H

#include <stdint.h>

#include "screen.h"
#include "site_tree.h"

#define HT_JUMP_STACK_MAX 256 /* a deeper stack: the frame alone */

typedef struct ht_jump {
    const ht_screen *to;   /* the screen it is for */
    const ht_screen *from; /* where Esc returns (a thread's tree), or NULL */
    int has_frame;
    ht_frame_rec frame; /* select this frame (method, line) */
    uint32_t thread;    /* 0, or show only this thread's CPU (the CPU tree) */
    /* the frame's whole stack, leaf first (depth 0: none): the allocation
     * tree then selects the node on this path (a site's own call path, not
     * the first node with the frame's method and line); class_id the
     * site's class, for a tree grouped by class */
    uint16_t depth;
    uint32_t class_id;
    ht_frame_rec stack[HT_JUMP_STACK_MAX];
} ht_jump;

/* Leave j for j->to and bring it to the front. */
void ht_jump_send(ht_host *h, const ht_jump *j);
/* The request waiting for screen `me`, or NULL. */
const ht_jump *ht_jump_pending(const ht_screen *me);
/* It was served: forget it. */
void ht_jump_clear(void);
/* Select a request's frame in a built tree: its node (ht_tree_find_frame),
 * every node above it unfolded, the cursor on it. 1 found, 0 not there. */
int ht_jump_select(ht_site_tree *t, const ht_jump *j, ht_list_pos *pos);
/* Does any stack of the source's rows (allocation or CPU) go through this
 * method? The sender asks before it jumps, so a frame with no samples in
 * the other tree is said on the status line instead. */
int ht_jump_has_method(const ht_store *s, ht_tree_source source, uint32_t method_id);

#endif
