/*
 * drag_loaders.h - drag mode's class loaders: which ones see the helper
 * heaptop/Drag, so that the injected call to it links. drag.c rewrites only
 * the classes of such loaders; a class whose loader does not see the helper
 * (one that does not delegate to the JDK's loaders) is left alone and
 * counted failed.
 *
 * Owns: global refs to the JDK's system and platform loaders (found once,
 * before the hook is first enabled, kept for the JVM's life), weak refs to
 * the loaders checked that see the helper (at most 256, under a mutex of its
 * own) and to those that do not (at most 64, collector thread only), and
 * whether the left-alone line was said.
 *
 * Threads: ht_drag_loaders_sees and ht_drag_loaders_say run on any thread
 * (drag.c's ClassFileLoadHook): JNI and JVMTI only, never a Java call, the
 * mutex held only over a scan of the list. ht_drag_loaders_find_jdk and
 * ht_drag_loaders_check run on the collector thread and call Java. Must
 * never: call Java from the hook's side, or keep a strong ref to a checked
 * loader (it would never unload).
 */
#ifndef HEAPTOP_DRAG_LOADERS_H
#define HEAPTOP_DRAG_LOADERS_H

#include <jvmti.h>

/* The JDK's platform and system loaders, as global refs, once. Collector
 * thread, before the hook is first enabled: the hook reads them. */
void ht_drag_loaders_find_jdk(JNIEnv *jni);

/* Does loader (NULL: the boot loader) see the helper class, as far as
 * checked? Any thread; JNI only. */
int ht_drag_loaders_sees(JNIEnv *jni, jobject loader);

/* Does loader see helper (drag.c's global ref to heaptop/Drag)? Checked
 * once (Class.forName("heaptop.Drag", false, loader) is the helper), and
 * remembered. Collector thread: this calls Java (the loader's own
 * loadClass). */
int ht_drag_loaders_check(JNIEnv *jni, jobject loader, jclass helper);

/* Once per agent: a line for class dot left alone since its loader does not
 * see the helper, with the loader's class. Any thread; JNI and JVMTI only. */
void ht_drag_loaders_say(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, const char *dot);

#endif
