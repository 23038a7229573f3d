/* leftovers.c - see leftovers.h. */
#include "leftovers.h"

#include <dirent.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MIN_SIGHTINGS 3
#define MIN_AGE_MS    2000
#define GAP_MS        5000 /* scans are at most ~3.5 s apart while the process runs */
#define MAX_EPOLLS    64

void ht_leftovers_init(ht_leftovers *l, const char *ctl_file, const char *events_file)
{
    memset(l, 0, sizeof *l);
    l->paths[0] = ctl_file;
    l->paths[1] = events_file;
}

/* 1 if fd is a stream socket bound to one of our paths and shut down both ways. */
static int is_ours_and_shut(const ht_leftovers *l, int fd)
{
    struct sockaddr_un sa;
    socklen_t len = sizeof sa;
    int type = 0;
    socklen_t tlen = sizeof type;
    memset(&sa, 0, sizeof sa);
    if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 || sa.sun_family != AF_UNIX ||
        len <= offsetof(struct sockaddr_un, sun_path) ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 || type != SOCK_STREAM)
        return 0;
    size_t n = strnlen(sa.sun_path, len - offsetof(struct sockaddr_un, sun_path));
    int named = 0;
    for (int i = 0; i < 2; i++)
        if (l->paths[i] && strlen(l->paths[i]) == n && memcmp(l->paths[i], sa.sun_path, n) == 0)
            named = 1;
    if (!named) return 0;
    struct pollfd p = {fd, 0, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

/* Drop from found[] every inode that an epoll instance of ours has registered. */
static int drop_registered(const int *epolls, int nepolls, ht_leftover *found, int nfound)
{
    char path[64], line[256];
    for (int e = 0; e < nepolls && nfound > 0; e++) {
        snprintf(path, sizeof path, "/proc/self/fdinfo/%d", epolls[e]);
        FILE *f = fopen(path, "re");
        if (!f) return -1; /* cannot tell: close nothing */
        while (fgets(line, sizeof line, f)) {
            const char *ino = strncmp(line, "tfd:", 4) == 0 ? strstr(line, " ino:") : NULL;
            if (!ino) continue;
            ino_t v = (ino_t)strtoull(ino + 5, NULL, 16);
            for (int i = 0; i < nfound; i++)
                if (found[i].ino == v) found[i--] = found[--nfound];
        }
        fclose(f);
    }
    return nfound;
}

int ht_leftovers_scan(ht_leftovers *l, int64_t now_ms)
{
    if (l->last_scan_ms && now_ms - l->last_scan_ms > GAP_MS) l->n = 0; /* stopped? start again */
    l->last_scan_ms = now_ms;

    ht_leftover found[HT_LEFTOVERS_MAX];
    int nfound = 0, epolls[MAX_EPOLLS], nepolls = 0, too_many = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return 0;
    struct dirent *de;
    char path[64], link[64];
    while ((de = readdir(d))) {
        char *end;
        long fd = strtol(de->d_name, &end, 10);
        if (*end || end == de->d_name || fd == dirfd(d)) continue;
        snprintf(path, sizeof path, "/proc/self/fd/%ld", fd);
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (k <= 0) continue;
        link[k] = 0;
        if (strcmp(link, "anon_inode:[eventpoll]") == 0) {
            if (nepolls < MAX_EPOLLS)
                epolls[nepolls++] = (int)fd;
            else
                too_many = 1;
        } else if (strncmp(link, "socket:[", 8) == 0 && nfound < HT_LEFTOVERS_MAX &&
                   is_ours_and_shut(l, (int)fd)) {
            found[nfound].fd = (int)fd;
            found[nfound].ino = (ino_t)strtoull(link + 8, NULL, 10);
            nfound++;
        }
    }
    closedir(d);
    if (nfound > 0 && !too_many) nfound = drop_registered(epolls, nepolls, found, nfound);
    if (nfound <= 0 || too_many) {
        l->n = 0;
        return 0;
    }

    /* Carry the sightings of candidates seen before (same descriptor, same inode). */
    for (int i = 0; i < nfound; i++) {
        found[i].sightings = 1;
        found[i].first_ms = now_ms;
        for (int j = 0; j < l->n; j++)
            if (l->c[j].fd == found[i].fd && l->c[j].ino == found[i].ino) {
                found[i].sightings = l->c[j].sightings + 1;
                found[i].first_ms = l->c[j].first_ms;
            }
    }
    int closed = 0;
    l->n = 0;
    for (int i = 0; i < nfound; i++) {
        struct stat st;
        if (found[i].sightings >= MIN_SIGHTINGS && now_ms - found[i].first_ms >= MIN_AGE_MS) {
            if (fstat(found[i].fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == found[i].ino &&
                close(found[i].fd) == 0)
                closed++;
        } else {
            l->c[l->n++] = found[i];
        }
    }
    l->closed += (unsigned long)closed;
    return closed;
}
