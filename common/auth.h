/*
 * auth.h - the key that guards an agent's TCP endpoint, and what is done
 * with it: a challenge-response that proves both ends hold it without
 * sending it, and sealed messages.
 *
 * Over the local sockets the kernel says who the peer is (trust.h, the
 * agent's uid check); over TCP nothing does, so listen= serves only peers
 * that prove they hold the agent's key (32 random bytes, kept as 64 hex
 * digits in a file only its user can read: BASE.key, made 0600 beside the
 * sockets, or key=@FILE):
 *
 *   viewer -> agent  AUTH_REQ    cn                       (32 random bytes)
 *   agent  -> viewer AUTH_REP    sn, salt, HMAC(K, "agent"  | cn | sn)
 *   viewer -> agent  AUTH_PROOF  HMAC(K, "viewer" | cn | sn)
 *
 * HMAC-SHA-256 (libsodium). Each side checks the other's proof, so a viewer
 * also knows it speaks to the agent that holds its key (a squatter on the
 * port proves nothing, and is told nothing but a nonce). After the proof,
 * every message on that connection is sealed (XSalsa20-Poly1305) with
 * HMAC(K, "session" | cn | sn), fresh per connection: a request replayed or
 * altered is refused. The stream, sent alike to every subscriber, is sealed
 * with HMAC(K, "stream" | salt), salt being the agent's per start: a
 * subscriber without the key receives only what it cannot read.
 *
 * Owns: the key file format and its checks, the proofs, sealing. Pure
 * functions and file reads, any thread; never logs, never keeps a key
 * anywhere but where the caller says.
 */
#ifndef HEAPTOP_AUTH_H
#define HEAPTOP_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "wire.h"

#define HT_KEY_BYTES   32
#define HT_NONCE_BYTES 32
#define HT_PROOF_BYTES 32
/* A sealed message: "HTSB", a 24-byte nonce, then the ciphertext and its 16-byte tag. */
#define HT_SEAL_MAGIC    0x42535448u /* "HTSB" little-endian */
#define HT_SEAL_OVERHEAD (4 + 24 + 16)

typedef struct ht_key {
    uint8_t k[HT_KEY_BYTES];
} ht_key;

/* 0 once libsodium is ready (idempotent, thread-safe), -1 if it cannot be. */
int ht_auth_init(void);
/* Read a key file: a regular file (not followed if a symlink), owned by uid,
 * closed to group and others, holding 64 hex digits (and an optional
 * newline). 0, or -1 with one line in err. */
int ht_key_load(const char *path, uid_t uid, ht_key *key, char *err, size_t errn);
/* Make a fresh key and write it to path (O_CREAT|O_EXCL|O_NOFOLLOW, 0600);
 * an existing file there is replaced only if it is a regular file of ours.
 * 0, or -1 with one line in err. */
int ht_key_create(const char *path, ht_key *key, char *err, size_t errn);
/* Random bytes. */
void ht_auth_random(void *out, size_t n);
/* HMAC(K, label | a | b) into out (32 bytes); b may be NULL. */
void ht_auth_mac(const ht_key *key, const char *label, const uint8_t *a, size_t an,
                 const uint8_t *b, size_t bn, uint8_t out[32]);
/* The proofs of the handshake, and the keys it leads to. */
void ht_auth_proof(const ht_key *key, const char *role, const uint8_t cn[HT_NONCE_BYTES],
                   const uint8_t sn[HT_NONCE_BYTES], uint8_t out[HT_PROOF_BYTES]);
void ht_auth_session_key(const ht_key *key, const uint8_t cn[HT_NONCE_BYTES],
                         const uint8_t sn[HT_NONCE_BYTES], ht_key *out);
void ht_auth_stream_key(const ht_key *key, const uint8_t salt[HT_NONCE_BYTES], ht_key *out);
/* Constant-time equality of two proofs. */
int ht_auth_equal(const uint8_t *a, const uint8_t *b, size_t n);
/* Seal data[0..len) into out (appended). 0, or -1 out of memory. */
int ht_seal(const ht_key *key, const void *data, size_t len, ht_buf *out);
/* 1 when data starts like a sealed message. */
int ht_is_sealed(const void *data, size_t len);
/* Open a sealed message into out (appended): 0, or -1 when it was not sealed
 * with key or was altered. */
int ht_unseal(const ht_key *key, const void *data, size_t len, ht_buf *out);

#endif
