/* keeper.c - see keeper.h. */
#include "keeper.h"

#include "shown.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { K_CREATE = 1, K_RESERVE, K_RENAME, K_UNLINK };

typedef struct keeper_msg {
    int op;         /* K_*; in a reply, the errno (0: done) */
    char name[256]; /* a final name; the temporary's or reserved name for K_UNLINK */
    char tmp[288];  /* K_RENAME: the temporary; a reply to K_CREATE: its name */
} keeper_msg;

static struct {
    pthread_mutex_t lock; /* job threads export too */
    int fd;               /* heaptop's end of the keeper's socket pair; -1: no keeper */
    char dir[PATH_MAX];   /* the kept directory as given, without trailing slashes */
} keeper = {PTHREAD_MUTEX_INITIALIZER, -1, ""};

const char *ht_keeper_dir(void)
{
    return keeper.fd >= 0 ? keeper.dir : NULL;
}

/* A final name the keeper writes: plain, not hidden, *.csv. */
static int plain_csv(const char *name)
{
    size_t n = strnlen(name, 256);
    return n > 4 && n < 200 && name[0] != '.' && !strchr(name, '/') &&
           strcmp(name + n - 4, ".csv") == 0;
}

/* In the keeper: the names it made (temporaries, reserved names), the only
 * ones it renames or removes. */
#define KEEPER_MADE 64
static char made_names[KEEPER_MADE][288];

static int made_here(const char *name, int forget)
{
    for (int i = 0; i < KEEPER_MADE; i++)
        if (made_names[i][0] && strcmp(made_names[i], name) == 0) {
            if (forget) made_names[i][0] = '\0';
            return 1;
        }
    return 0;
}

static void remember(const char *name)
{
    static unsigned next;
    snprintf(made_names[next++ % KEEPER_MADE], sizeof made_names[0], "%s", name);
}

/* One request: the errno (0 done), *fd a new temporary for K_CREATE. */
static int keeper_do(int dfd, keeper_msg *m, int *fd)
{
    m->name[sizeof m->name - 1] = m->tmp[sizeof m->tmp - 1] = '\0';
    int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    switch (m->op) {
    case K_CREATE:
        if (!plain_csv(m->name)) return EPERM;
        for (int tries = 0; tries < 64; tries++) {
            uint32_t r;
            if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
                r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL) ^ (uint32_t)tries;
            snprintf(m->tmp, sizeof m->tmp, ".%.200s.tmp-%08x", m->name, (unsigned)r);
            *fd = openat(dfd, m->tmp, flags, 0600);
            if (*fd >= 0) {
                remember(m->tmp);
                return 0;
            }
            if (errno != EEXIST) return errno;
        }
        return EEXIST;
    case K_RESERVE: {
        if (!plain_csv(m->name)) return EPERM;
        int f = openat(dfd, m->name, flags, 0600);
        if (f < 0) return errno;
        close(f);
        remember(m->name);
        return 0;
    }
    case K_RENAME:
        if (!plain_csv(m->name) || !made_here(m->tmp, 0)) return EPERM;
        if (renameat(dfd, m->tmp, dfd, m->name) != 0) return errno;
        made_here(m->tmp, 1);
        fsync(dfd); /* the rename itself, as far as the filesystem allows */
        return 0;
    case K_UNLINK:
        if (!made_here(m->name, 1)) return EPERM;
        return unlinkat(dfd, m->name, 0) == 0 ? 0 : errno;
    default:
        return EINVAL;
    }
}

/* The keeper's life: requests until heaptop's end closes. */
static void keeper_run(int sock, int dfd, pid_t parent)
{
    /* the terminal's signals are heaptop's to handle; heaptop's end closing ends this */
    static const int ignored[] = {SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGPIPE};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        signal(ignored[i], SIG_IGN);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    int null = open("/dev/null", O_RDWR);
    for (int i = 0; i < 3 && null >= 0; i++)
        if (i != null) dup2(null, i);
    /* nothing else of heaptop's stays open here */
    unsigned lo = (unsigned)(sock < dfd ? sock : dfd), hi = (unsigned)(sock < dfd ? dfd : sock);
    close_range(3, lo - 1, 0), close_range(lo + 1, hi - 1, 0), close_range(hi + 1, ~0u, 0);
    for (;;) {
        keeper_msg m;
        ssize_t r = recv(sock, &m, sizeof m, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) _exit(0);
        int fd = -1;
        m.op = r == (ssize_t)sizeof m ? keeper_do(dfd, &m, &fd) : EINVAL;
        struct iovec iov = {&m, sizeof m};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } u = {0};
        struct msghdr h = {.msg_iov = &iov,
                           .msg_iovlen = 1,
                           .msg_control = fd >= 0 ? u.buf : NULL,
                           .msg_controllen = fd >= 0 ? sizeof u.buf : 0};
        if (fd >= 0) { /* the temporary's descriptor goes with the reply */
            struct cmsghdr *c = CMSG_FIRSTHDR(&h);
            *c = (struct cmsghdr){CMSG_LEN(sizeof(int)), SOL_SOCKET, SCM_RIGHTS};
            memcpy(CMSG_DATA(c), &fd, sizeof fd);
        }
        while (sendmsg(sock, &h, MSG_NOSIGNAL) < 0 && errno == EINTR) {
        }
        if (fd >= 0) close(fd);
    }
}

/* One line naming dir in err; -1 with errno e. */
static int start_failed(char *err, size_t errn, int e, const char *dir, const char *step)
{
    char shown[HT_SHOWN_MAX];
    snprintf(err, errn, "cannot keep '%s' open: %s%s", ht_shown(dir, shown, sizeof shown), step,
             strerror(e));
    errno = e;
    return -1;
}

int ht_keeper_start(int dfd, const char *dir, char *err, size_t errn)
{
    int sv[2];
    if (keeper.fd >= 0 || strlen(dir) >= sizeof keeper.dir) {
        close(dfd);
        return start_failed(err, errn, keeper.fd >= 0 ? EBUSY : ENAMETOOLONG, dir, "");
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        int e = errno;
        close(dfd);
        return start_failed(err, errn, e, dir, "");
    }
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        keeper_run(sv[1], dfd, parent);
        _exit(0);
    }
    int e = errno;
    close(sv[1]);
    close(dfd);
    if (pid < 0) {
        close(sv[0]);
        return start_failed(err, errn, e, dir, "fork: ");
    }
    keeper.fd = sv[0];
    snprintf(keeper.dir, sizeof keeper.dir, "%s", dir);
    return 0;
}

/* Ask the keeper: 0, or -1 with errno. K_CREATE gives *fd and the
 * temporary's name in tmp_out. */
static int keeper_ask(int op, const char *name, const char *tmp, char *tmp_out, size_t tmpn,
                      int *fd)
{
    keeper_msg m;
    memset(&m, 0, sizeof m);
    m.op = op;
    snprintf(m.name, sizeof m.name, "%s", name);
    if (tmp) snprintf(m.tmp, sizeof m.tmp, "%s", tmp);
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {&m, sizeof m};
    struct msghdr h = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t r;
    pthread_mutex_lock(&keeper.lock);
    while ((r = send(keeper.fd, &m, sizeof m, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    if (r == (ssize_t)sizeof m)
        while ((r = recvmsg(keeper.fd, &h, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
        }
    pthread_mutex_unlock(&keeper.lock);
    int got = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); r > 0 && c; c = CMSG_NXTHDR(&h, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(&got, CMSG_DATA(c), sizeof got);
    if (r != (ssize_t)sizeof m || m.op != 0 || (op == K_CREATE && got < 0)) {
        if (got >= 0) close(got);
        errno = r != (ssize_t)sizeof m ? EIO : m.op ? m.op : EIO;
        return -1;
    }
    if (op == K_CREATE) {
        *fd = got;
        snprintf(tmp_out, tmpn, "%s", m.tmp);
    } else if (got >= 0) {
        close(got);
    }
    return 0;
}

int ht_keeper_create(const char *name, char *tmp, size_t tmpn, int *fd)
{
    return keeper_ask(K_CREATE, name, NULL, tmp, tmpn, fd);
}

int ht_keeper_rename(const char *tmp, const char *name)
{
    return keeper_ask(K_RENAME, name, tmp, NULL, 0, NULL);
}

int ht_keeper_reserve(const char *name)
{
    return keeper_ask(K_RESERVE, name, NULL, NULL, 0, NULL);
}

int ht_keeper_remove(const char *name)
{
    return keeper_ask(K_UNLINK, name, NULL, NULL, 0, NULL);
}
