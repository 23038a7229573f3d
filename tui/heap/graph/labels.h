/*
 * labels.h - objects and GC roots of a snapshot named for people: an
 * object's class as the heap screens, the exports and the paths from GC
 * roots write it, a root's kind, and a root record with its thread and
 * frame.
 *
 * Threads: any, on a finished snapshot (read-only). Must never: write past
 * the caller's buffer; a missing name (a UTF8 id, a frame, a thread the dump
 * does not hold) is written "?".
 */
#ifndef HEAPTOP_LABELS_H
#define HEAPTOP_LABELS_H

#include "snapshot.h"

#include <stddef.h>

/* An object's class for people: "java.lang.Object[]", "int[]",
 * "java.lang.Class(demo.App)" for a class object. */
void ht_object_label(const ht_snapshot *s, uint32_t n, char *buf, size_t cap);

/* Class c's loader in words, as the heap classes screen's LOADER column
 * says it: "boot", the loader's name (ClassLoader.name), or its class. */
void ht_loader_label(const ht_snapshot *s, uint32_t c, char *buf, size_t cap);

/* A root kind in words: "system class", "JNI global", "Java frame". */
const char *ht_root_kind_name(unsigned kind);
/* Root record r in words, with its thread and frame where it has them:
 * 'Java frame: thread "main" at demo.App.run(App.java:42)'. */
void ht_root_describe(const ht_snapshot *s, uint32_t r, char *buf, size_t cap);

#endif
