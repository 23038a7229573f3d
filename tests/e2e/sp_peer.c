/*
 * sp_peer: a bare nng peer for the tests of what an agent lets in, with none
 * of the viewer's own checks in the way.
 *   sp_peer req URL SECONDS   dial URL's control socket, send a hello, print
 *                             "reply TYPE" (exit 0) or "no reply: WHY" (exit 1)
 *   sp_peer sub URL SECONDS   subscribe to URL's stream for SECONDS and print
 *                             "N messages, B bytes, D decoded" (exit 0)
 * URL is an nng URL (ipc://PATH.ctl, tcp://HOST:PORT).
 */
#include "clock.h"
#include "protocol.h"

#include <nng/nng.h>
#include <nng/protocol/pubsub0/sub.h>
#include <nng/protocol/reqrep0/req.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: sp_peer req|sub URL SECONDS\n");
        return 2;
    }
    int ms = atoi(argv[3]) * 1000;
    nng_socket s;
    if (strcmp(argv[1], "req") == 0) {
        if (nng_req0_open(&s) != 0) return 1;
        nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, ms);
        nng_socket_set_ms(s, NNG_OPT_SENDTIMEO, ms);
        int rv = nng_dial(s, argv[2], NULL, 0);
        ht_buf b;
        ht_buf_init(&b);
        ht_enc_simple(&b, HT_MSG_HELLO_REQ, 7);
        if (rv == 0) rv = nng_send(s, b.data, b.len, 0);
        ht_buf_free(&b);
        nng_msg *m = NULL;
        if (rv == 0) rv = nng_recvmsg(s, &m, 0);
        if (rv != 0) {
            printf("no reply: %s\n", nng_strerror(rv));
            return 1;
        }
        ht_msg msg;
        int rc = ht_msg_open(nng_msg_body(m), nng_msg_len(m), &msg);
        printf("reply %s\n", rc == HT_OK ? ht_msg_type_name(msg.type) : ht_strerror(rc));
        nng_msg_free(m);
        return 0;
    }
    if (nng_sub0_open(&s) != 0) return 1;
    nng_socket_set(s, NNG_OPT_SUB_SUBSCRIBE, "", 0);
    nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, 100);
    nng_dial(s, argv[2], NULL, NNG_FLAG_NONBLOCK);
    uint64_t end = ht_mono_ms() + (uint64_t)ms, n = 0, bytes = 0, decoded = 0;
    while (ht_mono_ms() < end) {
        nng_msg *m;
        if (nng_recvmsg(s, &m, 0) != 0) continue;
        ht_msg msg;
        n++;
        bytes += nng_msg_len(m);
        if (ht_msg_open(nng_msg_body(m), nng_msg_len(m), &msg) == HT_OK) decoded++;
        nng_msg_free(m);
    }
    printf("%llu messages, %llu bytes, %llu decoded\n", (unsigned long long)n,
           (unsigned long long)bytes, (unsigned long long)decoded);
    return 0;
}
