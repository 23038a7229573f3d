/* outdir.c - see outdir.h. */
#include "outdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* mkdir one path; an existing directory is fine, anything else existing is
 * named. */
static int make_one(const char *path, const char *dir, char *err, size_t errn)
{
    if (mkdir(path, 0755) == 0) return 0;
    int e = errno;
    struct stat st;
    if (e == EEXIST && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return 0;
        snprintf(err, errn, "cannot use '%s': '%s' is %s, not a directory", dir, path,
                 S_ISREG(st.st_mode) ? "a regular file" : "not a directory");
        return -1;
    }
    snprintf(err, errn, "cannot create '%s': %s (at '%s')", dir, strerror(e), path);
    return -1;
}

int ht_outdir_prepare(const char *dir, char *err, size_t errn)
{
    char path[PATH_MAX];
    if (!dir[0] || snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(err, errn, "'%s' is not a usable directory name", dir);
        return -1;
    }
    /* each parent, then the directory itself */
    for (char *p = path + 1; *p; p++) {
        if (*p != '/' || p[-1] == '/') continue;
        *p = '\0';
        int rc = make_one(path, dir, err, errn);
        *p = '/';
        if (rc != 0) return -1;
    }
    if (make_one(path, dir, err, errn) != 0) return -1;
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.heaptop-probe-XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(err, errn, "cannot write in '%s': %s", dir, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(probe);
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
        if (w > 0 && (size_t)w < n && mkdtemp(out)) return 0;
        e = errno;
    }
    snprintf(err, errn, "cannot create a fallback directory in %s: %s", roots[0], strerror(e));
    return -1;
}
