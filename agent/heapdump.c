/* heapdump.c - see heapdump.h. */
#include "heapdump.h"

#include "cpu_sampler.h"

#include "agent_state.h"
#include "bytesize.h"
#include "dump_marker.h"
#include "sampler.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The one job: what the collector asked for (written before the thread
 * starts, read-only after), and the outcome (under g_lock, done last). */
typedef struct dump_job {
    uint64_t id;
    uint8_t flags;
    char path[HT_DUMP_PATH_MAX];
    ht_marker marker; /* the dump thread's from its start */
    int done, ok;
    uint64_t bytes, elapsed_ms;
    char error[2048];
    size_t marked;       /* sampled objects marked in the dump */
    char mark_note[256]; /* why none were, or "" */
} dump_job;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static dump_job g_job;

/* Files to remove at the way out (those not kept) and their directory. */
typedef struct dump_file {
    char path[HT_DUMP_PATH_MAX];
    int keep;
} dump_file;
static pthread_mutex_t g_files_lock = PTHREAD_MUTEX_INITIALIZER;
static dump_file *g_files;
static size_t g_nfiles, g_capfiles;
static char g_dir[HT_DUMP_PATH_MAX];
static int g_hook;

/* BASE.dumps: created 0700, or an existing one that is ours and closed to
 * others. Its absolute path into dir. */
static int dump_dir(const char *base, char *dir, size_t n, char *err, size_t errn)
{
    char d[HT_DUMP_PATH_MAX];
    if (snprintf(d, sizeof d, "%s.dumps", base) >= (int)sizeof d) {
        snprintf(err, errn, "the dump directory's path is too long");
        return -1;
    }
    if (mkdir(d, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errn, "cannot create the dump directory %s: %s", d, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(d, &st) != 0) {
        snprintf(err, errn, "cannot stat the dump directory %s: %s", d, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0077)) {
        snprintf(err, errn,
                 "the dump directory %s is not a private directory of this user (mode %03o, "
                 "uid %u): a heap dump holds the heap's contents",
                 d, (unsigned)(st.st_mode & 0777), (unsigned)st.st_uid);
        return -1;
    }
    char real[PATH_MAX];
    if (!realpath(d, real) || strlen(real) >= n) {
        snprintf(err, errn, "cannot resolve the dump directory %s", d);
        return -1;
    }
    snprintf(dir, n, "%s", real);
    return 0;
}

static void remove_files_at_exit(void)
{
    ht_heapdump_remove_files();
}

/* Remember a file to remove at the way out unless kept. 0 or -1 (OOM). */
static int track_file(const char *dir, const char *path, int keep)
{
    pthread_mutex_lock(&g_files_lock);
    int rc = 0;
    if (g_nfiles == g_capfiles) {
        size_t cap = g_capfiles ? g_capfiles * 2 : 8;
        dump_file *f = realloc(g_files, cap * sizeof *f);
        if (f) {
            g_files = f;
            g_capfiles = cap;
        } else {
            rc = -1;
        }
    }
    if (rc == 0) {
        snprintf(g_files[g_nfiles].path, sizeof g_files[g_nfiles].path, "%s", path);
        g_files[g_nfiles++].keep = keep;
        snprintf(g_dir, sizeof g_dir, "%s", dir);
        if (!g_hook && atexit(remove_files_at_exit) == 0) g_hook = 1;
    }
    pthread_mutex_unlock(&g_files_lock);
    return rc;
}

void ht_heapdump_remove_files(void)
{
    pthread_mutex_lock(&g_files_lock);
    for (size_t i = 0; i < g_nfiles; i++)
        if (!g_files[i].keep && g_files[i].path[0]) unlink(g_files[i].path);
    if (g_dir[0]) rmdir(g_dir); /* only when empty: kept dumps stay in it */
    free(g_files);
    g_files = NULL;
    g_nfiles = g_capfiles = 0;
    g_dir[0] = '\0';
    pthread_mutex_unlock(&g_files_lock);
}

/* The pending Java exception as "class: message" into err, prefixed with
 * what failed; cleared, and nothing pending after. */
static void take_exception(JNIEnv *jni, const char *what, char *err, size_t errn)
{
    jthrowable t = (*jni)->ExceptionOccurred(jni);
    (*jni)->ExceptionClear(jni);
    snprintf(err, errn, "%s", what);
    if (!t) return;
    jclass oc = (*jni)->FindClass(jni, "java/lang/Object");
    jmethodID to_string =
        oc ? (*jni)->GetMethodID(jni, oc, "toString", "()Ljava/lang/String;") : NULL;
    jstring s = to_string ? (*jni)->CallObjectMethod(jni, t, to_string) : NULL;
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        s = NULL;
    }
    const char *text = s ? (*jni)->GetStringUTFChars(jni, s, NULL) : NULL;
    if (text) {
        snprintf(err, errn, "%s: %s", what, text);
        (*jni)->ReleaseStringUTFChars(jni, s, text);
    }
    (*jni)->ExceptionClear(jni);
}

/* HotSpotDiagnosticMXBean.dumpHeap(path, live) through JNI. 1 written, or 0
 * with the reason in err. Local references go with the frame. */
static int dump_heap(JNIEnv *jni, const char *path, int live, char *err, size_t errn)
{
    if ((*jni)->PushLocalFrame(jni, 32) != 0) {
        (*jni)->ExceptionClear(jni);
        snprintf(err, errn, "out of memory in the JVM before the dump");
        return 0;
    }
    int ok = 0;
    const char *step = "the JVM has no java.lang.management.ManagementFactory";
    jclass mf = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jmethodID get = NULL, dump = NULL;
    jclass hs = NULL;
    jobject bean = NULL;
    jstring jpath = NULL;
    if (mf && !(*jni)->ExceptionCheck(jni))
        get = (*jni)->GetStaticMethodID(
            jni, mf, "getPlatformMXBean",
            "(Ljava/lang/Class;)Ljava/lang/management/PlatformManagedObject;");
    if (get && !(*jni)->ExceptionCheck(jni)) {
        step = "the JVM has no com.sun.management.HotSpotDiagnosticMXBean (a HotSpot JVM with "
               "the jdk.management module writes heap dumps)";
        hs = (*jni)->FindClass(jni, "com/sun/management/HotSpotDiagnosticMXBean");
    }
    if (hs && !(*jni)->ExceptionCheck(jni)) {
        step = "cannot get the HotSpotDiagnosticMXBean";
        bean = (*jni)->CallStaticObjectMethod(jni, mf, get, hs);
    }
    if (bean && !(*jni)->ExceptionCheck(jni))
        dump = (*jni)->GetMethodID(jni, hs, "dumpHeap", "(Ljava/lang/String;Z)V");
    if (dump && !(*jni)->ExceptionCheck(jni)) {
        step = "out of memory in the JVM before the dump";
        jpath = (*jni)->NewStringUTF(jni, path);
    }
    if (jpath && !(*jni)->ExceptionCheck(jni)) {
        step = "the JVM could not write the heap dump";
        (*jni)->CallVoidMethod(jni, bean, dump, jpath, live ? JNI_TRUE : JNI_FALSE);
        ok = !(*jni)->ExceptionCheck(jni);
    }
    if (!ok) take_exception(jni, step, err, errn);
    (*jni)->PopLocalFrame(jni, NULL);
    return ok;
}

/* The dump thread: one dump, then it ends. */
static void JNICALL dump_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)jvmti;
    dump_job *j = arg;
    ht_sampler_mark_agent_thread();          /* its allocations are not the application's */
    ht_cpu_sampler_mark_agent_thread(jvmti); /* nor its CPU */
    char error[2048] = "";
    uint64_t t0 = ht_now_ns();
    jobject marker = ht_marker_build(&j->marker, jni);
    int ok = dump_heap(jni, j->path, !(j->flags & HT_DUMP_ALL), error, sizeof error);
    uint64_t elapsed_ms = (ht_now_ns() - t0) / 1000000u;
    ht_marker_release(&j->marker, jni, marker);
    uint64_t bytes = 0;
    struct stat st;
    if (ok && (lstat(j->path, &st) != 0 || !S_ISREG(st.st_mode))) {
        ok = 0;
        snprintf(error, sizeof error, "the JVM said it wrote the dump, but %s is not a file",
                 j->path);
    } else if (ok) {
        bytes = (uint64_t)st.st_size;
        /* HotSpot creates it 0600; make sure, whatever the JDK */
        if ((st.st_mode & 07777) != 0600 && chmod(j->path, 0600) != 0) {
            ok = 0;
            snprintf(error, sizeof error, "cannot make %s private (mode 0600): %s", j->path,
                     strerror(errno));
        }
    }
    if (!ok) unlink(j->path); /* a dump cut short (disk full) leaves part of a file */
    pthread_mutex_lock(&g_lock);
    j->ok = ok;
    j->bytes = bytes;
    j->elapsed_ms = elapsed_ms;
    snprintf(j->error, sizeof j->error, "%s", error);
    j->marked = j->marker.marked;
    snprintf(j->mark_note, sizeof j->mark_note, "%s", j->marker.note);
    j->done = 1; /* the last touch of j: the next dump may reuse it */
    pthread_mutex_unlock(&g_lock);
}

static int start_thread(jvmtiEnv *jvmti, JNIEnv *jni)
{
    if ((*jni)->PushLocalFrame(jni, 8) != 0) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID ctor = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring name = ctor ? (*jni)->NewStringUTF(jni, "heaptop-heapdump") : NULL;
    jobject thread = name ? (*jni)->NewObject(jni, cls, ctor, name) : NULL;
    int rc = -1;
    if (thread && !(*jni)->ExceptionCheck(jni) &&
        (*jvmti)->RunAgentThread(jvmti, thread, dump_main, &g_job, JVMTI_THREAD_NORM_PRIORITY) ==
            JVMTI_ERROR_NONE)
        rc = 0;
    (*jni)->ExceptionClear(jni);
    (*jni)->PopLocalFrame(jni, NULL);
    return rc;
}

int ht_dumps_start(ht_dumps *ds, jvmtiEnv *jvmti, JNIEnv *jni, const char *base, uint8_t flags,
                   uint64_t heap_used, uint64_t heap_max, const ht_aggs *tracked,
                   const uint8_t *session, size_t session_len, uint64_t *id, char *err, size_t errn)
{
    if (ds->running) {
        snprintf(err, errn, "a heap dump is already being written (dump %llu, %s)",
                 (unsigned long long)ds->current.rec.id, ds->current.path);
        return HT_EBUSY;
    }
    char dir[HT_DUMP_PATH_MAX];
    if (dump_dir(base, dir, sizeof dir, err, errn) != 0) return HT_EINTERNAL;
    struct statvfs vs;
    if (statvfs(dir, &vs) == 0 && heap_used) {
        uint64_t avail = (uint64_t)vs.f_bavail * (uint64_t)vs.f_frsize;
        if (avail < heap_used) {
            char a[32], h[32];
            ht_format_bytes(avail, a, sizeof a);
            ht_format_bytes(heap_used, h, sizeof h);
            snprintf(err, errn,
                     "not enough disk space for a heap dump: %s has %s free (%llu bytes), less "
                     "than the heap uses, %s (%llu bytes); a dump is about that size or larger",
                     dir, a, (unsigned long long)avail, h, (unsigned long long)heap_used);
            return HT_ENOSPACE;
        }
    }
    uint64_t n = ds->next_id + 1;
    char path[HT_DUMP_PATH_MAX];
    struct stat st;
    int found = 0;
    for (unsigned k = 0; k < 1000 && !found; k++) { /* a kept dump of an earlier JVM may have it */
        int w = k ? snprintf(path, sizeof path, "%s/heap-%d-%llu-%u.hprof", dir, (int)getpid(),
                             (unsigned long long)n, k)
                  : snprintf(path, sizeof path, "%s/heap-%d-%llu.hprof", dir, (int)getpid(),
                             (unsigned long long)n);
        if (w < 0 || w >= (int)sizeof path) break;
        found = lstat(path, &st) != 0 && errno == ENOENT;
    }
    if (!found) {
        snprintf(err, errn, "cannot find a free file name in %s", dir);
        return HT_EINTERNAL;
    }
    if (track_file(dir, path, flags & HT_DUMP_KEEP) != 0) {
        snprintf(err, errn, "out of memory starting a heap dump");
        return HT_EINTERNAL;
    }
    memset(&g_job, 0, sizeof g_job);
    g_job.id = n;
    g_job.flags = flags;
    snprintf(g_job.path, sizeof g_job.path, "%s", path);
    if (flags & HT_DUMP_PLAIN)
        snprintf(g_job.marker.note, sizeof g_job.marker.note,
                 "sampled objects not marked (a plain dump, as asked)");
    else
        ht_marker_prepare(&g_job.marker, jni, tracked, session, session_len,
                          heap_max > heap_used ? heap_max - heap_used : 0);
    if (start_thread(jvmti, jni) != 0) {
        ht_marker_release(&g_job.marker, jni, NULL);
        snprintf(err, errn, "cannot start the heap dump thread");
        return HT_EINTERNAL;
    }
    ds->next_id = n;
    ds->running = 1;
    ht_dump_entry *e = &ds->current;
    memset(e, 0, sizeof *e);
    e->rec.id = n;
    e->rec.state = HT_DUMP_RUNNING;
    e->rec.flags = flags;
    e->rec.heap_used = heap_used;
    e->start_ns = ht_now_ns();
    snprintf(e->path, sizeof e->path, "%s", path);
    *id = n;
    return HT_OK;
}

int ht_dumps_poll(ht_dumps *ds)
{
    if (!ds->running) return 0;
    pthread_mutex_lock(&g_lock);
    int done = g_job.done;
    ht_dump_entry *e = &ds->current;
    if (done) {
        e->rec.state = g_job.ok ? HT_DUMP_DONE : HT_DUMP_FAILED;
        e->rec.bytes = g_job.bytes;
        e->rec.elapsed_ms = g_job.elapsed_ms;
        snprintf(e->error, sizeof e->error, "%s", g_job.error);
        e->marked = g_job.marked;
        e->rec.marked = g_job.marked;
        snprintf(e->mark_note, sizeof e->mark_note, "%s", g_job.mark_note);
        g_job.done = 0;
    }
    pthread_mutex_unlock(&g_lock);
    if (!done) return 0;
    e->rec.t_ms = ht_agent_ms();
    if (ds->nended == HT_DUMPS_ENDED) {
        memmove(&ds->ended[0], &ds->ended[1], (HT_DUMPS_ENDED - 1) * sizeof ds->ended[0]);
        ds->nended--;
    }
    ds->ended[ds->nended++] = *e;
    ds->running = 0;
    return 1;
}

static void emit_entry(const ht_dump_entry *e, ht_sink *sink)
{
    ht_buf b;
    ht_buf_init(&b);
    ht_enc_heap_dump(&b, ht_sink_next_seq(sink), &e->rec, e->path, e->error);
    ht_sink_emit_buf(sink, &b);
    ht_buf_free(&b);
}

void ht_dumps_emit_current(ht_dumps *ds, ht_sink *sink)
{
    if (!ds->running) return;
    ds->current.rec.t_ms = ht_agent_ms();
    ds->current.rec.elapsed_ms = (ht_now_ns() - ds->current.start_ns) / 1000000u;
    emit_entry(&ds->current, sink);
}

void ht_dumps_emit_last(const ht_dumps *ds, ht_sink *sink)
{
    if (ds->nended) emit_entry(&ds->ended[ds->nended - 1], sink);
}

void ht_dumps_emit_all(ht_dumps *ds, ht_sink *sink)
{
    for (uint32_t i = 0; i < ds->nended; i++)
        emit_entry(&ds->ended[i], sink);
    ht_dumps_emit_current(ds, sink);
}
