/*
 * outdir.h - where heaptop writes its files, and the one way it writes them.
 *
 * Owns: the rule for an output directory (--out, the TUI's export
 * directory): it must be a directory (not a symlink to one: the last
 * component is never followed) owned by the user heaptop writes as, and not
 * writable by other users unless sticky (then they cannot replace or remove
 * heaptop's files; a group-writable directory is the owner's choice and is
 * accepted). Missing directories are created (parents 0755, the directory
 * itself 0700, less the umask), then a probe file proves it takes files (a
 * permission bit says nothing to root or about a read-only mount).
 *
 * And the one writer of output files (ht_outfile), which every CSV goes
 * through (export_csv.h's ht_csv): the directory is opened with
 * O_DIRECTORY|O_NOFOLLOW and checked by fstat as above; the file is created
 * in it (openat) under a fresh temporary name with
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 (heap contents and application names
 * go into these files: every file heaptop writes is private), written,
 * flushed, fsync'd and closed, every step checked, then renamed (renameat)
 * onto its final name: whatever was at that name (a symlink someone
 * planted, an older file) is replaced, never followed or truncated. On any
 * error the temporary is removed: a full disk leaves no truncated file.
 *
 * And the fallback directory under $TMPDIR (or /tmp), created 0700 with
 * mkdtemp. Runs on the caller's thread (a job's worker in the viewer, so
 * the keeper's socket is used under a lock); no terminal, no nng. It never
 * removes anything but its own temporaries, reserved names and probe files. Error texts show paths
 * through ht_shown (shown.h).
 */
#ifndef HEAPTOP_OUTDIR_H
#define HEAPTOP_OUTDIR_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Create dir and its missing parents, check it (the rule above) for the
 * effective user, and that a file can be created in it. 0, or -1 with one
 * line naming the problem in err ("'x' is a regular file, not a
 * directory", "'x' belongs to user mallory, not to root: ..."). */
int ht_outdir_prepare(const char *dir, char *err, size_t errn);
/* The same for the user writer, who heaptop becomes before it writes (root
 * recording another user's JVM goes on as that user): the directory must be
 * writer's, and one created here is given to writer. made (maden bytes, or
 * NULL) gets the topmost directory created here, "" when none: a command
 * that then cannot run undoes it with ht_outdir_unmake. */
int ht_outdir_prepare_for(const char *dir, uid_t writer, char *made, size_t maden, char *err,
                          size_t errn);
/* Remove dir and its parents up to made (as ht_outdir_prepare_for said),
 * while they are empty; nothing when made is "". */
void ht_outdir_unmake(const char *dir, const char *made);
/* dir opened (O_DIRECTORY|O_NOFOLLOW) and checked for the effective user:
 * the descriptor, or -1 with errno (ELOOP a symlink, ENOTDIR not a
 * directory, EPERM another user's or writable by others and not sticky)
 * and, when err is not NULL, the line. */
int ht_outdir_open(const char *dir, char *err, size_t errn);
/* Make a fresh private directory $TMPDIR/heaptop-<what>-<pid>-<time>-XXXXXX
 * (or under /tmp) and put its path in out. 0, or -1 with err. */
int ht_outdir_fallback(char *out, size_t n, const char *what, int pid, char *err, size_t errn);

/* The files of a user who switches: root viewing another user's JVM
 * becomes that user before it connects (reach.h), yet the files it writes
 * are root's own, in root's directory. ht_outdir_keep, called before the
 * switch (when the target's owner is not the effective user, target.h),
 * opens dir (checked by the rule above, for the user who runs heaptop) and
 * hands it to the keeper (keeper.h), a small process forked then that stays
 * that user. Every later ht_outfile_* and ht_outdir_prepare* on dir (the
 * same string, trailing slashes aside) goes through it, and writes only
 * plain *.csv names there; other directories are written as before, by
 * whoever heaptop is then. 0, or -1 with one line in err. At most one
 * directory is kept. */
int ht_outdir_keep(const char *dir, char *err, size_t errn);
/* One line for a write in dir that failed with errno e: "cannot write in
 * 'DIR': E", or, when heaptop switched user since it started, "heaptop runs
 * as tomcat (uid 995) and cannot write in 'DIR': E". */
void ht_outdir_why(const char *dir, int e, char *out, size_t n);

/* One output file being written (see above): write to f, then commit or
 * abort. */
typedef struct ht_outfile {
    FILE *f;
    int dirfd;      /* the directory, -1 when the keeper holds it */
    int kept;       /* made by the keeper (ht_outdir_keep) */
    char name[256]; /* the final name, in the directory */
    char tmp[288];  /* the temporary's */
} ht_outfile;
/* Start path (DIR/NAME, or NAME in .): 0, or -1 with errno. */
int ht_outfile_create(ht_outfile *o, const char *path);
/* Flush, fsync, close, rename onto the final name: 0, or -1 with errno (the
 * temporary removed; nothing at the final name changed). */
int ht_outfile_commit(ht_outfile *o);
/* Close and remove the temporary; errno is kept. */
void ht_outfile_abort(ht_outfile *o);
/* Create path as a new empty private file (O_EXCL; a name kept for a
 * commit that follows): 0, or -1 with errno (EEXIST when taken). */
int ht_outfile_reserve(const char *path);
/* Remove a file ht_outfile_reserve made, which nothing was committed onto
 * (through the keeper when its directory is kept). 0, or -1 with errno. */
int ht_outfile_unreserve(const char *path);

#endif
