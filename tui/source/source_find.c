/* source_find.c - see source_find.h. */
#include "source_find.h"

#include "shown.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

/* zips with more entries than this are searched only by exact name */
#define MAX_SCAN 2000000

/* A name the JVM gave may become a path only when it is a plain name. */
static int plain_name(const char *s, size_t n)
{
    if (n == 0 || n > 255 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/' || s[i] == '\\' || (unsigned char)s[i] < 0x20) return 0;
    return 1;
}

int ht_source_rel(const char *cls, const char *src, char *out, size_t n, char *err, size_t errn)
{
    char shown[600];
    if (!cls || !cls[0]) {
        snprintf(err, errn, "the frame's class has no name");
        return -1;
    }
    /* a hidden class (pkg.Foo$$Lambda/0x...): the name before its '/' */
    size_t clen = strcspn(cls, "/");
    const char *dot = NULL;
    for (const char *p = cls; p < cls + clen; p++)
        if (*p == '.') dot = p;
    size_t plen = dot ? (size_t)(dot - cls) : 0;
    if (dot && plen == 0) {
        snprintf(err, errn, "the package of class %s is not a package name",
                 ht_shown(cls, shown, sizeof shown));
        return -1;
    }
    const char *simple = dot ? dot + 1 : cls;
    size_t slen = (size_t)(cls + clen - simple);
    char file[300];
    if (src && src[0]) {
        if (!plain_name(src, strlen(src))) {
            snprintf(err, errn, "the source file name of %s is not a plain file name: %s",
                     ht_shown(cls, shown, sizeof shown), src);
            return -1;
        }
        snprintf(file, sizeof file, "%s", src);
    } else {
        size_t outer = strcspn(simple, "$");
        if (outer > slen) outer = slen;
        if (!plain_name(simple, outer)) {
            snprintf(err, errn, "no source file name for class %s",
                     ht_shown(cls, shown, sizeof shown));
            return -1;
        }
        snprintf(file, sizeof file, "%.*s.java", (int)outer, simple);
    }
    if (plen + strlen(file) + 2 > n) {
        snprintf(err, errn, "the class name %s is too long", ht_shown(cls, shown, sizeof shown));
        return -1;
    }
    size_t len = 0;
    for (size_t at = 0; at < plen;) {
        size_t seg = strcspn(cls + at, ".");
        if (at + seg > plen) seg = plen - at;
        if (!plain_name(cls + at, seg)) {
            snprintf(err, errn, "the package of class %s is not a package name",
                     ht_shown(cls, shown, sizeof shown));
            return -1;
        }
        memcpy(out + len, cls + at, seg);
        len += seg;
        out[len++] = '/';
        at += seg + 1;
    }
    snprintf(out + len, n - len, "%s", file);
    return 0;
}

int ht_source_same_file(const char *cls, const char *src, const char *rel)
{
    char mine[HT_SOURCE_REL_MAX], err[8];
    return ht_source_rel(cls, src, mine, sizeof mine, err, sizeof err) == 0 &&
           strcmp(mine, rel) == 0;
}

/* The file is larger than may be read: one line. */
static void too_large(char *err, size_t errn, const char *where, uint64_t size)
{
    char shown[HT_SHOWN_MAX];
    snprintf(err, errn, "%s is %llu bytes: larger than the %u MiB a source file is read up to",
             ht_shown(where, shown, sizeof shown), (unsigned long long)size,
             HT_SOURCE_MAX_BYTES >> 20);
}

/* --- a directory --- */

/* 1 found and read, 0 not there, -1 there but not read (err says why). */
static int from_dir(const char *dir, const char *rel, ht_source_found *out, char *err, size_t errn)
{
    char path[sizeof out->where], shown[HT_SHOWN_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return 0;
        snprintf(err, errn, "%s: %s", ht_shown(path, shown, sizeof shown), strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errn, "%s: not a regular file", ht_shown(path, shown, sizeof shown));
        return -1;
    }
    if ((uint64_t)st.st_size > HT_SOURCE_MAX_BYTES) {
        close(fd);
        too_large(err, errn, path, (uint64_t)st.st_size);
        return -1;
    }
    size_t cap = (size_t)st.st_size, len = 0;
    char *bytes = malloc(cap + 1);
    if (!bytes) {
        close(fd);
        snprintf(err, errn, "out of memory");
        return -1;
    }
    while (len < cap) { /* what it holds now, up to the size it had */
        ssize_t r = read(fd, bytes + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            snprintf(err, errn, "%s: %s", ht_shown(path, shown, sizeof shown), strerror(errno));
            close(fd);
            free(bytes);
            return -1;
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    close(fd);
    if (ht_source_text_take(&out->text, bytes, len) != 0) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    snprintf(out->where, sizeof out->where, "%s", path);
    return 1;
}

/* --- a zip --- */

/* The index of rel in z: exactly, or as MODULE/rel (one directory before
 * it, as the JDK's src.zip has it); -1 when neither. */
static zip_int64_t locate(zip_t *z, const char *rel)
{
    zip_int64_t i = zip_name_locate(z, rel, 0);
    if (i >= 0) return i;
    zip_int64_t n = zip_get_num_entries(z, 0);
    size_t rl = strlen(rel);
    for (zip_int64_t k = 0; k < n && k < MAX_SCAN; k++) {
        const char *name = zip_get_name(z, (zip_uint64_t)k, ZIP_FL_ENC_RAW);
        if (!name) continue;
        size_t nl = strlen(name);
        if (nl <= rl + 1 || strcmp(name + nl - rl, rel) != 0 || name[nl - rl - 1] != '/') continue;
        const char *first = strchr(name, '/');
        if (first == name + nl - rl - 1 && first > name) return k;
    }
    return -1;
}

static int from_zip(const char *zpath, const char *rel, ht_source_found *out, char *err,
                    size_t errn)
{
    char shown[HT_SHOWN_MAX];
    int ze = 0;
    zip_t *z = zip_open(zpath, ZIP_RDONLY, &ze);
    if (!z) {
        zip_error_t e;
        zip_error_init_with_code(&e, ze);
        snprintf(err, errn, "%s: cannot be read as a zip (%s)",
                 ht_shown(zpath, shown, sizeof shown), zip_error_strerror(&e));
        zip_error_fini(&e);
        return -1;
    }
    zip_int64_t i = locate(z, rel);
    if (i < 0) {
        zip_discard(z);
        return 0;
    }
    const char *name = zip_get_name(z, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
    snprintf(out->where, sizeof out->where, "%s!%s", zpath, name ? name : rel);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, (zip_uint64_t)i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        snprintf(err, errn, "%s: its size cannot be read (%s)",
                 ht_shown(out->where, shown, sizeof shown), zip_strerror(z));
        zip_discard(z);
        return -1;
    }
    if (st.size > HT_SOURCE_MAX_BYTES) {
        too_large(err, errn, out->where, st.size);
        zip_discard(z);
        return -1;
    }
    size_t cap = (size_t)st.size, len = 0;
    char *bytes = malloc(cap + 1);
    zip_file_t *f = bytes ? zip_fopen_index(z, (zip_uint64_t)i, 0) : NULL;
    if (!f) {
        snprintf(err, errn, "%s: %s", ht_shown(out->where, shown, sizeof shown),
                 bytes ? zip_strerror(z) : "out of memory");
        free(bytes);
        zip_discard(z);
        return -1;
    }
    while (len < cap) {
        zip_int64_t r = zip_fread(f, bytes + len, cap - len);
        if (r < 0) {
            snprintf(err, errn, "%s: %s", ht_shown(out->where, shown, sizeof shown),
                     zip_file_strerror(f));
            zip_fclose(f);
            zip_discard(z);
            free(bytes);
            return -1;
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    zip_fclose(f);
    zip_discard(z);
    if (ht_source_text_take(&out->text, bytes, len) != 0) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    return 1;
}

int ht_source_find(const ht_source_path *p, const char *cls, const char *src, ht_source_found *out,
                   char *err, size_t errn)
{
    memset(out, 0, sizeof *out);
    if (ht_source_rel(cls, src, out->rel, sizeof out->rel, err, errn) != 0) return -1;
    for (uint32_t k = 0; k < p->n; k++) {
        const ht_source_entry *e = &p->e[k];
        int rc = e->kind == HT_SOURCE_DIR ? from_dir(e->path, out->rel, out, err, errn)
                                          : from_zip(e->path, out->rel, out, err, errn);
        if (rc < 0) return -1;
        if (rc > 0) {
            out->jdk = e->jdk;
            return 0;
        }
    }
    char searched[3000];
    ht_source_path_text(p, searched, sizeof searched);
    snprintf(err, errn, "%s not found; searched: %s", out->rel, searched);
    return -1;
}

void ht_source_found_free(ht_source_found *f)
{
    ht_source_text_free(&f->text);
}
