/*
 * symbols.h - the agent's dictionaries: classes, methods, traces.
 *
 * Owns: names resolved from JVMTI (class signatures turned into Java names,
 * method names with their source file and line table), the resolved form of
 * each trace (method id + line per frame), and the ids not yet announced on the
 * stream. Runs on the collector thread only, never on an allocating thread; it
 * releases the global refs the sampler took to keep new classes loaded until
 * their names were read. Hidden classes (lambdas) are named without the parts
 * that change from run to run (hidden_names.h). Wire ids: classes keep the sampler's
 * ids, methods are numbered here from 1, traces keep the trace table's ids.
 */
#ifndef HEAPTOP_SYMBOLS_H
#define HEAPTOP_SYMBOLS_H

#include <jvmti.h>
#include <stdint.h>

#include "emit.h"
#include "hidden_names.h"
#include "names.h"
#include "protocol.h"
#include "trace_table.h"

typedef struct ht_method {
    jmethodID mid;
    char *cls;
    char *name;
    char *src;
} ht_method;

typedef struct ht_rtrace { /* a resolved trace */
    uint32_t id;
    uint16_t depth;
    ht_frame_rec *frames;
} ht_rtrace;

typedef struct ht_idlist {
    uint32_t *ids;
    uint32_t n, cap;
} ht_idlist;

typedef struct ht_symbols {
    ht_method *methods; /* index = method id - 1 */
    uint32_t nmethods, cap_methods;
    ht_map mindex;  /* jmethodID -> method id */
    char **classes; /* index = class id */
    uint32_t cap_classes;
    ht_rtrace *traces; /* resolved, in order of resolution */
    uint32_t ntraces, cap_traces;
    ht_hidden_names hidden; /* stable names for lambdas and other hidden classes */
    /* ids to announce on the stream */
    ht_idlist new_classes, new_methods, new_traces; /* traces: index into traces */
} ht_symbols;

int ht_symbols_init(ht_symbols *s);
/* Resolve everything the sampler queued (classes, traces). */
void ht_symbols_drain(ht_symbols *s, jvmtiEnv *jvmti, JNIEnv *jni);
/* Emit dictionary messages (classes, methods, then traces, so every
 * id is defined before it is used). fresh = only what was not announced yet. */
void ht_symbols_emit(ht_symbols *s, ht_sink *sink, int fresh);
void ht_symbols_clear_new(ht_symbols *s);

#endif
