/* handshake.c - see handshake.h. */
#include "handshake.h"

#include "protocol.h"

#include <stdio.h>
#include <string.h>

/* One plain request and its plain reply, which must be of type `want` (an
 * ERROR's text goes into err). 0 and *reply (free it), or -1. */
static int ask(nng_socket req, const char *base, uint16_t type, const uint8_t *body, size_t len,
               uint16_t want, nng_msg **reply, ht_msg *m, char *err, size_t errn)
{
    ht_buf b;
    ht_buf_init(&b);
    uint64_t id = 0;
    ht_auth_random(&id, sizeof id);
    size_t at = ht_msg_begin(&b, type, id);
    ht_put_bytes(&b, body, len);
    ht_msg_end(&b, at);
    int rv = b.failed ? NNG_ENOMEM : nng_send(req, b.data, b.len, 0);
    ht_buf_free(&b);
    if (rv == 0) rv = nng_recvmsg(req, reply, 0);
    if (rv != 0) {
        snprintf(err, errn, "the agent at %s did not answer the key's handshake: %s%s", base,
                 nng_strerror(rv),
                 rv == NNG_ETIMEDOUT ? " (is it an older heaptop, or not heaptop at all?)" : "");
        return -1;
    }
    int rc = ht_msg_open(nng_msg_body(*reply), nng_msg_len(*reply), m);
    if (rc == HT_OK) rc = ht_msg_validate(m);
    if (rc == HT_OK && m->type == HT_MSG_ERROR) {
        ht_reader r;
        ht_msg_reader(m, &r);
        ht_get_u32(&r);
        ht_str text = ht_get_str(&r);
        snprintf(err, errn, "the agent at %s refused the key: %.*s", base, (int)text.len, text.s);
    } else if (rc != HT_OK || m->type != want || m->seq != id) {
        snprintf(err, errn, "the agent at %s answered the key's handshake with %s", base,
                 rc != HT_OK ? ht_strerror(rc) : "something else");
    } else {
        return 0;
    }
    nng_msg_free(*reply);
    *reply = NULL;
    return -1;
}

int ht_handshake(nng_socket req, const char *base, const ht_key *key, ht_key *session,
                 ht_key *stream, char *err, size_t errn)
{
    uint8_t cn[HT_NONCE_BYTES], sn[HT_NONCE_BYTES], salt[HT_NONCE_BYTES];
    uint8_t want[HT_PROOF_BYTES], mine[HT_PROOF_BYTES];
    ht_auth_random(cn, sizeof cn);
    nng_msg *reply = NULL;
    ht_msg m;
    if (ask(req, base, HT_MSG_AUTH_REQ, cn, sizeof cn, HT_MSG_AUTH_REP, &reply, &m, err, errn) != 0)
        return -1;
    ht_reader r;
    ht_msg_reader(&m, &r);
    memcpy(sn, ht_get_bytes(&r, sizeof sn), sizeof sn);
    memcpy(salt, ht_get_bytes(&r, sizeof salt), sizeof salt);
    ht_auth_proof(key, "agent", cn, sn, want);
    int agent_ok = ht_auth_equal(want, ht_get_bytes(&r, HT_PROOF_BYTES), HT_PROOF_BYTES);
    nng_msg_free(reply);
    if (!agent_ok) {
        snprintf(err, errn,
                 "the process at %s does not hold this key: not the agent it belongs to (another "
                 "process on the port?), or the wrong key file; heaptop tells it nothing",
                 base);
        return -1;
    }
    ht_auth_proof(key, "viewer", cn, sn, mine);
    if (ask(req, base, HT_MSG_AUTH_PROOF_REQ, mine, sizeof mine, HT_MSG_ACK, &reply, &m, err,
            errn) != 0)
        return -1;
    nng_msg_free(reply);
    ht_auth_session_key(key, cn, sn, session);
    ht_auth_stream_key(key, salt, stream);
    return 0;
}
