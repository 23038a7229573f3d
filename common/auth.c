/* auth.c - see auth.h. */
#include "auth.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(crypto_auth_hmacsha256_BYTES == 32, "HMAC-SHA-256 gives 32 bytes");
_Static_assert(crypto_secretbox_KEYBYTES == HT_KEY_BYTES, "a sealing key is a key");
_Static_assert(crypto_secretbox_NONCEBYTES == 24 && crypto_secretbox_MACBYTES == 16,
               "HT_SEAL_OVERHEAD");

int ht_auth_init(void)
{
    return sodium_init() < 0 ? -1 : 0; /* 1: already done */
}

void ht_auth_random(void *out, size_t n)
{
    randombytes_buf(out, n);
}

int ht_key_load(const char *path, uid_t uid, ht_key *key, char *err, size_t errn)
{
    if (errn) err[0] = '\0';
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errn, "cannot open the key file %s: %s", path,
                 errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        return -1;
    }
    struct stat st;
    char text[80];
    ssize_t n = -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errn, "the key file %s is not a regular file", path);
    } else if (st.st_uid != uid) {
        snprintf(err, errn, "the key file %s belongs to uid %u, not to uid %u", path,
                 (unsigned)st.st_uid, (unsigned)uid);
    } else if (st.st_mode & 0077) {
        snprintf(err, errn, "the key file %s has mode %04o: others may read it (chmod 600 %s)",
                 path, (unsigned)(st.st_mode & 07777), path);
    } else {
        n = read(fd, text, sizeof text - 1);
    }
    close(fd);
    if (n < 0) {
        if (errn && !err[0]) snprintf(err, errn, "cannot read the key file %s", path);
        return -1;
    }
    text[n] = '\0';
    size_t len = (size_t)n;
    if (len && text[len - 1] == '\n') text[--len] = '\0';
    size_t bin = 0;
    if (len != 2 * HT_KEY_BYTES ||
        sodium_hex2bin(key->k, sizeof key->k, text, len, NULL, &bin, NULL) != 0 ||
        bin != HT_KEY_BYTES) {
        snprintf(err, errn, "the key file %s does not hold a heaptop key (%d hex digits)", path,
                 2 * HT_KEY_BYTES);
        sodium_memzero(text, sizeof text);
        return -1;
    }
    sodium_memzero(text, sizeof text);
    return 0;
}

int ht_key_create(const char *path, ht_key *key, char *err, size_t errn)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
            snprintf(err, errn, "cannot write the key file %s: something not ours is there", path);
            return -1;
        }
        unlink(path);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errn, "cannot create the key file %s: %s", path, strerror(errno));
        return -1;
    }
    randombytes_buf(key->k, sizeof key->k);
    char text[2 * HT_KEY_BYTES + 2];
    sodium_bin2hex(text, sizeof text, key->k, sizeof key->k);
    size_t len = strlen(text);
    text[len++] = '\n';
    int ok = write(fd, text, len) == (ssize_t)len && fchmod(fd, 0600) == 0;
    sodium_memzero(text, sizeof text);
    if (close(fd) != 0) ok = 0;
    if (!ok) {
        snprintf(err, errn, "cannot write the key file %s: %s", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}

void ht_auth_mac(const ht_key *key, const char *label, const uint8_t *a, size_t an,
                 const uint8_t *b, size_t bn, uint8_t out[32])
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, key->k, sizeof key->k);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)label, strlen(label) + 1);
    crypto_auth_hmacsha256_update(&st, a, an);
    if (b) crypto_auth_hmacsha256_update(&st, b, bn);
    crypto_auth_hmacsha256_final(&st, out);
    sodium_memzero(&st, sizeof st);
}

void ht_auth_proof(const ht_key *key, const char *role, const uint8_t cn[HT_NONCE_BYTES],
                   const uint8_t sn[HT_NONCE_BYTES], uint8_t out[HT_PROOF_BYTES])
{
    char label[32];
    snprintf(label, sizeof label, "heaptop %s", role);
    ht_auth_mac(key, label, cn, HT_NONCE_BYTES, sn, HT_NONCE_BYTES, out);
}

void ht_auth_session_key(const ht_key *key, const uint8_t cn[HT_NONCE_BYTES],
                         const uint8_t sn[HT_NONCE_BYTES], ht_key *out)
{
    ht_auth_mac(key, "heaptop session", cn, HT_NONCE_BYTES, sn, HT_NONCE_BYTES, out->k);
}

void ht_auth_stream_key(const ht_key *key, const uint8_t salt[HT_NONCE_BYTES], ht_key *out)
{
    ht_auth_mac(key, "heaptop stream", salt, HT_NONCE_BYTES, NULL, 0, out->k);
}

int ht_auth_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    return sodium_memcmp(a, b, n) == 0;
}

int ht_is_sealed(const void *data, size_t len)
{
    const uint8_t *p = data;
    return len >= HT_SEAL_OVERHEAD && (p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                       (uint32_t)p[3] << 24) == HT_SEAL_MAGIC;
}

int ht_seal(const ht_key *key, const void *data, size_t len, ht_buf *out)
{
    if (len > SIZE_MAX - HT_SEAL_OVERHEAD || ht_buf_reserve(out, len + HT_SEAL_OVERHEAD) != 0)
        return -1;
    uint8_t *p = out->data + out->len;
    p[0] = 'H', p[1] = 'T', p[2] = 'S', p[3] = 'B';
    randombytes_buf(p + 4, 24);
    crypto_secretbox_easy(p + 28, data, len, p + 4, key->k);
    out->len += len + HT_SEAL_OVERHEAD;
    return 0;
}

int ht_unseal(const ht_key *key, const void *data, size_t len, ht_buf *out)
{
    if (!ht_is_sealed(data, len)) return -1;
    const uint8_t *p = data;
    size_t plain = len - HT_SEAL_OVERHEAD;
    if (ht_buf_reserve(out, plain + 1) != 0) return -1;
    if (crypto_secretbox_open_easy(out->data + out->len, p + 28, len - 28, p + 4, key->k) != 0)
        return -1;
    out->len += plain;
    return 0;
}
