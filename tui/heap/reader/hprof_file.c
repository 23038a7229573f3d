/*
 * hprof_file.c - a dump file brought into memory for the reader (see
 * hprof.h): opened without blocking, mapped, or inflated from gzip into a
 * temporary file and mapped; and the SIGBUS guard over those mappings.
 *
 * Threads: any; the guard's table is shared by every thread (the viewer
 * reads dumps on a job thread while its UI thread reads an older one) and
 * is read by the SIGBUS handler on whichever thread faults, so it is only
 * atomics: no lock, nothing a signal handler could deadlock on.
 *
 * Must never: block on a file that is not a regular one (a FIFO), hold a
 * gzip dump's inflated size in anonymous memory, write the inflated data
 * past the cap or the free space below, or let a shrinking file kill the
 * process with SIGBUS.
 */
#include "hprof.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

/* ---- the SIGBUS guard ----
 *
 * A file mapping whose file shrinks faults with SIGBUS on the pages past the
 * new end. Each mapping the reader makes is registered here; the handler,
 * when the faulting address is inside one, maps anonymous zero pages over
 * the rest of it (MAP_FIXED: the same addresses, so the reader goes on, now
 * over zeros, and its bounds checks stay valid) and records where it
 * happened. The reader checks that at record boundaries and phase ends
 * (ht_hprof_shrank) and ends with one error line. Any other SIGBUS goes to
 * the handler installed before, or kills the process as by default. Past
 * GUARD_SLOTS mappings at once a mapping is simply not guarded. */
#define GUARD_SLOTS 64

static struct guard {
    _Atomic uintptr_t start; /* 0: a free slot */
    _Atomic size_t len;
    _Atomic size_t fault; /* 1 + offset of the first fault, 0 for none */
} guards[GUARD_SLOTS];
static struct sigaction old_bus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static uintptr_t page_size = 4096;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (unsigned i = 0; i < GUARD_SLOTS; i++) {
        uintptr_t s = atomic_load(&guards[i].start);
        size_t n = atomic_load(&guards[i].len);
        if (!s || a < s || a - s >= n) continue;
        uintptr_t from = a & ~(page_size - 1);
        if (mmap((void *)from, s + n - from, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1,
                 0) == MAP_FAILED)
            break;
        size_t none = 0;
        atomic_compare_exchange_strong(&guards[i].fault, &none, a - s + 1);
        return;
    }
    /* not ours: as if this handler were not there */
    if ((old_bus.sa_flags & SA_SIGINFO) && old_bus.sa_sigaction) {
        old_bus.sa_sigaction(sig, si, uc);
        return;
    }
    if (!(old_bus.sa_flags & SA_SIGINFO) && old_bus.sa_handler != SIG_DFL &&
        old_bus.sa_handler != SIG_IGN) {
        old_bus.sa_handler(sig);
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGBUS, &dfl, NULL);
    if (si->si_code <= 0) raise(SIGBUS); /* sent, not a fault: a fault recurs on return */
}

static void guard_install(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    if (pg > 0) page_size = (uintptr_t)pg;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old_bus);
}

/* Guard h's mapping: h->guard is its slot + 1, or 0 when none was free. */
static void guard_add(ht_hprof *h)
{
    pthread_once(&guard_once, guard_install);
    h->guard = 0;
    for (unsigned i = 0; i < GUARD_SLOTS; i++) {
        uintptr_t none = 0;
        /* a free slot's len is 0 (guard_remove), so the handler skips it
         * until len is set */
        if (atomic_compare_exchange_strong(&guards[i].start, &none, (uintptr_t)h->data)) {
            atomic_store(&guards[i].fault, 0);
            atomic_store(&guards[i].len, h->map_size);
            h->guard = (int)i + 1;
            return;
        }
    }
}

static void guard_remove(ht_hprof *h)
{
    if (!h->guard) return;
    struct guard *g = &guards[h->guard - 1];
    atomic_store(&g->len, 0);
    atomic_store(&g->start, 0);
    h->guard = 0;
}

int ht_hprof_shrank(ht_hprof *h)
{
    if (!h->guard) return 0;
    size_t at = atomic_load(&guards[h->guard - 1].fault);
    if (!at) return 0;
    ht_hprof_error(h, HT_HPROF_ERR_TRUNC,
                   "the dump shrank while it was read: offset %zu of its %zu bytes is no longer "
                   "in the file (truncated or rewritten by someone else meanwhile)",
                   at - 1, h->size);
    return 1;
}

int ht_hprof_check(ht_hprof *h, int rc)
{
    return ht_hprof_shrank(h) ? HT_HPROF_ERR_TRUNC : rc;
}

/* ---- opening ---- */

/* Open path, which must be a non-empty regular file: HT_HPROF_OK with its
 * descriptor and size, or an error with h->err set. O_NONBLOCK, so that a
 * FIFO or a device is refused instead of waited on. */
static int open_dump(ht_hprof *h, const char *path, int *fd, size_t *size)
{
    memset(h, 0, sizeof *h);
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (*fd < 0)
        return ht_hprof_error(h, HT_HPROF_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    int rc = HT_HPROF_OK;
    if (fstat(*fd, &st) != 0)
        rc = ht_hprof_error(h, HT_HPROF_ERR_IO, "cannot stat %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = ht_hprof_error(h, HT_HPROF_ERR_IO, "%s: not a regular file", path);
    else if (st.st_size == 0)
        rc = ht_hprof_error(h, HT_HPROF_ERR_FORMAT, "%s: not an HPROF file (empty)", path);
    else if (fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        rc = ht_hprof_error(h, HT_HPROF_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    if (rc) {
        close(*fd);
        *fd = -1;
        return rc;
    }
    *size = (size_t)st.st_size;
    return HT_HPROF_OK;
}

int ht_hprof_probe(ht_hprof *h, const char *path)
{
    int fd;
    size_t size;
    int rc = open_dump(h, path, &fd, &size);
    if (rc) return rc;
    /* gzread reads a plain file as it is: one path for both */
    gzFile z = gzdopen(fd, "rb");
    if (!z) {
        close(fd);
        return ht_hprof_error(h, HT_HPROF_ERR_NOMEM, "out of memory");
    }
    uint8_t head[64];
    int n = gzread(z, head, sizeof head);
    gzclose(z);
    if (n < 0) return ht_hprof_error(h, HT_HPROF_ERR_FORMAT, "%s: corrupt gzip data", path);
    h->data = head;
    h->size = (size_t)n;
    rc = ht_hprof_read_header(h);
    h->data = NULL;
    h->size = 0;
    return rc;
}

/* ---- gzip ----
 *
 * A gzip dump (jcmd GC.heap_dump -gz=N writes one gzip member per chunk) is
 * inflated in chunks into an unlinked 0600 temporary file, which is then
 * mapped as a plain dump is: it costs disk and page cache, not anonymous
 * memory. The temporary goes in $TMPDIR, else /var/tmp (on disk on most
 * systems, where /tmp may be RAM), else /tmp. It may grow to
 * GZ_RATIO times the compressed size (GZ_FLOOR at least): real dumps
 * inflate 3-20x, deflate's limit is 1032x, so a file past the cap is taken
 * for a bomb (an HPROF header, then gigabytes of zeros) and refused; one
 * that really is that compressible can be gunzip'd and read as a plain
 * file. Nor may it leave less than GZ_KEEP_FREE on the temporary's file
 * system. Between chunks the caller's cancellation is checked, so a cancel
 * is seen within a chunk's time (a few milliseconds). */
#define GZ_RATIO     128
#define GZ_FLOOR     ((uint64_t)256 << 20)
#define GZ_KEEP_FREE ((uint64_t)256 << 20)
#define GZ_CHUNK     (1u << 20)

static const char *temp_dir(void)
{
    const char *t = getenv("TMPDIR");
    if (t && *t) return t;
    return access("/var/tmp", W_OK) == 0 ? "/var/tmp" : "/tmp";
}

/* An unlinked 0600 file in dir: O_TMPFILE, else mkstemp and unlink. */
static int temp_file(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
    char name[4096];
    snprintf(name, sizeof name, "%s/heaptop-inflate-XXXXXX", dir);
    fd = mkstemp(name);
    if (fd >= 0) {
        unlink(name);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    return fd;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

typedef struct gz {
    ht_hprof *h;
    const char *path, *dir;
    const ht_hprof_watch *w;
    int in, out;
    uint64_t zsize, cap, room, len;
    uint8_t *ibuf, *obuf;
} gz;

/* The next chunk of compressed input into st (*eof at its end). */
static int refill(gz *g, z_stream *st, int *eof, uint64_t *zread)
{
    ssize_t n;
    do
        n = read(g->in, g->ibuf, GZ_CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return ht_hprof_error(g->h, HT_HPROF_ERR_IO, "cannot read %s: %s", g->path,
                              strerror(errno));
    if (n == 0) *eof = 1;
    st->next_in = g->ibuf;
    st->avail_in = (uInt)n;
    *zread += (uint64_t)n;
    return HT_HPROF_OK;
}

static int inflate_all(gz *g, z_stream *st)
{
    ht_hprof *h = g->h;
    uint64_t zread = 0;
    int eof = 0;
    for (;;) {
        if (g->w && g->w->cancelled && g->w->cancelled(g->w->ctx))
            return ht_hprof_error(h, HT_HPROF_ERR_CANCELLED, "cancelled");
        if (st->avail_in == 0 && !eof) {
            int rc = refill(g, st, &eof, &zread);
            if (rc != HT_HPROF_OK) return rc;
            if (g->w && g->w->progress) g->w->progress(g->w->ctx, "inflating", zread, g->zsize);
        }
        st->next_out = g->obuf;
        st->avail_out = GZ_CHUNK;
        int zr = inflate(st, Z_NO_FLUSH);
        size_t made = GZ_CHUNK - st->avail_out;
        if (made) {
            if (g->len + made > g->cap)
                return ht_hprof_error(
                    h, HT_HPROF_ERR_FORMAT,
                    "gzip data inflates past %llu MiB (the cap: %dx its %llu KiB, %llu MiB at "
                    "least): refused as a likely gzip bomb; gunzip it to read it as a plain file",
                    (unsigned long long)(g->cap >> 20), GZ_RATIO,
                    (unsigned long long)(g->zsize >> 10), (unsigned long long)(GZ_FLOOR >> 20));
            if (g->len + made > g->room)
                return ht_hprof_error(h, HT_HPROF_ERR_IO,
                                      "not enough free space in %s to inflate %s: it inflates "
                                      "past %llu MiB, and %llu MiB must stay free",
                                      g->dir, g->path, (unsigned long long)(g->room >> 20),
                                      (unsigned long long)(GZ_KEEP_FREE >> 20));
            if (write_all(g->out, g->obuf, made) != 0)
                return ht_hprof_error(h, HT_HPROF_ERR_IO, "cannot inflate %s into %s: %s", g->path,
                                      g->dir, strerror(errno));
            g->len += made;
        }
        if (zr == Z_STREAM_END) {
            int rc = st->avail_in == 0 && !eof ? refill(g, st, &eof, &zread) : HT_HPROF_OK;
            if (rc != HT_HPROF_OK) return rc;
            if (st->avail_in == 0 && eof) return HT_HPROF_OK;
            inflateReset(st); /* the next gzip member */
            continue;
        }
        if (zr == Z_BUF_ERROR || (zr == Z_OK && !made && st->avail_in == 0)) {
            if (eof)
                return ht_hprof_error(h, HT_HPROF_ERR_TRUNC,
                                      "truncated gzip data in %s (the stream stops after %llu "
                                      "compressed bytes, %llu inflated)",
                                      g->path, (unsigned long long)zread,
                                      (unsigned long long)g->len);
            continue;
        }
        if (zr != Z_OK)
            return ht_hprof_error(h, HT_HPROF_ERR_FORMAT,
                                  "corrupt gzip data in %s at compressed offset %llu (zlib: %s)",
                                  g->path, (unsigned long long)(zread - st->avail_in),
                                  st->msg ? st->msg : "error");
    }
}

static int gunzip(ht_hprof *h, int fd, size_t zsize, const char *path, const ht_hprof_watch *w)
{
    gz g = {.h = h, .path = path, .dir = temp_dir(), .w = w, .in = fd, .zsize = zsize};
    g.cap = (uint64_t)zsize * GZ_RATIO > GZ_FLOOR ? (uint64_t)zsize * GZ_RATIO : GZ_FLOOR;
    g.out = temp_file(g.dir);
    if (g.out < 0)
        return ht_hprof_error(h, HT_HPROF_ERR_IO, "cannot make a temporary file in %s: %s", g.dir,
                              strerror(errno));
    struct statvfs vs;
    uint64_t free_bytes = fstatvfs(g.out, &vs) == 0 ? (uint64_t)vs.f_bavail * vs.f_frsize : 0;
    g.room = free_bytes > GZ_KEEP_FREE ? free_bytes - GZ_KEEP_FREE : 0;
    if (g.room < zsize) {
        close(g.out);
        return ht_hprof_error(h, HT_HPROF_ERR_IO,
                              "not enough free space in %s to inflate %s: %llu MiB free, and %llu "
                              "MiB must stay free",
                              g.dir, path, (unsigned long long)(free_bytes >> 20),
                              (unsigned long long)(GZ_KEEP_FREE >> 20));
    }
    g.ibuf = malloc(GZ_CHUNK);
    g.obuf = malloc(GZ_CHUNK);
    z_stream st;
    memset(&st, 0, sizeof st);
    int rc;
    if (!g.ibuf || !g.obuf || inflateInit2(&st, 16 + MAX_WBITS) != Z_OK) {
        rc = ht_hprof_error(h, HT_HPROF_ERR_NOMEM, "out of memory");
        free(g.ibuf), free(g.obuf), close(g.out);
        return rc;
    }
    rc = inflate_all(&g, &st);
    inflateEnd(&st);
    free(g.ibuf), free(g.obuf);
    if (rc == HT_HPROF_OK && g.len == 0)
        rc = ht_hprof_error(h, HT_HPROF_ERR_FORMAT, "%s: empty gzip data", path);
    if (rc == HT_HPROF_OK && g.len > SIZE_MAX)
        rc = ht_hprof_error(h, HT_HPROF_ERR_FORMAT, "%s: too big to map", path);
    void *m = MAP_FAILED;
    if (rc == HT_HPROF_OK) {
        m = mmap(NULL, (size_t)g.len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, g.out, 0);
        if (m == MAP_FAILED)
            rc = ht_hprof_error(h, HT_HPROF_ERR_IO, "cannot map %s inflated: %s", path,
                                strerror(errno));
    }
    close(g.out); /* the mapping keeps the unlinked file; its end frees it */
    if (rc != HT_HPROF_OK) return rc;
    h->data = m;
    h->size = h->map_size = (size_t)g.len;
    h->mapped = 1;
    return HT_HPROF_OK;
}

int ht_hprof_open(ht_hprof *h, const char *path)
{
    return ht_hprof_open_watched(h, path, NULL);
}

int ht_hprof_open_watched(ht_hprof *h, const char *path, const ht_hprof_watch *w)
{
    int fd;
    size_t size;
    int rc = open_dump(h, path, &fd, &size);
    if (rc) return rc;
    uint8_t magic[2];
    ssize_t n = pread(fd, magic, 2, 0);
    if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        rc = gunzip(h, fd, size, path, w);
        close(fd);
        if (rc != HT_HPROF_OK) return rc;
        h->gzipped = 1;
    } else {
        /* populated: one pass of the kernel instead of a fault per page */
        void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        int e = errno;
        close(fd);
        if (m == MAP_FAILED)
            return ht_hprof_error(h, HT_HPROF_ERR_IO, "cannot map %s: %s", path, strerror(e));
        h->data = m;
        h->size = h->map_size = size;
        h->mapped = 1;
    }
    guard_add(h);
    rc = ht_hprof_check(h, ht_hprof_read_header(h));
    if (rc != HT_HPROF_OK) {
        char err[sizeof h->err];
        memcpy(err, h->err, sizeof err);
        ht_hprof_close(h);
        memcpy(h->err, err, sizeof err);
    }
    return rc;
}

void ht_hprof_close(ht_hprof *h)
{
    guard_remove(h);
    if (h->mapped && h->data) munmap((void *)h->data, h->map_size);
    h->data = NULL;
    h->size = 0;
    h->mapped = 0;
}
