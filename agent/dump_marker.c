/* dump_marker.c - see dump_marker.h. */
#include "dump_marker.h"

#include "bytesize.h"
#include "heap_marker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes a sample costs in the Java heap: a WeakReference (header and four
 * references, uncompressed at worst), its slot in the array, its table row. */
#define SAMPLE_HEAP_BYTES (48 + 8 + 8 * HT_MARKER_WORDS)

static void copy_list(ht_marker *m, JNIEnv *jni, const ht_aggs *a, const ht_live_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const ht_live_entry *e = &l->v[i];
        jweak w = (*jni)->NewWeakGlobalRef(jni, (jweak)(uintptr_t)e->ref);
        if (!w) { /* gone already, or out of handles */
            (*jni)->ExceptionClear(jni);
            continue;
        }
        const ht_agg_rec *row = &a->rows[e->agg];
        m->v[m->n++] = (ht_marker_sample){.ref = w,
                                          .serial = e->serial,
                                          .trace_id = row->trace_id,
                                          .class_id = row->class_id,
                                          .bytes = e->bytes,
                                          .instances = e->instances};
    }
}

void ht_marker_prepare(ht_marker *m, JNIEnv *jni, const ht_aggs *a, const uint8_t *session,
                       size_t len, uint64_t headroom)
{
    memset(m, 0, sizeof *m);
    size_t n = a->live.young.n + a->live.live.n;
    /* With no sample the marker is still made, empty: its session says which
     * run took the dump, so a later dump's survivors can tell "none of these
     * were alive" from "another run" or "not heaptop's dump". */
    if (n == 0)
        snprintf(m->note, sizeof m->note, "no sampled object is tracked (live=off, or none yet)");
    uint64_t need = (uint64_t)n * SAMPLE_HEAP_BYTES + len;
    if (headroom && need > headroom / 4) {
        char nb[32], hb[32];
        ht_format_bytes(need, nb, sizeof nb);
        ht_format_bytes(headroom, hb, sizeof hb);
        snprintf(m->note, sizeof m->note,
                 "sampled objects not marked: the marker takes %s of Java heap, and the heap "
                 "has %s free",
                 nb, hb);
        return;
    }
    m->v = malloc((n ? n : 1) * sizeof *m->v);
    m->session = len && len < 0x7fffffff ? malloc(len) : NULL;
    if (m->session) {
        memcpy(m->session, session, len);
        m->session_len = len;
    }
    if (!m->v) {
        snprintf(m->note, sizeof m->note, "sampled objects not marked: out of memory");
        return;
    }
    copy_list(m, jni, a, &a->live.live);
    copy_list(m, jni, a, &a->live.young);
}

/* The marker's long[] table. NULL with the exception cleared on failure. */
static jlongArray make_table(ht_marker *m, JNIEnv *jni)
{
    size_t len = HT_MARKER_HEAD + m->n * HT_MARKER_WORDS;
    jlong *t = malloc(len * sizeof *t);
    if (!t) return NULL;
    t[0] = HT_MARKER_MAGIC;
    t[1] = HT_MARKER_VERSION;
    t[2] = (jlong)m->n;
    for (size_t i = 0; i < m->n; i++) {
        jlong *row = t + HT_MARKER_HEAD + i * HT_MARKER_WORDS;
        const ht_marker_sample *s = &m->v[i];
        row[0] = (jlong)s->serial;
        row[1] = (jlong)((uint64_t)s->trace_id << 32 | s->class_id);
        memcpy(&row[2], &s->bytes, sizeof(double));
        memcpy(&row[3], &s->instances, sizeof(double));
    }
    jlongArray a = (*jni)->NewLongArray(jni, (jsize)len);
    if (a && !(*jni)->ExceptionCheck(jni)) (*jni)->SetLongArrayRegion(jni, a, 0, (jsize)len, t);
    free(t);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    return a;
}

jobject ht_marker_build(ht_marker *m, JNIEnv *jni)
{
    if (!m->v) return NULL; /* not prepared: the note says why */
    if (m->n >= (size_t)0x7fffffff / HT_MARKER_WORDS - HT_MARKER_HEAD - HT_MARKER_FIRST) {
        snprintf(m->note, sizeof m->note, "sampled objects not marked: too many (%zu)", m->n);
        return NULL;
    }
    if ((*jni)->PushLocalFrame(jni, 16) != 0) {
        (*jni)->ExceptionClear(jni);
        snprintf(m->note, sizeof m->note, "sampled objects not marked: out of JNI handles");
        return NULL;
    }
    jobject global = NULL;
    jclass obj_class = (*jni)->FindClass(jni, "java/lang/Object");
    jclass weak_class = obj_class ? (*jni)->FindClass(jni, "java/lang/ref/WeakReference") : NULL;
    jmethodID ctor =
        weak_class ? (*jni)->GetMethodID(jni, weak_class, "<init>", "(Ljava/lang/Object;)V") : NULL;
    jobjectArray marker =
        ctor ? (*jni)->NewObjectArray(jni, (jsize)(m->n + HT_MARKER_FIRST), obj_class, NULL) : NULL;
    jlongArray table = marker && !(*jni)->ExceptionCheck(jni) ? make_table(m, jni) : NULL;
    jbyteArray names = table ? (*jni)->NewByteArray(jni, (jsize)m->session_len) : NULL;
    if (names && !(*jni)->ExceptionCheck(jni) && m->session_len)
        (*jni)->SetByteArrayRegion(jni, names, 0, (jsize)m->session_len, (const jbyte *)m->session);
    if (names && !(*jni)->ExceptionCheck(jni)) {
        (*jni)->SetObjectArrayElement(jni, marker, 0, table);
        (*jni)->SetObjectArrayElement(jni, marker, 1, names);
        size_t i = 0;
        for (; i < m->n; i++) {
            jobject o = (*jni)->NewLocalRef(jni, m->v[i].ref);
            if (!o) continue; /* died since: its slot stays null */
            jobject w = (*jni)->NewObject(jni, weak_class, ctor, o);
            if (!w || (*jni)->ExceptionCheck(jni)) break;
            (*jni)->SetObjectArrayElement(jni, marker, (jsize)(i + HT_MARKER_FIRST), w);
            (*jni)->DeleteLocalRef(jni, w);
            (*jni)->DeleteLocalRef(jni, o);
            m->marked++;
        }
        if (i == m->n) global = (*jni)->NewGlobalRef(jni, marker);
    }
    if (!global)
        snprintf(m->note, sizeof m->note,
                 "sampled objects not marked: the JVM could not build the marker (out of Java "
                 "heap?)");
    (*jni)->ExceptionClear(jni);
    (*jni)->PopLocalFrame(jni, NULL);
    if (!global) m->marked = 0;
    return global;
}

void ht_marker_release(ht_marker *m, JNIEnv *jni, jobject marker)
{
    if (marker) (*jni)->DeleteGlobalRef(jni, marker);
    for (size_t i = 0; i < m->n; i++)
        (*jni)->DeleteWeakGlobalRef(jni, m->v[i].ref);
    free(m->v);
    free(m->session);
    m->v = NULL;
    m->session = NULL;
    m->n = m->session_len = 0;
}
