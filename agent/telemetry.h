/*
 * telemetry.h - once-a-second VM measurements.
 *
 * Owns: the sources of the readings and the last minutes of them in a ring,
 * so a viewer that connects late still gets a history, and the VM's count of
 * finished collections (from its GC beans: they count collections, where the
 * agent's JVMTI events count pauses; the live sweep needs both). Heap figures come from
 * java.lang.Runtime, GC pauses from the agent's own GarbageCollectionStart/
 * Finish timing, threads, classes and allocated bytes from the JDK's thread
 * and class-loading beans, obtained without the platform MXBean machinery
 * (see find_beans in telemetry.c for why). Collector thread only: it calls
 * Java through JNI, which allocates on the Java heap, and the collector thread
 * is excluded from sampling. Any Java exception is cleared and the reading
 * left at its previous value: telemetry never disturbs the application.
 */
#ifndef HEAPTOP_TELEMETRY_H
#define HEAPTOP_TELEMETRY_H

#include <jni.h>

#include "protocol.h"

#define HT_TELEMETRY_HISTORY  600 /* ten minutes at one reading a second */
#define HT_TELEMETRY_GC_BEANS 8

typedef struct ht_telemetry {
    int ready;
    jobject runtime, thread_bean, class_bean;
    jmethodID total_memory, free_memory, max_memory;
    jmethodID thread_count, started_count, total_alloc;
    jmethodID loaded_count;
    jobject gc_beans[HT_TELEMETRY_GC_BEANS]; /* the beans that count collections, not pauses */
    jmethodID gc_count[HT_TELEMETRY_GC_BEANS];
    int ngc_beans;
    uint32_t concurrent_cycles; /* bit k: bean k counts concurrent cycles (ZGC, Shenandoah) */
    uint32_t late_cycles;       /* bit k: bean k's cycles prove late (generational ZGC's majors) */
    ht_telemetry_rec history[HT_TELEMETRY_HISTORY];
    uint32_t nhistory, head; /* head = index of the oldest */
} ht_telemetry;

int ht_telemetry_init(ht_telemetry *t, JNIEnv *jni);
void ht_telemetry_destroy(ht_telemetry *t, JNIEnv *jni);
/* Take one reading into *out (fields the agent owns are filled by the caller
 * before ht_telemetry_push). */
void ht_telemetry_read(ht_telemetry *t, JNIEnv *jni, ht_telemetry_rec *out);
void ht_telemetry_push(ht_telemetry *t, const ht_telemetry_rec *r);
/* Collections the VM has finished, one count per kind (per GC bean) into
 * counts[0..HT_TELEMETRY_GC_BEANS); returns how many, 0 when the VM does not say. */
int ht_telemetry_collections(ht_telemetry *t, JNIEnv *jni, uint64_t *counts);
/* i-th reading, oldest first. */
const ht_telemetry_rec *ht_telemetry_at(const ht_telemetry *t, uint32_t i);

#endif
