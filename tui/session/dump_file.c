/* dump_file.c - see dump_file.h. */
#include "dump_file.h"

#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ht_dump_file_init(ht_dump_file *f)
{
    memset(f, 0, sizeof *f);
    f->dirfd = f->fd = -1;
}

void ht_dump_file_close(ht_dump_file *f)
{
    if (f->fd >= 0) close(f->fd);
    if (f->dirfd >= 0) close(f->dirfd);
    f->fd = f->dirfd = -1;
}

/* The name heapdump.c gives dump `id` of pid: heap-PID-ID.hprof, or
 * heap-PID-ID-K.hprof when that was taken. */
static int is_dump_name(const char *name, pid_t pid, uint64_t id)
{
    int p = 0, end = 0;
    unsigned long long i = 0;
    unsigned k = 0;
    if (strncmp(name, "heap-", 5) != 0 || name[5] < '0' || name[5] > '9') return 0;
    if (sscanf(name, "heap-%d-%llu.hprof%n", &p, &i, &end) == 2 && end > 0 && !name[end])
        return p == (int)pid && i == id;
    end = 0;
    if (sscanf(name, "heap-%d-%llu-%u.hprof%n", &p, &i, &k, &end) == 3 && end > 0 && !name[end])
        return p == (int)pid && i == id;
    return 0;
}

/* A directory the viewer's user owns and alone may enter. */
static int private_dir(int fd, const char *shown, char *err, size_t errn)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errn, "cannot stat the dump directory %s: %s", shown, strerror(errno));
        return -1;
    }
    return ht_trust_private(&st, geteuid(), 1, "the dump directory", shown, "",
                            ": others could have put the file", err, errn);
}

int ht_dump_file_open(ht_dump_file *f, int sockdir, const char *base, pid_t agent_pid, uint64_t id,
                      const char *reported, char *err, size_t errn)
{
    ht_dump_file_init(f);
    const char *slash = strrchr(reported, '/');
    const char *name = slash ? slash + 1 : reported;
    if (!is_dump_name(name, agent_pid, id) || strlen(name) >= sizeof f->name) {
        snprintf(err, errn,
                 "the agent named %s as heap dump %llu, which is not the name an agent of pid %d "
                 "gives it (heap-%d-%llu.hprof): heaptop neither reads nor removes it",
                 reported, (unsigned long long)id, (int)agent_pid, (int)agent_pid,
                 (unsigned long long)id);
        return -1;
    }
    snprintf(f->name, sizeof f->name, "%s", name);
    char dir[1100], bdir[1024], bname[256];
    if (sockdir >= 0) { /* IPC: BASE.dumps in the socket directory checked */
        if (ht_trust_split(base, bdir, sizeof bdir, bname, sizeof bname) != 0 ||
            snprintf(dir, sizeof dir, "%s.dumps", bname) >= (int)sizeof dir) {
            snprintf(err, errn, "socket path '%s' is too long", base);
            return -1;
        }
        snprintf(f->shown, sizeof f->shown, "%s.dumps/%s", base, name);
        f->dirfd = openat(sockdir, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        snprintf(dir, sizeof dir, "%s.dumps", base);
    } else { /* TCP: the reported directory, which must be one an agent makes */
        size_t dl = slash ? (size_t)(slash - reported) : 0;
        if (!slash || reported[0] != '/' || dl < 7 || dl >= sizeof dir ||
            strncmp(reported + dl - 6, ".dumps", 6) != 0) {
            snprintf(err, errn,
                     "the agent named %s as heap dump %llu, which is not in an agent's dump "
                     "directory (an absolute BASE.dumps): heaptop neither reads nor removes it",
                     reported, (unsigned long long)id);
            return -1;
        }
        snprintf(dir, sizeof dir, "%.*s", (int)dl, reported);
        snprintf(f->shown, sizeof f->shown, "%s", reported);
        f->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (f->dirfd < 0) {
        snprintf(err, errn, "cannot open the dump directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (private_dir(f->dirfd, dir, err, errn) != 0) {
        ht_dump_file_close(f);
        return -1;
    }
    f->fd = openat(f->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (f->fd < 0) {
        int e = errno;
        snprintf(err, errn, "cannot open the heap dump %s: %s", f->shown,
                 e == ELOOP ? "it is a symbolic link" : strerror(e));
        ht_dump_file_close(f);
        return -1;
    }
    struct stat st;
    if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errn, "the heap dump %s is not a regular file", f->shown);
        ht_dump_file_close(f);
        return -1;
    }
    int ours = ht_trust_private(&st, geteuid(), 0, "the heap dump", f->shown,
                                ": not one this viewer's agent wrote", "", err, errn) == 0;
    if (ours && st.st_nlink != 1) {
        snprintf(err, errn, "the heap dump %s has other names (hard links): not one an agent wrote",
                 f->shown);
        ours = 0;
    }
    if (!ours) {
        ht_dump_file_close(f);
        return -1;
    }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->bytes = (uint64_t)st.st_size;
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    return 0;
}

int ht_dump_file_remove(ht_dump_file *f, char *err, size_t errn)
{
    struct stat st;
    if (f->dirfd < 0) {
        snprintf(err, errn, "the heap dump %s is not open", f->shown);
        return -1;
    }
    if (fstatat(f->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != f->dev ||
        st.st_ino != f->ino) {
        snprintf(err, errn, "the heap dump %s was replaced after it was read: left as it is",
                 f->shown);
        return -1;
    }
    if (unlinkat(f->dirfd, f->name, 0) != 0) {
        snprintf(err, errn, "cannot remove the heap dump %s: %s", f->shown, strerror(errno));
        return -1;
    }
    return 0;
}
