/* trust.c - see trust.h. */
#include "trust.h"

#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ht_trust_who(uid_t uid, char *out, size_t n)
{
    char name[64];
    ht_proc_user_name(uid, name, sizeof name);
    if (strncmp(name, "uid ", 4) == 0) /* no name for it */
        snprintf(out, n, "%s", name);
    else
        snprintf(out, n, "user %s (uid %u)", name, (unsigned)uid);
}

int ht_trust_split(const char *base, char *dir, size_t dirn, char *name, size_t namen)
{
    const char *slash = strrchr(base, '/');
    int w1, w2;
    if (!slash) {
        w1 = snprintf(dir, dirn, ".");
        w2 = snprintf(name, namen, "%s", base);
    } else if (slash == base) {
        w1 = snprintf(dir, dirn, "/");
        w2 = snprintf(name, namen, "%s", slash + 1);
    } else {
        w1 = snprintf(dir, dirn, "%.*s", (int)(slash - base), base);
        w2 = snprintf(name, namen, "%s", slash + 1);
    }
    if (w1 < 0 || (size_t)w1 >= dirn || w2 < 0 || (size_t)w2 >= namen || !name[0]) return -1;
    return 0;
}

int ht_trust_private(const struct stat *st, uid_t uid, int closed, const char *what,
                     const char *path, const char *if_owner, const char *if_mode, char *err,
                     size_t errn)
{
    char who[96], me[96];
    if (st->st_uid != uid) {
        ht_trust_who(st->st_uid, who, sizeof who);
        ht_trust_who(uid, me, sizeof me);
        snprintf(err, errn, "%s %s belongs to %s, not to %s%s", what, path, who, me, if_owner);
        return -1;
    }
    if (closed && (st->st_mode & 0077)) {
        snprintf(err, errn, "%s %s has mode %04o%s", what, path, (unsigned)(st->st_mode & 07777),
                 if_mode);
        return -1;
    }
    return 0;
}

int ht_trust_open_dir(const char *base, uid_t uid, char *err, size_t errn)
{
    char dir[4096], name[256];
    if (ht_trust_split(base, dir, sizeof dir, name, sizeof name) != 0) {
        snprintf(err, errn, "socket path '%s' has no file name", base);
        errno = EINVAL;
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        if (e == ENOENT)
            snprintf(err, errn, "no socket directory %s", dir);
        else if ((e == ELOOP || e == ENOTDIR) && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
            snprintf(err, errn,
                     "the socket directory %s is a symbolic link, not a directory: heaptop "
                     "trusts no agent there (another user may have made it)",
                     dir);
        else if (e == ENOTDIR)
            snprintf(err, errn, "the socket directory %s is not a directory", dir);
        else
            snprintf(err, errn, "cannot open the socket directory %s: %s", dir, strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        snprintf(err, errn, "cannot stat the socket directory %s: %s", dir, strerror(e));
        close(fd);
        errno = e;
        return -1;
    }
    if (ht_trust_private(&st, uid, 1, "the socket directory", dir,
                         ": any agent in it may be a fake, so heaptop talks to none (remove it "
                         "as root; an agent makes its own)",
                         ": others can replace an agent's sockets in it, so heaptop talks to none "
                         "there (chmod 700 it)",
                         err, errn) != 0) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

int ht_trust_check_socket(int dirfd, const char *base, const char *suffix, uid_t uid, char *err,
                          size_t errn)
{
    char dir[4096], name[256], file[300];
    if (ht_trust_split(base, dir, sizeof dir, name, sizeof name) != 0 ||
        snprintf(file, sizeof file, "%s%s", name, suffix) >= (int)sizeof file) {
        snprintf(err, errn, "socket path '%s' is too long", base);
        errno = EINVAL;
        return -1;
    }
    struct stat st;
    if (fstatat(dirfd, file, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        int e = errno;
        snprintf(err, errn, "cannot look at %s%s: %s", base, suffix, strerror(e));
        errno = e;
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errn, "%s%s is not a socket", base, suffix);
        errno = EINVAL;
        return -1;
    }
    char path[sizeof dir + sizeof file];
    snprintf(path, sizeof path, "%s%s", base, suffix);
    if (ht_trust_private(&st, uid, 0, "the socket", path,
                         ": not an agent of yours, heaptop does not talk to it", "", err,
                         errn) != 0) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

int ht_trust_peer(const char *base, uid_t uid, pid_t pid, uint64_t peer_uid, uint64_t peer_pid,
                  char *err, size_t errn)
{
    char who[96], me[96];
    if (peer_uid != (uint64_t)uid) {
        if (peer_uid == UINT64_MAX)
            snprintf(who, sizeof who, "a user heaptop cannot tell");
        else
            ht_trust_who((uid_t)peer_uid, who, sizeof who);
        ht_trust_who(uid, me, sizeof me);
        snprintf(err, errn, "the agent at %s runs as %s, not as %s: heaptop does not talk to it",
                 base, who, me);
        return -1;
    }
    if (pid > 0 && peer_pid != (uint64_t)pid) {
        snprintf(err, errn,
                 "the socket at %s is served by pid %llu, not by pid %d: heaptop does not talk "
                 "to it",
                 base, (unsigned long long)peer_pid, (int)pid);
        return -1;
    }
    return 0;
}
