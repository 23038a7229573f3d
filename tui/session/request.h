/*
 * request.h - one request to the agent on the wire: the message a command
 * becomes, and what its reply or its failure says.
 *
 * Owns nothing: pure helpers shared by the client's own requests (client.c,
 * the UI thread) and the calls a job makes on its own nng context (client.c's
 * ht_call_*, a worker thread). Each request carries a random id so the agent
 * can answer a resend (nng's REQ resends on a new pipe) with the answer it
 * remembered rather than run a command twice. Never blocks, never touches a
 * socket.
 */
#ifndef HEAPTOP_REQUEST_H
#define HEAPTOP_REQUEST_H

#include <nng/nng.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "protocol.h"

/* A random, non-zero request id. */
uint64_t ht_request_id(void);
/* A request message of `type` with id and extra body bytes; NULL out of memory. */
nng_msg *ht_request_msg(uint16_t type, uint64_t id, const ht_buf *extra);
/* What a failed send (sending) or receive of a `type` request to base says, in err. */
void ht_request_io_error(const char *base, int timeout_ms, uint16_t type, int rv, int sending,
                         char *err, size_t errn);
/* Check a reply to request `id` of `type` and open it into m. 0, or -1 with
 * err (the reply is then freed and *reply NULL). */
int ht_request_check_reply(const char *base, uint16_t type, uint64_t id, nng_msg **reply, ht_msg *m,
                           char *err, size_t errn);
/* Over TCP (auth.h, handshake.h): seal a request with the connection's
 * session key, in place. 0, or -1 out of memory. */
int ht_request_seal(const ht_key *session, nng_msg *msg);
/* Open a sealed reply in place. 0; or -1 with err when it was not sealed
 * with the session key (an agent's plain ERROR, such as a refusal after a
 * reconnect, is left as it is: 0). */
int ht_request_unseal(const ht_key *session, const char *base, nng_msg *msg, char *err,
                      size_t errn);
/* The body a command (interval, mark, budget, heap dump, CPU mode, drag
 * mode) carries after the header. A CPU_REQ's arg is ht_request_cpu_arg's,
 * a DRAG_REQ's ht_request_drag_arg's. */
void ht_request_command_body(uint16_t type, uint64_t arg, ht_buf *extra);
/* CPU_REQ's two fields in one command argument: the mode (ht_cpu_mode) and
 * the tick in microseconds (0: keep the agent's). */
static inline uint64_t ht_request_cpu_arg(int mode, uint32_t interval_us)
{
    return (uint64_t)interval_us << 8 | (uint8_t)mode;
}
/* DRAG_REQ's filter (protocol_drag.h; "" for off) as a command argument:
 * the string's address, which must outlive the call. */
static inline uint64_t ht_request_drag_arg(const char *filter)
{
    return (uint64_t)(uintptr_t)filter;
}
/* The value of an ACK (the interval set, the sampling state, the mark, a
 * dump's id, the CPU mode now in force). */
void ht_request_command_value(const ht_msg *m, uint64_t *value);

#endif
