/*
 * drag_classes.h - drag mode's questions about loaded classes, through
 * JVMTI: which classes of a filter to retransform. Classes in named modules
 * are rewritten like any other: when a ClassFileLoadHook changes a class of
 * a named module, HotSpot makes that module read the unnamed modules of the
 * boot and application loaders (jdk.internal.module.Modules.
 * transformedByAgent), so the injected call to heaptop/Drag (boot loader,
 * unnamed module) links (test_drag_modules, JDK 17 and 25).
 *
 * Also drag mode's capabilities, and the JNI side of drag_originals.h (class
 * loaders as weak global refs).
 *
 * Owns: whether the capabilities are taken; nothing else kept between calls.
 * Threads: the originals' callbacks run on any thread (drag.c's
 * ClassFileLoadHook): JNI and JVMTI only, no Java call, no lock, no
 * allocation beyond JVMTI's own; the rest runs on the collector thread (or
 * OnLoad). Must never: retransform the helper class. (Its caller must never
 * retransform a class without an instance method to inject into and without
 * kept original bytes: the JVM rebuilds such a class's bytes and they grew at
 * each on/off.)
 */
#ifndef HEAPTOP_DRAG_CLASSES_H
#define HEAPTOP_DRAG_CLASSES_H

#include <jvmti.h>
#include <stdint.h>

#define HT_DRAG_NAME_MAX 1024u /* longer class names are left alone (counted failed) */

/* The internal name with '.' for '/' into out (n bytes, terminated). */
void ht_drag_dotted(const char *internal, char *out, size_t n);

typedef struct ht_drag_retransformed {
    uint32_t classes; /* handed to RetransformClasses */
    uint32_t refused; /* of those, refused by the JVM */
} ht_drag_retransformed;

/* Which of the filter's modifiable classes to retransform: k, its internal
 * name, and whether it has an instance method with code (1), none (0) or is
 * not prepared yet (-1: not known). Nonzero: retransform it. */
typedef int (*ht_drag_pick_fn)(void *ctx, jclass k, const char *name, int code);

/* Retransform the loaded classes whose dotted name matches filter and that
 * pick_fn picks; what the hook does to them is up to its mode (drag.c). */
void ht_drag_retransform(jvmtiEnv *jvmti, JNIEnv *jni, const char *filter, ht_drag_pick_fn pick_fn,
                         void *ctx, ht_drag_retransformed *out);

/* drag mode's capabilities (can_retransform_classes, and
 * can_generate_all_class_hook_events when offered), once: 0, or -1 with one
 * line in err. OnLoad or the collector thread. */
int ht_drag_take_caps(jvmtiEnv *jvmti, char *err, size_t errn);

/* drag_originals.h's callbacks over JNI weak global refs to class loaders
 * (ctx: the calling thread's JNIEnv), and its allocator over JVMTI Allocate
 * (ctx: the jvmtiEnv), for the bytes a hook hands the JVM. Any thread. */
int ht_drag_same_loader(void *ctx, const void *stored, const void *probe);
int ht_drag_loader_gone(void *ctx, const void *stored);
void ht_drag_drop_loader(void *ctx, void *stored);
uint8_t *ht_drag_jvmti_alloc(void *ctx, size_t n);

#endif
