/* ipc_path.c - see ipc_path.h. */
#include "ipc_path.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ht_ipc_default_dir(char *out, size_t n)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int w;
    if (xdg && xdg[0] == '/')
        w = snprintf(out, n, "%s/heaptop", xdg);
    else
        w = snprintf(out, n, "/tmp/heaptop-%u", (unsigned)geteuid());
    return (w < 0 || (size_t)w >= n) ? -1 : 0;
}

int ht_ipc_default_base(char *out, size_t n, pid_t pid)
{
    char dir[HT_IPC_PATH_MAX];
    if (ht_ipc_default_dir(dir, sizeof dir) != 0) return -1;
    int w = snprintf(out, n, "%s/%d", dir, (int)pid);
    return (w < 0 || (size_t)w >= n) ? -1 : 0;
}

int ht_ipc_file(char *out, size_t n, const char *base, const char *suffix)
{
    int w = snprintf(out, n, "%s%s", base, suffix);
    if (w < 0 || (size_t)w >= n || (size_t)w >= HT_IPC_PATH_MAX) return -1;
    return 0;
}

int ht_ipc_url(char *out, size_t n, const char *base, const char *suffix)
{
    char file[HT_IPC_PATH_MAX + 8];
    if (ht_ipc_file(file, sizeof file, base, suffix) != 0) return -1;
    int w = snprintf(out, n, "ipc://%s", file);
    return (w < 0 || (size_t)w >= n) ? -1 : 0;
}

int ht_ipc_secure_dir(const char *base, char *err, size_t errn)
{
    char dir[HT_IPC_PATH_MAX + 8];
    if (snprintf(dir, sizeof dir, "%s", base) >= (int)sizeof dir) {
        snprintf(err, errn, "socket path '%s' is too long (max %d bytes)", base,
                 HT_IPC_PATH_MAX - 8);
        return -1;
    }
    char *slash = strrchr(dir, '/');
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else if (slash == dir) {
        snprintf(err, errn, "socket path '%s' is in '/', which is not a private directory", base);
        return -1;
    } else {
        *slash = '\0';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errn, "cannot create socket directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(dir, &st) != 0) {
        snprintf(err, errn, "cannot stat socket directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(err, errn,
                 "socket directory '%s' is a symbolic link (made by uid %u), not a directory", dir,
                 (unsigned)st.st_uid);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errn, "socket directory '%s' is not a directory", dir);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errn, "socket directory '%s' belongs to uid %u, not to this user (uid %u)",
                 dir, (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    if (st.st_mode & 0077) {
        snprintf(err, errn,
                 "socket directory '%s' has mode %03o: others could reach the heap; "
                 "use a directory with mode 0700",
                 dir, (unsigned)(st.st_mode & 0777));
        return -1;
    }
    return 0;
}

int ht_tcp_parse(const char *s, char *host, size_t hostn, unsigned *port, char *err, size_t errn)
{
    const char *colon = s ? strrchr(s, ':') : NULL;
    const char *p = colon ? colon + 1 : s;
    char h[64] = "127.0.0.1";
    if (colon) {
        size_t len = (size_t)(colon - s);
        if (len == 0 || len >= sizeof h) goto bad;
        memcpy(h, s, len);
        h[len] = '\0';
    }
    char *end = NULL;
    errno = 0;
    unsigned long v = p && *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
    if (!end || *end || errno || v < 1 || v > 65534) goto bad;
    struct in_addr a4;
    struct in6_addr a6;
    if (strcmp(h, "localhost") == 0) {
        snprintf(h, sizeof h, "127.0.0.1");
    } else if (strcmp(h, "*") == 0) {
        snprintf(h, sizeof h, "0.0.0.0");
    } else if (h[0] == '[') {
        size_t n = strlen(h);
        char inner[64];
        if (n < 3 || h[n - 1] != ']') goto bad;
        snprintf(inner, sizeof inner, "%.*s", (int)(n - 2), h + 1);
        if (inet_pton(AF_INET6, inner, &a6) != 1) goto bad;
    } else if (inet_pton(AF_INET, h, &a4) != 1) {
        goto bad;
    }
    if (strlen(h) >= hostn) goto bad;
    snprintf(host, hostn, "%s", h);
    *port = (unsigned)v;
    return 0;
bad:
    snprintf(err, errn,
             "'%s' is not a TCP endpoint (expected PORT or HOST:PORT: HOST an IPv4 address, "
             "[IPv6], localhost or *; PORT 1..65534, the stream taking PORT+1)",
             s ? s : "");
    return -1;
}

int ht_tcp_url(char *out, size_t n, const char *host, unsigned port, unsigned offset)
{
    int w = snprintf(out, n, "tcp://%s:%u", host, port + offset);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

int ht_base_is_tcp(const char *base)
{
    return strncmp(base, "tcp://", 6) == 0;
}

int ht_endpoint_url(char *out, size_t n, const char *base, const char *suffix)
{
    if (!ht_base_is_tcp(base)) return ht_ipc_url(out, n, base, suffix);
    char host[64], why[160];
    unsigned port;
    if (ht_tcp_parse(base + 6, host, sizeof host, &port, why, sizeof why) != 0) return -1;
    return ht_tcp_url(out, n, host, port, strcmp(suffix, ".events") == 0);
}

int ht_base_is_loopback_tcp(const char *base)
{
    return strncmp(base, "tcp://127.", 10) == 0 || strncmp(base, "tcp://[::1]:", 12) == 0;
}
