/* request.c - see request.h. */
#include "request.h"

#include "ipc_path.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

uint64_t ht_request_id(void)
{
    uint64_t v = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) v = 0;
        close(fd);
    }
    /* the UI thread and a job's worker both ask for ids */
    static atomic_uint_fast64_t counter;
    v ^= ((uint64_t)getpid() << 32) ^ (atomic_fetch_add(&counter, 1) + 1);
    return v ? v : 1;
}

nng_msg *ht_request_msg(uint16_t type, uint64_t id, const ht_buf *extra)
{
    ht_buf b;
    ht_buf_init(&b);
    size_t start = ht_msg_begin(&b, type, id);
    if (extra) ht_put_bytes(&b, extra->data, extra->len);
    ht_msg_end(&b, start);
    nng_msg *msg = NULL;
    int rv = b.failed ? NNG_ENOMEM : nng_msg_alloc(&msg, 0);
    if (rv == 0) rv = nng_msg_append(msg, b.data, b.len);
    ht_buf_free(&b);
    if (rv != 0 && msg) {
        nng_msg_free(msg);
        msg = NULL;
    }
    return msg;
}

void ht_request_io_error(const char *base, int timeout_ms, uint16_t type, int rv, int sending,
                         char *err, size_t errn)
{
    if (rv == NNG_ECANCELED)
        snprintf(err, errn, "cancelled while waiting for the JVM at %s", base);
    else if (rv == NNG_ECONNREFUSED)
        snprintf(err, errn, "the JVM at %s exited (nobody listens at its socket any more)", base);
    else if (rv == NNG_ETIMEDOUT && sending && ht_base_is_tcp(base))
        snprintf(err, errn,
                 "nothing answered at %s within %.1f s (an agent listens on TCP only when "
                 "started with listen=HOST:PORT, and the stream needs PORT+1 too)",
                 base, timeout_ms / 1000.0);
    else if (rv == NNG_ETIMEDOUT && sending)
        snprintf(err, errn,
                 "the JVM at %s did not answer within %.1f s (is it stopped or exiting?)", base,
                 timeout_ms / 1000.0);
    else if (rv == NNG_ETIMEDOUT)
        snprintf(err, errn, "the JVM at %s did not answer within %.1f s (did it exit or hang?)",
                 base, timeout_ms / 1000.0);
    else if (sending)
        snprintf(err, errn, "cannot send %s to the agent at %s: %s", ht_msg_type_name(type), base,
                 nng_strerror(rv));
    else
        snprintf(err, errn, "no answer from the JVM at %s: %s", base, nng_strerror(rv));
}

int ht_request_check_reply(const char *base, uint16_t type, uint64_t id, nng_msg **reply, ht_msg *m,
                           char *err, size_t errn)
{
    const uint8_t *body = nng_msg_body(*reply);
    size_t len = nng_msg_len(*reply);
    int rc = ht_msg_open(body, len, m);
    if (rc == HT_EVERSION) {
        snprintf(err, errn,
                 "the agent at %s speaks heaptop protocol version %u; this heaptop speaks "
                 "version %d: use the heaptop that matches the agent",
                 base, (unsigned)(body[4] | body[5] << 8), HT_PROTOCOL_VERSION);
    } else if (rc == HT_OK && (rc = ht_msg_validate(m)) == HT_OK && m->type == HT_MSG_ERROR) {
        ht_reader r;
        ht_msg_reader(m, &r);
        uint32_t code = ht_get_u32(&r);
        ht_str text = ht_get_str(&r);
        snprintf(err, errn, "the agent refused %s: %.*s (%s)", ht_msg_type_name(type),
                 (int)text.len, text.s, ht_strerror((int)code));
        rc = HT_EBADREQ;
    } else if (rc != HT_OK) {
        snprintf(err, errn, "bad reply from the agent at %s: %s", base, ht_strerror(rc));
    } else if (m->seq != id) {
        snprintf(err, errn, "the agent answered another request (id mismatch)");
        rc = HT_EBODY;
    }
    if (rc != HT_OK) {
        nng_msg_free(*reply);
        *reply = NULL;
        return -1;
    }
    return 0;
}

void ht_request_command_body(uint16_t type, uint64_t arg, ht_buf *extra)
{
    if (type == HT_MSG_SET_INTERVAL_REQ) ht_put_u64(extra, arg);
    if (type == HT_MSG_MARK_REQ) ht_put_u8(extra, (uint8_t)arg);
    if (type == HT_MSG_BUDGET_REQ) ht_put_u32(extra, (uint32_t)arg);
    if (type == HT_MSG_HEAP_DUMP_REQ) ht_put_u8(extra, (uint8_t)arg);
    if (type == HT_MSG_DRAG_REQ) ht_put_str(extra, arg ? (const char *)(uintptr_t)arg : "");
    if (type == HT_MSG_CPU_REQ) {
        ht_put_u8(extra, (uint8_t)(arg & 0xff));
        ht_put_u32(extra, (uint32_t)(arg >> 8));
    }
}

void ht_request_command_value(const ht_msg *m, uint64_t *value)
{
    ht_reader r;
    ht_msg_reader(m, &r);
    if (value && m->type == HT_MSG_ACK) *value = ht_get_u64(&r);
}

/* Replace msg's body with out's bytes. */
static int replace_body(nng_msg *msg, const ht_buf *out)
{
    if (out->failed) return -1;
    nng_msg_clear(msg);
    return nng_msg_append(msg, out->data, out->len) == 0 ? 0 : -1;
}

int ht_request_seal(const ht_key *session, nng_msg *msg)
{
    ht_buf out;
    ht_buf_init(&out);
    int rc = ht_seal(session, nng_msg_body(msg), nng_msg_len(msg), &out) == 0
                 ? replace_body(msg, &out)
                 : -1;
    ht_buf_free(&out);
    return rc;
}

int ht_request_unseal(const ht_key *session, const char *base, nng_msg *msg, char *err, size_t errn)
{
    ht_msg m;
    if (!ht_is_sealed(nng_msg_body(msg), nng_msg_len(msg)) &&
        ht_msg_open(nng_msg_body(msg), nng_msg_len(msg), &m) == HT_OK && m.type == HT_MSG_ERROR)
        return 0; /* the gate speaks plainly to a connection it does not know */
    ht_buf out;
    ht_buf_init(&out);
    int rc = ht_unseal(session, nng_msg_body(msg), nng_msg_len(msg), &out) == 0
                 ? replace_body(msg, &out)
                 : -1;
    ht_buf_free(&out);
    if (rc != 0)
        snprintf(err, errn, "a reply from %s was not sealed with this connection's key: dropped",
                 base);
    return rc;
}
