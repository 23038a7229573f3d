/* tcp_gate.c - see tcp_gate.h. */
#include "tcp_gate.h"

#include "protocol.h"

#include <string.h>

void ht_tcp_gate_init(ht_tcp_gate *g, const ht_key *key)
{
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    g->key = *key;
    ht_auth_random(g->salt, sizeof g->salt);
    ht_auth_stream_key(&g->key, g->salt, &g->stream);
    g->ready = 1;
}

void ht_tcp_gate_destroy(ht_tcp_gate *g)
{
    if (!g->ready) return;
    pthread_mutex_destroy(&g->lock);
    memset(g, 0, sizeof *g); /* the keys too */
}

/* The peer of pipe, or NULL. Caller holds lock. */
static ht_tcp_peer *find(ht_tcp_gate *g, uint32_t pipe)
{
    for (int i = 0; i < HT_TCP_MAX_PIPES; i++)
        if (g->peers[i].pipe == pipe) return &g->peers[i];
    return NULL;
}

int ht_tcp_gate_admit(ht_tcp_gate *g, uint32_t pipe)
{
    pthread_mutex_lock(&g->lock);
    ht_tcp_peer *p = find(g, pipe);
    if (!p && (p = find(g, 0))) {
        memset(p, 0, sizeof *p);
        p->pipe = pipe;
    }
    pthread_mutex_unlock(&g->lock);
    if (!p) {
        atomic_fetch_add(&g->refused, 1);
        return -1;
    }
    atomic_fetch_add(&g->admitted, 1);
    return 0;
}

void ht_tcp_gate_gone(ht_tcp_gate *g, uint32_t pipe)
{
    if (pipe == 0) return;
    pthread_mutex_lock(&g->lock);
    ht_tcp_peer *p = find(g, pipe);
    if (p) memset(p, 0, sizeof *p);
    pthread_mutex_unlock(&g->lock);
}

static void error_reply(ht_buf *reply, uint64_t seq, const char *text)
{
    ht_enc_error(reply, seq, HT_EAUTH, text);
}

ht_gate_verdict ht_tcp_gate_request(ht_tcp_gate *g, uint32_t pipe, const void *data, size_t len,
                                    ht_buf *plain, ht_buf *reply, ht_key *session)
{
    pthread_mutex_lock(&g->lock);
    ht_tcp_peer *p = find(g, pipe);
    ht_tcp_peer copy;
    if (p) copy = *p;
    pthread_mutex_unlock(&g->lock);
    if (!p) return HT_GATE_CLOSE; /* not let in (or gone meanwhile) */
    if (copy.proven) {
        if (ht_unseal(&copy.session, data, len, plain) != 0) return HT_GATE_CLOSE;
        *session = copy.session;
        return HT_GATE_PASS;
    }
    ht_msg m;
    int rc = ht_msg_open(data, len, &m);
    if (rc == HT_OK) rc = ht_msg_validate(&m);
    if (rc != HT_OK) {
        error_reply(reply, 0, "this TCP endpoint needs heaptop's key first (heaptop --key FILE)");
        return HT_GATE_CLOSE;
    }
    ht_reader r;
    ht_msg_reader(&m, &r);
    if (m.type == HT_MSG_AUTH_REQ) {
        memcpy(copy.cn, ht_get_bytes(&r, HT_NONCE_BYTES), HT_NONCE_BYTES);
        ht_auth_random(copy.sn, sizeof copy.sn);
        uint8_t proof[HT_PROOF_BYTES];
        ht_auth_proof(&g->key, "agent", copy.cn, copy.sn, proof);
        size_t at = ht_msg_begin(reply, HT_MSG_AUTH_REP, m.seq);
        ht_put_bytes(reply, copy.sn, sizeof copy.sn);
        ht_put_bytes(reply, g->salt, sizeof g->salt);
        ht_put_bytes(reply, proof, sizeof proof);
        ht_msg_end(reply, at);
    } else if (m.type == HT_MSG_AUTH_PROOF_REQ) {
        static const uint8_t zero[HT_NONCE_BYTES];
        uint8_t want[HT_PROOF_BYTES];
        ht_auth_proof(&g->key, "viewer", copy.cn, copy.sn, want);
        if (memcmp(copy.sn, zero, sizeof zero) == 0 ||
            !ht_auth_equal(want, ht_get_bytes(&r, HT_PROOF_BYTES), HT_PROOF_BYTES)) {
            atomic_fetch_add(&g->wrong_keys, 1);
            error_reply(reply, m.seq, "wrong key: this is not the key of the agent's JVM");
            return HT_GATE_CLOSE;
        }
        copy.proven = 1;
        ht_auth_session_key(&g->key, copy.cn, copy.sn, &copy.session);
        ht_enc_u64_msg(reply, HT_MSG_ACK, m.seq, 1);
    } else {
        error_reply(reply, m.seq,
                    "this TCP endpoint serves only viewers that prove they hold its key "
                    "(heaptop --key FILE; the agent wrote it beside its sockets, or was given "
                    "key=@FILE)");
        return HT_GATE_REPLY;
    }
    pthread_mutex_lock(&g->lock);
    p = find(g, pipe);
    if (p) *p = copy;
    pthread_mutex_unlock(&g->lock);
    return HT_GATE_REPLY;
}

int ht_tcp_gate_seal_stream(const ht_tcp_gate *g, const void *data, size_t len, ht_buf *out)
{
    return ht_seal(&g->stream, data, len, out);
}
