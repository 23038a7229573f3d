/*
 * fake_agent: a process that answers where an agent would, for the tests of
 * what a viewer believes. Not a JVM stand-in: it only speaks the wire format.
 *   fake_agent BASE VERSION SECONDS
 *       answers every request on BASE.ctl with an error of protocol VERSION
 *       (the viewer's version check);
 *   fake_agent --evil ENDPOINT PID VICTIM SECONDS
 *       the attacker of the security tests: at ENDPOINT (a socket base path
 *       or tcp://HOST:PORT) it says hello as pid PID, syncs an empty run,
 *       ACKs every command, and reports every heap dump asked for as written
 *       at VICTIM, so a viewer that believes it reads and removes VICTIM.
 * Runs SECONDS, then exits.
 */
#include "clock.h"
#include "ipc_path.h"
#include "protocol.h"

#include <nng/nng.h>
#include <nng/protocol/pubsub0/pub.h>
#include <nng/protocol/reqrep0/rep.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void send_buf(nng_socket s, const ht_buf *b)
{
    nng_msg *m;
    if (nng_msg_alloc(&m, 0) != 0) return;
    nng_msg_append(m, b->data, b->len);
    if (nng_sendmsg(s, m, 0) != 0) nng_msg_free(m);
}

static int version_mismatch(const char *base, int version, int seconds)
{
    char url[256];
    nng_socket pub, rep;
    if (nng_pub0_open(&pub) || nng_rep0_open(&rep)) return 1;
    ht_ipc_url(url, sizeof url, base, ".events");
    if (nng_listen(pub, url, NULL, 0)) return 1;
    ht_ipc_url(url, sizeof url, base, ".ctl");
    if (nng_listen(rep, url, NULL, 0)) return 1;
    nng_socket_set_ms(rep, NNG_OPT_RECVTIMEO, seconds * 1000);
    nng_msg *m;
    while (nng_recvmsg(rep, &m, 0) == 0) {
        ht_buf b;
        ht_buf_init(&b);
        ht_enc_error(&b, 0, HT_EVERSION, "other version");
        b.data[4] = (uint8_t)version; /* the version field of the header */
        nng_msg_free(m);
        send_buf(rep, &b);
        ht_buf_free(&b);
    }
    nng_close(pub);
    nng_close(rep);
    return 0;
}

static int evil(const char *endpoint, uint32_t pid, const char *victim, int seconds)
{
    char url_ctl[256], url_ev[256];
    nng_socket pub, rep;
    if (ht_endpoint_url(url_ctl, sizeof url_ctl, endpoint, ".ctl") != 0 ||
        ht_endpoint_url(url_ev, sizeof url_ev, endpoint, ".events") != 0) {
        fprintf(stderr, "fake_agent: bad endpoint %s\n", endpoint);
        return 2;
    }
    if (nng_pub0_open(&pub) || nng_rep0_open(&rep)) return 1;
    int rv = nng_listen(pub, url_ev, NULL, 0);
    if (rv == 0) rv = nng_listen(rep, url_ctl, NULL, 0);
    if (rv != 0) {
        fprintf(stderr, "fake_agent: cannot listen at %s: %s\n", endpoint, nng_strerror(rv));
        return 1;
    }
    if (!ht_base_is_tcp(endpoint)) { /* open to everyone, as an attacker would */
        char f[256];
        ht_ipc_file(f, sizeof f, endpoint, ".ctl");
        chmod(f, 0777);
        ht_ipc_file(f, sizeof f, endpoint, ".events");
        chmod(f, 0777);
    }
    printf("fake_agent: listening at %s\n", endpoint);
    fflush(stdout);
    nng_socket_set_ms(rep, NNG_OPT_RECVTIMEO, 100);
    uint64_t end = ht_mono_ms() + (uint64_t)seconds * 1000, seq = 0, dumps = 0;
    struct stat st;
    while (ht_mono_ms() < end) {
        nng_msg *m;
        if (nng_recvmsg(rep, &m, 0) == 0) {
            ht_msg req;
            ht_buf b;
            ht_buf_init(&b);
            int ok = ht_msg_open(nng_msg_body(m), nng_msg_len(m), &req) == HT_OK;
            if (ok && req.type == HT_MSG_HELLO_REQ) {
                ht_hello h = {.pid = pid, .interval = 524288, .depth = 64, .live = 1};
                size_t at = ht_msg_begin(&b, HT_MSG_HELLO_REP, req.seq);
                ht_enc_hello(&b, &h, "Innocent", "17", "", "");
                ht_msg_end(&b, at);
            } else if (ok && req.type == HT_MSG_SYNC_REQ) {
                size_t at = ht_msg_begin(&b, HT_MSG_SYNC_REP, req.seq);
                ht_put_u64(&b, seq);
                ht_put_u32(&b, 0);
                ht_msg_end(&b, at);
            } else if (ok) {
                if (req.type == HT_MSG_HEAP_DUMP_REQ) dumps++;
                ht_enc_u64_msg(&b, HT_MSG_ACK, req.seq,
                               req.type == HT_MSG_HEAP_DUMP_REQ ? dumps : 1);
            }
            nng_msg_free(m);
            if (b.len) send_buf(rep, &b);
            ht_buf_free(&b);
            printf("fake_agent: answered %s\n", ok ? ht_msg_type_name(req.type) : "garbage");
            fflush(stdout);
        }
        for (uint64_t id = 1; id <= dumps; id++) { /* "written", again and again */
            ht_heap_dump_rec d = {.id = id, .state = HT_DUMP_DONE, .t_ms = ht_mono_ms()};
            d.bytes = stat(victim, &st) == 0 ? (uint64_t)st.st_size : 0;
            ht_buf b;
            ht_buf_init(&b);
            ht_enc_heap_dump(&b, ++seq, &d, victim, "");
            nng_msg *pm;
            if (nng_msg_alloc(&pm, 0) == 0) {
                nng_msg_append(pm, b.data, b.len);
                if (nng_sendmsg(pub, pm, NNG_FLAG_NONBLOCK) != 0) nng_msg_free(pm);
            }
            ht_buf_free(&b);
        }
    }
    nng_close(pub);
    nng_close(rep);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "--evil") == 0)
        return evil(argv[2], (uint32_t)atoi(argv[3]), argv[4], atoi(argv[5]));
    if (argc == 4) return version_mismatch(argv[1], atoi(argv[2]), atoi(argv[3]));
    fprintf(stderr, "usage: fake_agent BASE VERSION SECONDS | fake_agent --evil ENDPOINT PID "
                    "VICTIM SECONDS\n");
    return 2;
}
