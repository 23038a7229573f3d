/*
 * drag_originals.h - drag mode's store of original class bytes: what a class
 * looked like before drag mode's first rewrite of it, so that drag off gives
 * it exactly those bytes back (drag.c hands them out of its
 * ClassFileLoadHook while it retransforms the classes back).
 *
 * Why not the JVM's copy: a class loaded before any retransform-capable hook
 * changed it has no cached original in the JVM, which then rebuilds its bytes
 * from the running class; when old versions of its methods are still running
 * (a main loop) the rebuilt constant pool keeps the entries the rewrite added,
 * and the class came back 336 bytes bigger at each on/off (test_drag_onoff).
 *
 * Owns: one entry per (key, loader): key is drag.c's class id (one per class
 * name), loader an opaque handle the caller made (a JNI weak global ref; NULL
 * is the boot loader) and compares through its same() callback, so two
 * loaders' classes of one name never mix. The bytes are kept zlib-compressed,
 * at most max_bytes in all (entries' bookkeeping included); past it a put is
 * refused and the caller leaves the class alone. An entry is kept until its
 * loader is gone (ht_orig_prune) or the store is freed; ht_orig_put never
 * replaces one (a later turn on cannot save a copy that grew): only
 * ht_orig_replace does, for someone else's RedefineClasses (a HotSwap), whose
 * bytes are the class's new original.
 *
 * Threads: none of its own and no lock: the caller serialises every call
 * (drag.c holds a mutex for each, only briefly). Must never: call into the
 * JVM itself (the callbacks do), allocate more than one class's bytes (plus
 * zlib's state) per call, or trust a length it did not compute.
 */
#ifndef HEAPTOP_DRAG_ORIGINALS_H
#define HEAPTOP_DRAG_ORIGINALS_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"

/* Is the stored loader handle a the loader b (the hook's local ref)? ctx is
 * the call's (drag.c: the calling thread's JNIEnv). */
typedef int (*ht_orig_same_fn)(void *ctx, const void *stored, const void *probe);
/* Is the stored loader gone (collected)? The boot loader (NULL) never is. */
typedef int (*ht_orig_gone_fn)(void *ctx, const void *stored);
/* Release a stored loader handle (drag.c: DeleteWeakGlobalRef). */
typedef void (*ht_orig_drop_fn)(void *ctx, void *stored);

typedef struct ht_orig ht_orig; /* one class's original bytes */

typedef struct ht_orig_store {
    ht_map heads;     /* key -> its entries (ht_orig *), one per loader */
    ht_orig *all;     /* every entry, newest first */
    size_t bytes;     /* compressed bytes and bookkeeping held */
    size_t max_bytes; /* the bound on bytes */
    uint32_t count;   /* entries */
} ht_orig_store;

#define HT_ORIG_MAX_CLASS (64u << 20) /* a class file larger is never kept */

void ht_orig_init(ht_orig_store *s, size_t max_bytes);
/* 1 when (key, loader) has its original kept, else 0. */
int ht_orig_has(const ht_orig_store *s, uint32_t key, const void *loader, ht_orig_same_fn same,
                void *ctx);
/* Keep data (len bytes) as the original of (key, loader). 1: kept, and the
 * store now owns loader's handle; 0: one is kept already (nothing changed);
 * -1: refused (past the bound, too large, out of memory); with 0 and -1 the
 * caller still owns loader's handle. */
int ht_orig_put(ht_orig_store *s, uint32_t key, void *loader, const uint8_t *data, size_t len,
                ht_orig_same_fn same, void *ctx);
/* Replace the kept original of (key, loader) with data (len bytes): 1 when
 * replaced, 0 when none is kept, -1 refused (the old one stays). The store
 * keeps its own loader handle. */
int ht_orig_replace(ht_orig_store *s, uint32_t key, const void *loader, const uint8_t *data,
                    size_t len, ht_orig_same_fn same, void *ctx);
/* The original of (key, loader) into memory from alloc(actx, size) (drag.c:
 * JVMTI Allocate): 1 with *out and *out_len, 0 when none is kept, -1 when
 * alloc failed or the kept bytes do not inflate to their length (then
 * nothing is allocated). */
int ht_orig_get(const ht_orig_store *s, uint32_t key, const void *loader, ht_orig_same_fn same,
                void *ctx, uint8_t *(*alloc)(void *actx, size_t n), void *actx, uint8_t **out,
                size_t *out_len);
/* Free the entries whose loader is gone; how many. */
uint32_t ht_orig_prune(ht_orig_store *s, ht_orig_gone_fn gone, ht_orig_drop_fn drop, void *ctx);
/* Free every entry (drop releases each loader handle; NULL: none to release)
 * and the store's memory; the store is empty and usable again. */
void ht_orig_free(ht_orig_store *s, ht_orig_drop_fn drop, void *ctx);

#endif
