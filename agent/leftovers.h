/*
 * leftovers.h - closes the descriptors nng 1.5.2 abandons when a listener is
 * closed.
 *
 * Why: when the watchdog restarts a wedged listener (nng issue #1518, see
 * watchdog.h), nng's ipc_ep_close shuts down (shutdown(2) and EPOLL_CTL_DEL)
 * the connections that finished the SP handshake but were never handed to the
 * socket (the wedge means none is), and the listening socket, and never closes
 * them: those pipes keep the endpoint's reference count above zero, so the
 * endpoint is never freed and neither are they. Each restart leaked the old
 * listening socket plus one socket per connection made while the listener was
 * deaf (the watchdog's own probes among them).
 *
 * Owns: a small table of candidate descriptors. A candidate is a unix stream
 * socket of this process whose local address is one of the agent's two socket
 * paths (accepted sockets carry their listener's address), shut down in both
 * directions (poll reports POLLHUP) and registered in no epoll instance of the
 * process (nng registers each live descriptor and deregisters it only when it
 * shuts it down). A descriptor nng shut down and will still close (a pipe on
 * its way through nng's reaper) stays such a candidate for microseconds; an
 * abandoned one stays forever. So a candidate is closed only after it has been
 * seen, with the same inode, in at least three scans spanning at least two
 * seconds of the process running (a scan that follows a long gap, such as a
 * SIGSTOP, starts the count again).
 *
 * Runs on the watchdog thread. Never touches nng, never blocks (reads /proc and
 * polls with a zero timeout), never closes a descriptor that fails any test.
 */
#ifndef HEAPTOP_LEFTOVERS_H
#define HEAPTOP_LEFTOVERS_H

#include <stdint.h>
#include <sys/types.h>

#define HT_LEFTOVERS_MAX 256

typedef struct ht_leftover {
    int fd;
    ino_t ino;
    int sightings;
    int64_t first_ms; /* when first seen */
} ht_leftover;

typedef struct ht_leftovers {
    const char *paths[2]; /* the agent's socket files */
    ht_leftover c[HT_LEFTOVERS_MAX];
    int n;
    int64_t last_scan_ms;
    unsigned long closed; /* descriptors closed so far */
} ht_leftovers;

void ht_leftovers_init(ht_leftovers *l, const char *ctl_file, const char *events_file);
/* One scan at time now_ms (monotonic). Returns the number of descriptors closed. */
int ht_leftovers_scan(ht_leftovers *l, int64_t now_ms);

#endif
