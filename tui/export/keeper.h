/*
 * keeper.h - the keeper: the one process that writes in root's output
 * directory after heaptop became another user.
 *
 * Owns: a small process forked by ht_keeper_start before heaptop switches
 * from the user who runs it (root) to the JVM's user (reach.h); the open
 * directory it holds (checked by outdir.c's rule before it is handed over);
 * the socket pair between it and heaptop, of which heaptop holds the only
 * other end; the names it made (temporaries and reserved names, the last 64).
 *
 * Process and threads: the keeper is a process of its own, single-threaded,
 * still the user heaptop was started as. It serves one request at a time and
 * does only this, in the directory it holds: create a private temporary
 * (O_CREAT|O_EXCL|O_NOFOLLOW, 0600, a hidden name it picks) and hand back
 * its descriptor (heaptop writes and fsyncs it); rename a temporary it made
 * onto a final name; create an empty file at a free final name (a reserved
 * name); remove a temporary or reserved name it made. In heaptop, the
 * ht_keeper_* calls run on the caller's thread (the UI thread, a job's
 * worker, record's) and use the socket under a lock.
 *
 * Never: a final name other than a plain name ending in .csv (no '/', no
 * leading dot); following a symlink, truncating a file, or removing or
 * renaming a name it did not make; opening anything outside the directory
 * it was given (only /dev/null, for its standard descriptors); reading anything but
 * heaptop's requests or writing anything but the replies; dying of the
 * terminal's signals (SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGPIPE are
 * ignored, so a Ctrl-C that stops a recording leaves it to commit the
 * files). It exits when heaptop's end closes, and dies with heaptop
 * (PR_SET_PDEATHSIG).
 *
 * Why that is safe: after the switch heaptop runs as the JVM's user, whose
 * processes the JVM's code can take over. The worst such a heaptop can make
 * the keeper do is create private (0600, root's) files in that one
 * directory, fill them (and the filesystem) with what it likes, and write or
 * replace *.csv files there - never another file of root's, never another
 * directory, never a file through a symlink planted there.
 */
#ifndef HEAPTOP_KEEPER_H
#define HEAPTOP_KEEPER_H

#include <stddef.h>

/* Fork the keeper on dfd, the directory dir (as given, without trailing
 * slashes; already opened and checked by outdir.c), which it keeps; dfd is
 * closed here. 0, or -1 with one line in err naming dir. At most one. */
int ht_keeper_start(int dfd, const char *dir, char *err, size_t errn);
/* The directory kept (as ht_keeper_start got it), NULL when none. */
const char *ht_keeper_dir(void);

/* Requests, each 0 or -1 with errno (EPERM a name the keeper refuses, EIO
 * the keeper gone). */
/* A new temporary for final name: its descriptor in *fd, its name in tmp. */
int ht_keeper_create(const char *name, char *tmp, size_t tmpn, int *fd);
/* Rename the temporary tmp (one the keeper made) onto name. */
int ht_keeper_rename(const char *tmp, const char *name);
/* Create name as a new empty private file (EEXIST when taken). */
int ht_keeper_reserve(const char *name);
/* Remove name, a temporary or reserved name the keeper made. */
int ht_keeper_remove(const char *name);

#endif
