/*
 * ipc_path.h - where an agent's sockets live, agreed by both ends.
 *
 * A base path B gives two sockets: B.events (PUB stream) and B.ctl (REQ/REP).
 * The default base is <dir>/<pid> with <dir> = $XDG_RUNTIME_DIR/heaptop when
 * that is set, else /tmp/heaptop-<uid>. The directory must be private: it is
 * created 0700, and an existing one must belong to us and be closed to group
 * and others, since the sockets give access to heap contents.
 *
 * Over TCP, only when the agent is asked (listen=HOST:PORT): the control
 * socket at tcp://HOST:PORT, the stream at tcp://HOST:PORT+1. No uid check is
 * possible there: whoever reaches the port reads everything.
 */
#ifndef HEAPTOP_IPC_PATH_H
#define HEAPTOP_IPC_PATH_H

#include <stddef.h>
#include <sys/types.h>

#define HT_IPC_PATH_MAX 108 /* sun_path limit, including the suffix */

/* Default socket directory for this user (no I/O). 0 on success. */
int ht_ipc_default_dir(char *out, size_t n);
/* Default base path for a pid. 0 on success. */
int ht_ipc_default_base(char *out, size_t n, pid_t pid);
/* "ipc://" URL of base + suffix (".events" or ".ctl"). 0 on success, -1 if too long. */
int ht_ipc_url(char *out, size_t n, const char *base, const char *suffix);
/* Filesystem path of base + suffix. */
int ht_ipc_file(char *out, size_t n, const char *base, const char *suffix);
/*
 * Make sure the directory holding `base` exists and is private (creating it
 * 0700 if missing). Returns 0, or -1 with a message naming the problem in err.
 */
int ht_ipc_secure_dir(const char *base, char *err, size_t errn);

/* HOST:PORT or PORT (HOST then 127.0.0.1); HOST an IPv4 address, [IPv6],
 * localhost, or * for every interface; PORT 1..65534 (the stream takes
 * PORT+1). Writes the host as nng wants it (an IPv6 one in brackets). 0, or
 * -1 with what was wrong in err. */
int ht_tcp_parse(const char *s, char *host, size_t hostn, unsigned *port, char *err, size_t errn);
/* "tcp://HOST:PORT+offset" (offset 0: control, 1: stream). 0, or -1 if too long. */
int ht_tcp_url(char *out, size_t n, const char *host, unsigned port, unsigned offset);
/* 1 when a viewer's base is a TCP endpoint, "tcp://HOST:PORT", not a path. */
int ht_base_is_tcp(const char *base);
/* 1 when it is one on this host (127.0.0.0/8 or [::1]). */
int ht_base_is_loopback_tcp(const char *base);
/* The URL a viewer dials for base + suffix (".ctl" or ".events"), whether base
 * is a path (ipc://) or a TCP endpoint. 0, or -1 (too long, or not an endpoint). */
int ht_endpoint_url(char *out, size_t n, const char *base, const char *suffix);

#endif
