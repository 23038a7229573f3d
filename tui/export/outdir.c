/* outdir.c - see outdir.h. */
#include "outdir.h"

#include "keeper.h"
#include "shown.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* "mallory", or "uid 1002" for a uid without a name. */
static void user_name(uid_t uid, char *out, size_t n)
{
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res)
        snprintf(out, n, "%s", res->pw_name);
    else
        snprintf(out, n, "uid %u", (unsigned)uid);
}

/* Put one line in err (when there is one) and errno e; -1. */
static int fail(char *err, size_t errn, int e, const char *fmt, const char *dir, const char *more)
{
    if (err && errn) {
        char shown[HT_SHOWN_MAX];
        snprintf(err, errn, fmt, ht_shown(dir, shown, sizeof shown), more);
    }
    errno = e;
    return -1;
}

/* ht_outdir_why's line in err (when there is one) and errno e; -1. */
static int cannot_write(char *err, size_t errn, const char *dir, int e)
{
    if (err && errn) ht_outdir_why(dir, e, err, errn);
    errno = e;
    return -1;
}

/* dir without trailing slashes ("/" stays), into out. */
static int trimmed(const char *dir, char *out, size_t n)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (!len || len >= n) return -1;
    memcpy(out, dir, len);
    out[len] = '\0';
    return 0;
}

/* Is dir the directory the keeper holds (keeper.h)? */
static int kept(const char *dir)
{
    char d[PATH_MAX];
    const char *k = ht_keeper_dir();
    return k && trimmed(dir, d, sizeof d) == 0 && strcmp(d, k) == 0;
}

/* The rule of outdir.h on an open directory. */
static int check_dir(int fd, const char *dir, uid_t writer, char *err, size_t errn)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail(err, errn, errno, "cannot use '%s': %s", dir, strerror(errno));
    if (st.st_uid != writer) {
        char owner[64], who[64], more[512];
        user_name(st.st_uid, owner, sizeof owner);
        user_name(writer, who, sizeof who);
        snprintf(more, sizeof more,
                 "belongs to user %s, not to %s (the user heaptop writes as): give a directory "
                 "of %s's",
                 owner, who, who);
        return fail(err, errn, EPERM, "'%s' %s", dir, more);
    }
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
        char more[256];
        snprintf(more, sizeof more,
                 "may be written by every user (mode %04o, not sticky), who could replace "
                 "the files heaptop writes there: chmod o-w it, or give a directory of your own",
                 (unsigned)(st.st_mode & 07777));
        return fail(err, errn, EPERM, "'%s' %s", dir, more);
    }
    if (!(st.st_mode & S_IWUSR)) return cannot_write(err, errn, dir, EACCES);
    return 0;
}

/* dir opened without following a symlink at its last component, and
 * checked for writer: the descriptor, or -1. */
static int open_dir(const char *dir, uid_t writer, char *err, size_t errn)
{
    char d[PATH_MAX];
    if (trimmed(dir, d, sizeof d) != 0)
        return fail(err, errn, ENAMETOOLONG, "'%s' is not a usable directory name%s", dir, "");
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        if (lstat(d, &st) == 0 && S_ISLNK(st.st_mode))
            return fail(err, errn, ELOOP,
                        "'%s' is a symlink%s; heaptop does not follow one there: give the "
                        "directory itself",
                        dir, "");
        if (lstat(d, &st) == 0 && !S_ISDIR(st.st_mode))
            return fail(err, errn, ENOTDIR, "'%s' is %s, not a directory", dir,
                        S_ISREG(st.st_mode) ? "a regular file" : "not a directory");
        return fail(err, errn, e, "cannot use '%s': %s", dir, strerror(e));
    }
    if (check_dir(fd, dir, writer, err, errn) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int ht_outdir_open(const char *dir, char *err, size_t errn)
{
    return open_dir(dir, geteuid(), err, errn);
}

/* mkdir one path (the last one 0700); an existing directory is fine,
 * anything else existing is named. 1 created, 0 there, -1 with err. */
static int make_one(const char *path, const char *dir, int last, char *err, size_t errn)
{
    if (mkdir(path, last ? 0700 : 0755) == 0) return 1;
    int e = errno;
    struct stat st;
    char shown_dir[HT_SHOWN_MAX], shown_path[HT_SHOWN_MAX];
    ht_shown(dir, shown_dir, sizeof shown_dir);
    ht_shown(path, shown_path, sizeof shown_path);
    if (e == EEXIST && lstat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)) return 0; /* checked after */
        const char *what = S_ISREG(st.st_mode) ? "a regular file" : "not a directory";
        if (last)
            snprintf(err, errn, "'%s' is %s, not a directory", shown_dir, what);
        else
            snprintf(err, errn, "cannot use '%s': '%s' is %s, not a directory", shown_dir,
                     shown_path, what);
        return -1;
    }
    snprintf(err, errn, "cannot create '%s': %s (at '%s')", shown_dir, strerror(e), shown_path);
    return -1;
}

int ht_outdir_prepare(const char *dir, char *err, size_t errn)
{
    return ht_outdir_prepare_for(dir, geteuid(), NULL, 0, err, errn);
}

void ht_outdir_unmake(const char *dir, const char *made)
{
    char path[PATH_MAX];
    if (!made || !made[0] || trimmed(dir, path, sizeof path) != 0) return;
    size_t top = strlen(made);
    if (strncmp(path, made, top) != 0 || (path[top] && path[top] != '/')) return;
    for (;;) {
        if (rmdir(path) != 0 || strlen(path) <= top) return;
        char *slash = strrchr(path, '/');
        if (!slash || slash == path) return;
        while (slash > path && slash[-1] == '/')
            slash--;
        *slash = '\0';
    }
}

/* ht_outdir_prepare_for's work; top gets the topmost directory it made. */
static int prepare(const char *dir, uid_t writer, char *top, size_t topn, char *err, size_t errn)
{
    char path[PATH_MAX];
    if (!dir[0] || trimmed(dir, path, sizeof path) != 0)
        return fail(err, errn, EINVAL, "'%s' is not a usable directory name%s", dir, "");
    /* each parent, then the directory itself */
    for (char *p = path + 1; *p; p++) {
        if (*p != '/' || p[-1] == '/') continue;
        *p = '\0';
        int rc = make_one(path, dir, 0, err, errn);
        if (rc > 0 && !top[0]) snprintf(top, topn, "%s", path);
        *p = '/';
        if (rc < 0) return -1;
    }
    int made = make_one(path, dir, 1, err, errn);
    if (made < 0) return -1;
    if (made > 0 && !top[0]) snprintf(top, topn, "%s", path);
    if (made && writer != geteuid()) { /* made for the user heaptop becomes */
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
            fchown(fd, writer, (gid_t)-1) != 0) {
            int e = errno;
            if (fd >= 0) close(fd);
            return fail(err, errn, e, "cannot give '%s' to the user heaptop writes as: %s", dir,
                        strerror(e));
        }
        close(fd);
    }
    int fd = open_dir(dir, writer, err, errn);
    if (fd < 0) return -1;
    close(fd);
    if (writer != geteuid()) return 0; /* root: a probe would prove nothing more */
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.heaptop-probe", path);
    ht_outfile o;
    if (ht_outfile_create(&o, probe) != 0) return cannot_write(err, errn, dir, errno);
    errno = 0;
    ht_outfile_abort(&o);
    return 0;
}

int ht_outdir_prepare_for(const char *dir, uid_t writer, char *made, size_t maden, char *err,
                          size_t errn)
{
    char top[PATH_MAX] = "";
    if (made && maden) made[0] = '\0';
    if (kept(dir)) return 0; /* checked when kept, and held open since */
    if (prepare(dir, writer, top, sizeof top, err, errn) != 0) {
        int e = errno;
        ht_outdir_unmake(dir, top); /* a refused directory is not left behind */
        errno = e;
        return -1;
    }
    if (made && maden) snprintf(made, maden, "%s", top);
    return 0;
}

int ht_outdir_fallback(char *out, size_t n, const char *what, int pid, char *err, size_t errn)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
    const char *tmp = getenv("TMPDIR");
    const char *roots[] = {tmp && tmp[0] == '/' ? tmp : "/tmp", "/tmp"};
    int e = 0;
    for (size_t i = 0; i < 2; i++) {
        int w = snprintf(out, n, "%s/heaptop-%s-%d-%s-XXXXXX", roots[i], what, pid, stamp);
        if (w > 0 && (size_t)w < n && mkdtemp(out)) return 0; /* 0700 */
        e = errno;
    }
    return fail(err, errn, e, "cannot create a fallback directory in %s: %s", roots[0],
                strerror(e));
}

/* path split into its directory (or ".") and its last name. */
static int split(const char *path, char *dir, size_t dirn, char *name, size_t namen)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = slash ? (size_t)(slash - path) : 1;
    if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        errno = EISDIR;
        return -1;
    }
    if (strlen(base) >= namen || dlen >= dirn) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!slash)
        snprintf(dir, dirn, ".");
    else if (dlen == 0)
        snprintf(dir, dirn, "/");
    else
        memcpy(dir, path, dlen), dir[dlen] = '\0';
    snprintf(name, namen, "%s", base);
    return 0;
}

/* The directory of path, opened and checked, and its name in o; a kept
 * directory is not opened (o->kept, o->dirfd -1: the keeper has it). */
static int open_parent(ht_outfile *o, const char *path)
{
    char dir[PATH_MAX];
    o->f = NULL;
    o->dirfd = -1;
    o->kept = 0;
    o->tmp[0] = '\0';
    if (split(path, dir, sizeof dir, o->name, sizeof o->name) != 0) return -1;
    if (kept(dir)) {
        o->kept = 1;
        return 0;
    }
    o->dirfd = open_dir(dir, geteuid(), NULL, 0);
    return o->dirfd < 0 ? -1 : 0;
}

int ht_outfile_create(ht_outfile *o, const char *path)
{
    if (open_parent(o, path) != 0) return -1;
    if (o->kept) {
        int fd = -1;
        if (ht_keeper_create(o->name, o->tmp, sizeof o->tmp, &fd) != 0) return -1;
        o->f = fdopen(fd, "w");
        if (o->f) return 0;
        int e = errno;
        close(fd);
        ht_keeper_remove(o->tmp);
        errno = e;
        return -1;
    }
    static unsigned counter;
    for (int tries = 0; tries < 64; tries++) {
        uint32_t r;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL) ^ ++counter;
        /* hidden, and short enough for any name below NAME_MAX */
        snprintf(o->tmp, sizeof o->tmp, ".%.200s.tmp-%08x", o->name, (unsigned)r);
        int fd =
            openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) break;
        o->f = fdopen(fd, "w");
        if (o->f) return 0;
        int e = errno;
        close(fd);
        unlinkat(o->dirfd, o->tmp, 0);
        errno = e;
        break;
    }
    int e = errno;
    close(o->dirfd);
    o->dirfd = -1;
    errno = e;
    return -1;
}

int ht_outfile_commit(ht_outfile *o)
{
    int e = 0;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) e = errno ? errno : EIO;
    errno = 0;
    if (!e && fsync(fileno(o->f)) != 0) e = errno ? errno : EIO;
    errno = 0;
    if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
    o->f = NULL;
    if (o->kept) {
        if (!e && ht_keeper_rename(o->tmp, o->name) != 0) e = errno;
        if (e) ht_keeper_remove(o->tmp);
        errno = e;
        return e ? -1 : 0;
    }
    if (!e && renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0) e = errno;
    if (e)
        unlinkat(o->dirfd, o->tmp, 0);
    else
        fsync(o->dirfd); /* the rename itself, as far as the filesystem allows */
    close(o->dirfd);
    o->dirfd = -1;
    errno = e;
    return e ? -1 : 0;
}

void ht_outfile_abort(ht_outfile *o)
{
    int e = errno;
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->kept && o->tmp[0]) ht_keeper_remove(o->tmp);
    if (o->dirfd >= 0) {
        unlinkat(o->dirfd, o->tmp, 0);
        close(o->dirfd);
    }
    o->dirfd = -1;
    errno = e;
}

int ht_outfile_reserve(const char *path)
{
    ht_outfile o;
    if (open_parent(&o, path) != 0) return -1;
    if (o.kept) return ht_keeper_reserve(o.name);
    int fd = openat(o.dirfd, o.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int e = errno;
    if (fd >= 0) close(fd);
    close(o.dirfd);
    errno = e;
    return fd < 0 ? -1 : 0;
}

int ht_outfile_unreserve(const char *path)
{
    ht_outfile o;
    if (open_parent(&o, path) != 0) return -1;
    if (o.kept) return ht_keeper_remove(o.name);
    int rc = unlinkat(o.dirfd, o.name, 0), e = errno;
    close(o.dirfd);
    errno = e;
    return rc;
}

void ht_outdir_why(const char *dir, int e, char *out, size_t n)
{
    char shown[HT_SHOWN_MAX], who[64];
    ht_shown(dir, shown, sizeof shown);
    /* refused to the user heaptop switched to (the effective uid it was
     * started with, against the one it has now)? */
    if ((e != EACCES && e != EPERM) || geteuid() == (uid_t)getauxval(AT_EUID)) {
        snprintf(out, n, "cannot write in '%s': %s", shown, strerror(e));
        return;
    }
    user_name(geteuid(), who, sizeof who);
    snprintf(out, n, "heaptop runs as %s (uid %u) and cannot write in '%s': %s", who,
             (unsigned)geteuid(), shown, strerror(e));
}

int ht_outdir_keep(const char *dir, char *err, size_t errn)
{
    char d[PATH_MAX];
    if (ht_keeper_dir())
        return fail(err, errn, EBUSY, "'%s': heaptop keeps one directory%s", dir, " already");
    if (trimmed(dir, d, sizeof d) != 0)
        return fail(err, errn, ENAMETOOLONG, "'%s' is not a usable directory name%s", dir, "");
    int dfd = open_dir(dir, geteuid(), err, errn);
    if (dfd < 0) return -1;
    return ht_keeper_start(dfd, d, err, errn);
}
