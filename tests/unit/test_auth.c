/* The key of an agent's TCP endpoint (auth.h): sealed messages open only with
 * their key and only unaltered (every single-bit flip of a sealed message is
 * refused); the handshake's proofs differ by role, nonce and key, so one side's
 * proof is never the other's answer; key files are refused unless they are a
 * private regular file of the user, not a symlink, holding 64 hex digits. The
 * truth for the MAC is Python's hmac module on the same bytes. */
#include "auth.h"
#include "check.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text, mode_t mode)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    fchmod(fd, mode);
    close(fd);
}

int main(void)
{
    CHECK(ht_auth_init() == 0);
    ht_key k1, k2;
    ht_auth_random(k1.k, sizeof k1.k);
    ht_auth_random(k2.k, sizeof k2.k);
    CHECK(memcmp(k1.k, k2.k, sizeof k1.k) != 0);

    /* sealing: round trip, wrong key, every flipped bit */
    const char msg[] = "HTOP a message the agent sends";
    ht_buf sealed, plain;
    ht_buf_init(&sealed);
    ht_buf_init(&plain);
    CHECK(ht_seal(&k1, msg, sizeof msg, &sealed) == 0);
    CHECK(sealed.len == sizeof msg + HT_SEAL_OVERHEAD && ht_is_sealed(sealed.data, sealed.len));
    CHECK(memmem(sealed.data, sealed.len, "the agent", 9) == NULL); /* not in clear */
    CHECK(ht_unseal(&k1, sealed.data, sealed.len, &plain) == 0 && plain.len == sizeof msg &&
          memcmp(plain.data, msg, sizeof msg) == 0);
    ht_buf_reset(&plain);
    CHECK(ht_unseal(&k2, sealed.data, sealed.len, &plain) != 0);
    int refused = 0, flips = 0;
    for (size_t i = 4; i < sealed.len; i++) /* the magic aside: nonce, ciphertext, tag */
        for (int b = 0; b < 8; b++, flips++) {
            sealed.data[i] ^= (uint8_t)(1u << b);
            ht_buf_reset(&plain);
            refused += ht_unseal(&k1, sealed.data, sealed.len, &plain) != 0;
            sealed.data[i] ^= (uint8_t)(1u << b);
        }
    CHECK_MSG(refused == flips, "%d of %d altered messages refused", refused, flips);
    ht_buf_reset(&plain);
    CHECK(ht_unseal(&k1, msg, sizeof msg, &plain) != 0); /* plain bytes are not sealed */
    CHECK(ht_unseal(&k1, sealed.data, HT_SEAL_OVERHEAD - 1, &plain) != 0);

    /* the proofs: by role, by nonces, by key */
    uint8_t cn[HT_NONCE_BYTES], sn[HT_NONCE_BYTES], a[32], v[32], x[32];
    ht_auth_random(cn, sizeof cn);
    ht_auth_random(sn, sizeof sn);
    ht_auth_proof(&k1, "agent", cn, sn, a);
    ht_auth_proof(&k1, "viewer", cn, sn, v);
    CHECK(!ht_auth_equal(a, v, 32));
    ht_auth_proof(&k2, "agent", cn, sn, x);
    CHECK(!ht_auth_equal(a, x, 32));
    ht_auth_proof(&k1, "agent", sn, cn, x); /* nonces swapped */
    CHECK(!ht_auth_equal(a, x, 32));
    ht_auth_proof(&k1, "agent", cn, sn, x);
    CHECK(ht_auth_equal(a, x, 32));
    ht_key s1, s2, st1, st2;
    ht_auth_session_key(&k1, cn, sn, &s1);
    ht_auth_session_key(&k1, sn, cn, &s2);
    ht_auth_stream_key(&k1, cn, &st1);
    ht_auth_stream_key(&k1, sn, &st2);
    CHECK(memcmp(s1.k, s2.k, 32) != 0 && memcmp(st1.k, st2.k, 32) != 0 &&
          memcmp(s1.k, st1.k, 32) != 0 && memcmp(s1.k, k1.k, 32) != 0);

    /* the MAC itself, against Python's hmac on the same bytes (label, its NUL,
     * then the data): hmac.new(b"Jefe" + bytes(28), b"\0what do ya want for
     * nothing?", "sha256") */
    ht_key jefe;
    memset(jefe.k, 0, sizeof jefe.k);
    memcpy(jefe.k, "Jefe", 4);
    uint8_t out[32];
    ht_auth_mac(&jefe, "", (const uint8_t *)"what do ya want for nothing?", 28, NULL, 0, out);
    static const uint8_t want[32] = {0x68, 0x82, 0xec, 0x3e, 0x66, 0x24, 0x82, 0x27,
                                     0xae, 0xdb, 0xf4, 0xc2, 0xf5, 0x67, 0xb5, 0x63,
                                     0xb5, 0x66, 0x8a, 0x12, 0xdc, 0x6c, 0x55, 0x60,
                                     0x33, 0x3e, 0x28, 0xbf, 0xa7, 0x2d, 0x36, 0x72};
    CHECK(memcmp(out, want, 32) == 0);

    /* key files */
    char dir[] = "/tmp/heaptop-test-auth-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], link[256], err[512];
    snprintf(path, sizeof path, "%s/k", dir);
    snprintf(link, sizeof link, "%s/l", dir);
    ht_key made, read;
    CHECK(ht_key_create(path, &made, err, sizeof err) == 0);
    struct stat stt;
    CHECK(stat(path, &stt) == 0 && (stt.st_mode & 0777) == 0600);
    CHECK(ht_key_load(path, geteuid(), &read, err, sizeof err) == 0 &&
          memcmp(made.k, read.k, 32) == 0);
    CHECK(ht_key_load(path, geteuid() + 1, &read, err, sizeof err) != 0 &&
          strstr(err, "belongs to uid"));
    chmod(path, 0640);
    CHECK(ht_key_load(path, geteuid(), &read, err, sizeof err) != 0 && strstr(err, "mode 0640"));
    chmod(path, 0600);
    CHECK(symlink(path, link) == 0);
    CHECK(ht_key_load(link, geteuid(), &read, err, sizeof err) != 0 &&
          strstr(err, "symbolic link"));
    write_file(path, "not a key\n", 0600);
    CHECK(ht_key_load(path, geteuid(), &read, err, sizeof err) != 0 && strstr(err, "hex digits"));
    write_file(path, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 0600);
    CHECK(ht_key_load(path, geteuid(), &read, err, sizeof err) == 0 && read.k[1] == 0x11 &&
          read.k[31] == 0xff);
    CHECK(ht_key_load(dir, geteuid(), &read, err, sizeof err) != 0);
    unlink(link);
    unlink(path);
    rmdir(dir);
    ht_buf_free(&sealed);
    ht_buf_free(&plain);
    return check_summary();
}
