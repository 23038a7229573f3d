/*
 * sampler.h - the JVMTI callbacks that run on application and GC threads.
 *
 * Runs on application threads (SampledObjectAlloc) and the VM's service/GC
 * threads (ObjectFree): no I/O, no blocking on the collector, no locks of ours
 * on the common path. What cannot be queued is dropped and counted.
 */
#ifndef HEAPTOP_SAMPLER_H
#define HEAPTOP_SAMPLER_H

#include <jvmti.h>

void JNICALL ht_on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                 jclass klass, jlong size);
void JNICALL ht_on_object_free(jvmtiEnv *jvmti, jlong tag);
/* Mark the calling thread as the agent's own: its allocations are never sampled. */
void ht_sampler_mark_agent_thread(void);

#endif
