/*
 * client_call.c - commands from another thread than the one that polls the
 * client (the viewer's jobs), each on its own nng context of the client's
 * REQ socket (see ht_call in client.h). Any one thread per call; never the
 * client's store or state, only the socket's id and copies.
 */
#include "client.h"

#include "request.h"

#include <stdio.h>
#include <string.h>

int ht_call_open(ht_call *k, const ht_client *c, char *err, size_t errn)
{
    memset(k, 0, sizeof *k);
    atomic_init(&k->cancelled, 0);
    snprintf(k->base, sizeof k->base, "%s", c->base);
    k->timeout_ms = c->timeout_ms;
    k->sealed = c->sealed;
    k->session = c->session;
    int rv = nng_aio_alloc(&k->aio, NULL, NULL);
    if (rv == 0) {
        rv = nng_ctx_open(&k->ctx, c->req);
        if (rv != 0) {
            nng_aio_free(k->aio);
            k->aio = NULL;
        }
    }
    if (rv != 0) {
        snprintf(err, errn, "cannot ask the agent at %s: %s", c->base, nng_strerror(rv));
        return -1;
    }
    k->open = 1;
    return 0;
}

/* Wait for the operation just started on k's aio; a cancel that came before
 * it started is honoured here. */
static int call_wait(ht_call *k)
{
    if (atomic_load(&k->cancelled)) nng_aio_cancel(k->aio);
    nng_aio_wait(k->aio);
    return nng_aio_result(k->aio);
}

int ht_call_command(ht_call *k, uint16_t type, uint64_t arg, uint64_t *value, char *err,
                    size_t errn)
{
    if (!k->open || atomic_load(&k->cancelled)) {
        ht_request_io_error(k->base, k->timeout_ms, type, NNG_ECANCELED, 1, err, errn);
        return -1;
    }
    ht_buf extra;
    ht_buf_init(&extra);
    ht_request_command_body(type, arg, &extra);
    uint64_t id = ht_request_id();
    nng_msg *msg = ht_request_msg(type, id, &extra);
    ht_buf_free(&extra);
    if (msg && k->sealed && ht_request_seal(&k->session, msg) != 0) {
        nng_msg_free(msg);
        msg = NULL;
    }
    if (!msg) {
        ht_request_io_error(k->base, k->timeout_ms, type, NNG_ENOMEM, 1, err, errn);
        return -1;
    }
    nng_aio_set_timeout(k->aio, k->timeout_ms);
    nng_aio_set_msg(k->aio, msg);
    nng_ctx_send(k->ctx, k->aio);
    int rv = call_wait(k);
    if (rv != 0) {
        nng_msg_free(nng_aio_get_msg(k->aio)); /* still ours when the send failed */
        ht_request_io_error(k->base, k->timeout_ms, type, rv, 1, err, errn);
        return -1;
    }
    nng_ctx_recv(k->ctx, k->aio);
    rv = call_wait(k);
    if (rv != 0) {
        ht_request_io_error(k->base, k->timeout_ms, type, rv, 0, err, errn);
        return -1;
    }
    nng_msg *reply = nng_aio_get_msg(k->aio);
    if (k->sealed && ht_request_unseal(&k->session, k->base, reply, err, errn) != 0) {
        nng_msg_free(reply);
        return -1;
    }
    ht_msg m;
    if (ht_request_check_reply(k->base, type, id, &reply, &m, err, errn) != 0) return -1;
    ht_request_command_value(&m, value);
    nng_msg_free(reply);
    return 0;
}

void ht_call_cancel(ht_call *k)
{
    atomic_store(&k->cancelled, 1);
    if (k->aio) nng_aio_cancel(k->aio);
}

void ht_call_close(ht_call *k)
{
    if (!k->open) return;
    nng_ctx_close(k->ctx); /* ECLOSED when the loop closed the socket first: fine */
    nng_aio_free(k->aio);
    k->aio = NULL;
    k->open = 0;
}
