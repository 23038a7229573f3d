/*
 * outdir.h - where a viewer writes its files: a directory checked before any
 * work starts, and a private fallback when writing still fails at the end.
 *
 * Owns: mkdir -p of an output directory and the proof that it takes files
 * (a probe file is created and removed: a permission bit says nothing to root
 * or about a read-only mount), and the fallback directory under $TMPDIR (or
 * /tmp), created 0700 with mkdtemp. Runs on the caller's thread; no terminal,
 * no nng. It never removes anything but its own probe file.
 */
#ifndef HEAPTOP_OUTDIR_H
#define HEAPTOP_OUTDIR_H

#include <stddef.h>

/* Create dir and its missing parents (mode 0755 less the umask), then check
 * that a file can be created in it. 0, or -1 with one line naming the problem
 * in err ("'x' is a regular file, not a directory", "cannot write in /proc:
 * ..."). */
int ht_outdir_prepare(const char *dir, char *err, size_t errn);
/* Make a fresh private directory $TMPDIR/heaptop-<what>-<pid>-<time>-XXXXXX
 * (or under /tmp) and put its path in out. 0, or -1 with err. */
int ht_outdir_fallback(char *out, size_t n, const char *what, int pid, char *err, size_t errn);

#endif
