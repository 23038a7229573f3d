/* source_path.c - see source_path.h. */
#include "source_path.h"

#include "shown.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

void ht_source_path_init(ht_source_path *p)
{
    memset(p, 0, sizeof *p);
}

void ht_source_path_free(ht_source_path *p)
{
    for (uint32_t i = 0; i < p->n; i++)
        free(p->e[i].path);
    memset(p, 0, sizeof *p);
}

int ht_source_path_add(ht_source_path *p, const char *path, ht_source_kind kind, int jdk)
{
    if (p->n >= HT_SOURCE_MAX_ENTRIES) return -1;
    char *copy = strdup(path);
    if (!copy) return -1;
    p->e[p->n++] = (ht_source_entry){.path = copy, .kind = kind, .jdk = jdk};
    return 0;
}

int ht_source_path_copy(ht_source_path *dst, const ht_source_path *src)
{
    ht_source_path_init(dst);
    for (uint32_t i = 0; i < src->n; i++)
        if (ht_source_path_add(dst, src->e[i].path, src->e[i].kind, src->e[i].jdk) != 0) {
            ht_source_path_free(dst);
            return -1;
        }
    return 0;
}

void ht_source_path_text(const ht_source_path *p, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    if (!p->n) snprintf(out, n, "(none)");
    for (uint32_t i = 0; i < p->n && len < n; i++) {
        char shown[HT_SHOWN_MAX];
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? ", " : "",
                                ht_shown(p->e[i].path, shown, sizeof shown));
    }
}

/* One entry of --source, checked: what it is, or one line in err. */
static int check_entry(const char *path, ht_source_kind *kind, char *err, size_t n)
{
    char shown[HT_SHOWN_MAX];
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, n, "--source: %s: %s", ht_shown(path, shown, sizeof shown), strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        if (access(path, R_OK | X_OK) != 0) {
            snprintf(err, n, "--source: %s: cannot read the directory: %s",
                     ht_shown(path, shown, sizeof shown), strerror(errno));
            return -1;
        }
        *kind = HT_SOURCE_DIR;
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, n, "--source: %s: not a directory, .jar or .zip",
                 ht_shown(path, shown, sizeof shown));
        return -1;
    }
    int ze = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &ze);
    if (!z) {
        zip_error_t e;
        zip_error_init_with_code(&e, ze);
        snprintf(err, n, "--source: %s: not a directory, .jar or .zip that can be read (%s)",
                 ht_shown(path, shown, sizeof shown), zip_error_strerror(&e));
        zip_error_fini(&e);
        return -1;
    }
    zip_discard(z);
    *kind = HT_SOURCE_ZIP;
    return 0;
}

int ht_source_path_parse(ht_source_path *p, const char *spec, char *err, size_t n)
{
    if (!spec[0]) {
        snprintf(err, n, "--source: give PATH[:PATH...] (directories, .jar or .zip files)");
        return -1;
    }
    for (const char *at = spec;;) {
        size_t len = strcspn(at, ":");
        if (len == 0) {
            snprintf(err, n,
                     "--source: an empty entry in '%s' (two ':' in a row, or one at an end)", spec);
            return -1;
        }
        char path[4096];
        if (len >= sizeof path) {
            snprintf(err, n, "--source: an entry longer than %zu bytes", sizeof path - 1);
            return -1;
        }
        memcpy(path, at, len);
        path[len] = '\0';
        ht_source_kind kind;
        if (check_entry(path, &kind, err, n) != 0) return -1;
        if (ht_source_path_add(p, path, kind, 0) != 0) {
            snprintf(err, n, "--source: more than %d entries", HT_SOURCE_MAX_ENTRIES);
            return -1;
        }
        if (!at[len]) break;
        at += len + 1;
    }
    return 0;
}

/* --- the JDK's src.zip --- */

int ht_source_jdk_feature(const char *v)
{
    if (!v) return 0;
    while (*v == '"' || *v == ' ')
        v++;
    if (v[0] == '1' && v[1] == '.') v += 2; /* 1.8.0_392: 8 */
    int f = 0;
    for (; *v >= '0' && *v <= '9' && f < 10000; v++)
        f = f * 10 + (*v - '0');
    return f;
}

/* The feature version of the JDK at home, from its release file (0: unknown). */
static int home_feature(const char *home)
{
    char path[4200], line[256];
    snprintf(path, sizeof path, "%s/release", home);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int feature = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "JAVA_VERSION=", 13) == 0) {
            feature = ht_source_jdk_feature(line + 13);
            break;
        }
    fclose(f);
    return feature;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* src.zip of the java home `home`: lib/src.zip (9 and later), src.zip, or
 * beside a JDK 8 jre/. 0 and its path in out, else -1. */
static int zip_in_home(const char *home, char *out, size_t n)
{
    static const char *const WHERE[] = {"lib/src.zip", "src.zip", "../src.zip"};
    for (size_t i = 0; i < sizeof WHERE / sizeof WHERE[0]; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", home, WHERE[i]);
        if (is_file(path)) {
            snprintf(out, n, "%s", path);
            return 0;
        }
    }
    return -1;
}

/* The java home of pid's executable (.../bin/java): 0, or -1. */
static int pid_home(uint32_t pid, char *home, size_t n)
{
    char link[64], exe[4096];
    snprintf(link, sizeof link, "/proc/%u/exe", pid);
    ssize_t len = readlink(link, exe, sizeof exe - 1);
    if (len <= 0) return -1;
    exe[len] = '\0';
    char *deleted = strstr(exe, " (deleted)"); /* the JDK was upgraded under it */
    if (deleted && deleted[10] == '\0') *deleted = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = '\0';
    slash = strrchr(exe, '/');
    if (!slash || strcmp(slash, "/bin") != 0) return -1;
    *slash = '\0';
    snprintf(home, n, "%s", exe[0] ? exe : "/");
    return 0;
}

int ht_source_jdk_zip(uint32_t pid, const char *jdk_version, char *out, size_t n, char *why,
                      size_t whyn)
{
    int want = ht_source_jdk_feature(jdk_version);
    char home[4096] = "", tried[1024] = "";
    size_t tl = 0;
    if (pid && pid_home(pid, home, sizeof home) == 0) {
        if (zip_in_home(home, out, n) == 0) return 0;
        tl += (size_t)snprintf(tried + tl, sizeof tried - tl, "%s (the JVM's java home), ", home);
    }
    const char *jh = getenv("JAVA_HOME");
    if (jh && jh[0] && (!want || home_feature(jh) == want) && zip_in_home(jh, out, n) == 0)
        return 0;
    if (jh && jh[0] && tl < sizeof tried)
        tl += (size_t)snprintf(tried + tl, sizeof tried - tl, "JAVA_HOME, ");
    glob_t g;
    int found = -1;
    if (want && glob("/usr/lib/jvm/*/lib/src.zip", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && found != 0; i++) {
            char jdk[4200];
            snprintf(jdk, sizeof jdk, "%s", g.gl_pathv[i]);
            char *cut = strstr(jdk, "/lib/src.zip");
            if (!cut) continue;
            *cut = '\0';
            if (home_feature(jdk) == want && is_file(g.gl_pathv[i])) {
                snprintf(out, n, "%s", g.gl_pathv[i]);
                found = 0;
            }
        }
        globfree(&g);
    }
    if (found == 0) return 0;
    if (tl < sizeof tried) snprintf(tried + tl, sizeof tried - tl, "/usr/lib/jvm/*/lib/src.zip");
    if (want)
        snprintf(why, whyn,
                 "no src.zip of JDK %d in %s (Debian installs it with openjdk-%d-source)", want,
                 tried, want);
    else
        snprintf(why, whyn, "no src.zip in %s (the JVM's JDK version is not known)", tried);
    return -1;
}
