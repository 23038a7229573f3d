/*
 * dump_file.h - a heap dump the agent wrote for this viewer, opened only
 * once it is proven to be one, and removed only after it was read.
 *
 * The agent reports a dump by path (HT_MSG_HEAP_DUMP); the viewer reads it
 * and, unless it was asked to keep it, removes it. A path is an agent's
 * word, and an agent may be a fake (trust.h) or a TCP peer: so the viewer
 * takes from it only the file's name, and only in the one place the agent
 * writes dumps, BASE.dumps next to its sockets (agent/heapdump.c):
 *   - the name is heap-PID-ID.hprof or heap-PID-ID-K.hprof, with the pid the
 *     agent's hello gave and the id of the dump asked for;
 *   - BASE.dumps is a real directory owned by the viewer's uid and closed to
 *     group and others, opened (not followed) in the socket directory the
 *     connection checked (over IPC), or at the reported path's directory
 *     (over TCP, where the agent proved it holds the key);
 *   - the file is a regular file owned by the same uid, with one link,
 *     opened without following a symlink and without blocking.
 * It is read through /proc/self/fd/N, so what is read is what was checked,
 * and removed (unlinkat in the directory it was opened in) only if the name
 * still names the same file, and only after a read that succeeded.
 *
 * Owns: its two descriptors. Any one thread at a time (the UI thread opens
 * it, a job reads and removes it); no nng, no terminal.
 */
#ifndef HEAPTOP_DUMP_FILE_H
#define HEAPTOP_DUMP_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct ht_dump_file {
    int dirfd, fd;    /* BASE.dumps and the dump; -1 when closed */
    char name[128];   /* the file's name in dirfd */
    char path[64];    /* /proc/self/fd/N: open this to read what was checked */
    char shown[1000]; /* where it is, for messages */
    dev_t dev;
    ino_t ino;
    uint64_t bytes;
} ht_dump_file;

/* Check and open dump `id` of the agent at base, reported at `reported`,
 * whose hello said pid `agent_pid`. sockdir: the socket directory the
 * connection checked (trust.h), or -1 over TCP. 0, or -1 with one line in
 * err (nothing opened). */
int ht_dump_file_open(ht_dump_file *f, int sockdir, const char *base, pid_t agent_pid, uint64_t id,
                      const char *reported, char *err, size_t errn);
/* Remove it (after reading it). 0, or -1 with one line in err. */
int ht_dump_file_remove(ht_dump_file *f, char *err, size_t errn);
/* Close both descriptors (idempotent; a zeroed f with fds -1 is closed). */
void ht_dump_file_close(ht_dump_file *f);
/* A closed one, for a struct about to hold one. */
void ht_dump_file_init(ht_dump_file *f);

#endif
