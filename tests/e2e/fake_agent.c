/*
 * fake_agent: answers on BASE.ctl like an agent of another protocol version,
 * so the viewer's version check can be tested. Not a JVM stand-in: it only
 * speaks the wire format. Usage: fake_agent BASE VERSION SECONDS
 */
#include "ipc_path.h"
#include "protocol.h"

#include <nng/nng.h>
#include <nng/protocol/pubsub0/pub.h>
#include <nng/protocol/reqrep0/rep.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    char url[256];
    nng_socket pub, rep;
    if (nng_pub0_open(&pub) || nng_rep0_open(&rep)) return 1;
    ht_ipc_url(url, sizeof url, argv[1], ".events");
    if (nng_listen(pub, url, NULL, 0)) return 1;
    ht_ipc_url(url, sizeof url, argv[1], ".ctl");
    if (nng_listen(rep, url, NULL, 0)) return 1;
    nng_socket_set_ms(rep, NNG_OPT_RECVTIMEO, atoi(argv[3]) * 1000);
    nng_msg *m;
    while (nng_recvmsg(rep, &m, 0) == 0) {
        ht_buf b;
        ht_buf_init(&b);
        ht_enc_error(&b, 0, HT_EVERSION, "other version");
        b.data[4] = (uint8_t)atoi(argv[2]); /* the version field of the header */
        nng_msg_clear(m);
        nng_msg_append(m, b.data, b.len);
        nng_sendmsg(rep, m, 0);
        ht_buf_free(&b);
    }
    nng_close(pub);
    nng_close(rep);
    return 0;
}
