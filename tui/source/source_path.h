/*
 * source_path.h - where source files are looked for: the source path.
 *
 * Owns: the entries of --source PATH[:PATH...] in the order given
 * (directories, and .jar or .zip files of sources), checked when given so a
 * missing or unreadable entry is one line before any long work; and the
 * JDK's own src.zip, found by itself for the JVM being watched: the java
 * home of /proc/PID/exe, then JAVA_HOME, then /usr/lib/jvm/<any>/lib/src.zip,
 * the last two only for a JDK of the JVM's feature version (17 of
 * "17.0.9+9-Debian"). A directory or a jar holds <package path>/File.java;
 * the JDK's src.zip (9 and later) <module>/<package path>/File.java, which
 * source_find.c looks for in any zip.
 *
 * Threads: parsing and checking on the main thread before the screen
 * (tui/cmd); ht_source_jdk_zip on a job's thread (it reads /proc and the
 * file system). A path is copied for a job (ht_source_path_copy) and never
 * shared between threads. Must never: follow anything but the entries
 * given and the JDK's own directories; open a zip by hand (libzip reads
 * them).
 */
#ifndef HEAPTOP_SOURCE_PATH_H
#define HEAPTOP_SOURCE_PATH_H

#include <stddef.h>
#include <stdint.h>

#define HT_SOURCE_MAX_ENTRIES 64

typedef enum ht_source_kind {
    HT_SOURCE_DIR = 0,
    HT_SOURCE_ZIP, /* a .jar or .zip of sources */
} ht_source_kind;

typedef struct ht_source_entry {
    char *path;
    ht_source_kind kind;
    int jdk; /* the JDK's src.zip, found by itself (not given) */
} ht_source_entry;

typedef struct ht_source_path {
    ht_source_entry e[HT_SOURCE_MAX_ENTRIES];
    uint32_t n;
} ht_source_path;

/* Empty. */
void ht_source_path_init(ht_source_path *p);
void ht_source_path_free(ht_source_path *p);
/* Add the entries of spec ("DIR:x.jar:src.zip"), each checked now: it
 * exists, is a directory or a zip libzip can open. 0, or -1 with one line in
 * err naming the entry and what is wrong (p keeps the entries before it). */
int ht_source_path_parse(ht_source_path *p, const char *spec, char *err, size_t n);
/* Add one entry as it is, unchecked (jdk: the JDK's src.zip). 0, or -1 full
 * or out of memory. */
int ht_source_path_add(ht_source_path *p, const char *path, ht_source_kind kind, int jdk);
/* dst (initialised) a copy of src. 0, or -1 out of memory (dst freed). */
int ht_source_path_copy(ht_source_path *dst, const ht_source_path *src);
/* Entries' paths joined by ", " into out ("(none)" when empty). */
void ht_source_path_text(const ht_source_path *p, char *out, size_t n);

/* The feature version of a JDK version string: 17 of "17.0.9+9", 8 of
 * "1.8.0_392" and "25" of "25+36-LTS"; 0 when it has none. */
int ht_source_jdk_feature(const char *version);
/* The JDK's src.zip for the JVM pid (0: none running) of version
 * jdk_version (NULL or "?": unknown): 0 and its path in out, or -1 and in
 * why where it was looked for (and the Debian package that installs it). */
int ht_source_jdk_zip(uint32_t pid, const char *jdk_version, char *out, size_t n, char *why,
                      size_t whyn);

#endif
