/*
 * handshake.h - a viewer proves it holds an agent's key over TCP, and the
 * agent proves it back (auth.h).
 *
 * Owns: the three messages of the challenge-response on a REQ socket just
 * dialled to an agent's TCP endpoint, and the keys they lead to: the session
 * key that seals this connection's requests and replies, and the stream key
 * that opens what the agent publishes. Any thread that owns the socket;
 * blocks at most the socket's send and receive timeouts per message. It
 * never sends the key, and trusts nothing the other end says until its proof
 * checks out.
 */
#ifndef HEAPTOP_HANDSHAKE_H
#define HEAPTOP_HANDSHAKE_H

#include <nng/nng.h>
#include <stddef.h>

#include "auth.h"

/* 0 with *session and *stream, or -1 with one line in err. */
int ht_handshake(nng_socket req, const char *base, const ht_key *key, ht_key *session,
                 ht_key *stream, char *err, size_t errn);

#endif
