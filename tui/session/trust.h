/*
 * trust.h - what a viewer checks before it believes that an agent is one of
 * its own user's: the socket directory, the socket files, the peer at the
 * other end of the connection.
 *
 * A socket path is only a name: before a user's first use of heaptop (or
 * after a /tmp cleaner), another local user can create /tmp/heaptop-<uid>
 * and serve a fake agent in it, which would then feed the viewer another
 * JVM's data and name files for it to read and remove. So the viewer trusts
 * an agent's socket only when
 *   - its directory is a real directory (not a symlink), owned by the
 *     viewer's effective uid (root viewing another user's JVM has become
 *     that user by then: reach.h) and closed to group and others, as the
 *     agent itself makes it (ipc_path.h);
 *   - the socket file in it is a socket owned by the same uid;
 *   - the process that answers has that uid (SO_PEERCRED, nng's
 *     NNG_OPT_IPC_PEER_UID), and, for a PID target, is that pid.
 * The directory is opened once and everything after is done relative to the
 * descriptor (the connection dials /proc/self/fd/N/NAME), so a directory
 * swapped after the check is not the one used.
 *
 * Owns: those checks and their one-line messages. Pure functions of the file
 * system and their arguments, on any thread; no nng, no terminal. It never
 * follows a symlink at the checked component, and never removes anything.
 */
#ifndef HEAPTOP_TRUST_H
#define HEAPTOP_TRUST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Split base "DIR/NAME" into its directory ("." when none) and NAME. 0, or -1
 * when it does not fit. */
int ht_trust_split(const char *base, char *dir, size_t dirn, char *name, size_t namen);
/* Open base's socket directory (O_DIRECTORY, the last component not
 * followed) and check it: a directory owned by uid, no access for group and
 * others. The descriptor (close it), -1 with errno ENOENT and err set when
 * it does not exist, or -1 with one line in err for anything else. */
int ht_trust_open_dir(const char *base, uid_t uid, char *err, size_t errn);
/* Check one file of base's (base.ctl, base.events) in dirfd, not followed: a
 * socket owned by uid. 0; -1 with errno ENOENT when absent; -1 and err. */
int ht_trust_check_socket(int dirfd, const char *base, const char *suffix, uid_t uid, char *err,
                          size_t errn);
/* Say why an answering peer is not trusted: it runs as peer_uid (not uid),
 * or is process peer_pid where pid was expected (pid 0: any). 0 when it is
 * trusted; -1 with one line in err. */
int ht_trust_peer(const char *base, uid_t uid, pid_t pid, uint64_t peer_uid, uint64_t peer_pid,
                  char *err, size_t errn);
/* What st (a file of `what` at path) must be to be trusted: owned by uid
 * and, when closed, with no access for group and others. 0, or -1 with
 * "WHAT PATH belongs to ..., not to ...IF_OWNER" or "WHAT PATH has mode
 * NNNNIF_MODE" in err. */
int ht_trust_private(const struct stat *st, uid_t uid, int closed, const char *what,
                     const char *path, const char *if_owner, const char *if_mode, char *err,
                     size_t errn);
/* "user NAME (uid N)" for messages. */
void ht_trust_who(uid_t uid, char *out, size_t n);

#endif
