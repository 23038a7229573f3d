/*
 * sampler.h - the JVMTI callbacks that run on application and VM threads.
 *
 * Runs on application threads (SampledObjectAlloc) and the VM thread inside a
 * GC pause (GarbageCollectionStart/Finish): no I/O, no blocking on the
 * collector, no locks of ours on the common path; the GC callbacks only read a
 * clock and update atomics, as JVMTI requires there. What cannot be queued is
 * dropped and counted. tests/hotpath_symbols.sh fails the build's tests if the
 * object file references any I/O, nng or waiting function.
 */
#ifndef HEAPTOP_SAMPLER_H
#define HEAPTOP_SAMPLER_H

#include <jvmti.h>
#include <stdint.h>

void JNICALL ht_on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                 jclass klass, jlong size);
void JNICALL ht_on_gc_start(jvmtiEnv *jvmti);
/* On the new thread: which interval HotSpot drew its first gap with, and its
 * record for the CPU sampler (cpu_sampler.h). */
void JNICALL ht_on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
void JNICALL ht_on_gc_finish(jvmtiEnv *jvmti);
/* On an ending thread: the CPU sampler lets it go (cpu_sampler.h). */
void JNICALL ht_on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
/* The id of a stack (leaf first) in the trace table, interned with its
 * classes pinned until the collector has named them (the CPU sampler's
 * stacks go the same way as allocation stacks); HT_TRACE_OVERFLOW past the
 * table's cap. Any thread with a JNI environment. */
uint32_t ht_sampler_intern(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *frames, jint count);
/* Mark the calling thread as the agent's own: its allocations are never sampled. */
void ht_sampler_mark_agent_thread(void);

#endif
