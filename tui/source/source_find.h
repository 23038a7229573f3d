/*
 * source_find.h - the source file of a frame, found on the source path.
 *
 * Owns: the file a class's code is in, as a relative name (pkg/Outer.java
 * from the class "pkg.Outer$Inner" and its SourceFile "Outer.java"; without
 * a SourceFile, the outer class's name and .java), the search of the source
 * path's entries in order (a directory: DIR/pkg/Outer.java; a zip:
 * pkg/Outer.java, or MODULE/pkg/Outer.java as the JDK's src.zip lays it
 * out), and reading the file found, bounded by HT_SOURCE_MAX_BYTES. Names
 * come from the JVM, so they are checked before they become a path: a
 * package or file name that is empty, has a '/' or is "..", is refused.
 *
 * Threads: a job's thread (it reads files and zips); ht_source_rel and
 * ht_source_same_file are pure and run anywhere. Must never: read past the
 * bound, open anything but a regular file (a FIFO would block), or parse a
 * zip by hand (libzip reads them).
 */
#ifndef HEAPTOP_SOURCE_FIND_H
#define HEAPTOP_SOURCE_FIND_H

#include <stddef.h>

#include "source_path.h"
#include "source_text.h"

#define HT_SOURCE_REL_MAX 1024

typedef struct ht_source_found {
    ht_source_text text;
    char rel[HT_SOURCE_REL_MAX]; /* pkg/Outer.java */
    /* where it was read: DIR/pkg/Outer.java, x.jar!pkg/Outer.java,
     * .../src.zip!java.base/java/lang/String.java */
    char where[HT_SOURCE_REL_MAX + 4200];
    int jdk; /* found in the JDK's src.zip */
} ht_source_found;

/* The relative name of the file holding class cls whose SourceFile
 * attribute is src (NULL or "": guessed from the outer class). 0, or -1
 * with one line in err. */
int ht_source_rel(const char *cls, const char *src, char *out, size_t n, char *err, size_t errn);
/* Is the code of class cls (SourceFile src) in the file rel? */
int ht_source_same_file(const char *cls, const char *src, const char *rel);
/* Find and read the file of (cls, src) on p, in order: 0 and *out filled
 * (free it with ht_source_found_free), or -1 with one line in err: which
 * paths were searched when it is nowhere, or what was wrong with the one
 * found (too large, unreadable). */
int ht_source_find(const ht_source_path *p, const char *cls, const char *src, ht_source_found *out,
                   char *err, size_t errn);
void ht_source_found_free(ht_source_found *f);

#endif
