/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/hmac.h>

#include "journal-redact.h"
#include "util.h"

/* The key file as it must be: ours, regular, 0600, exactly the key's size. */
static int key_read(int state_fd, struct journal_redact *ret) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        ssize_t n;

        fd = open_regular_at(state_fd, JOURNAL_KEY_FILE, O_RDONLY, 0, &st);
        if (fd == -EISDIR || fd == -EBADFD || fd == -ELOOP)
                return -EPERM;
        if (fd < 0)
                return fd;
        if (st.st_uid != getuid() || (st.st_mode & 07777) != 0600 || st.st_size != JOURNAL_KEY_SIZE)
                return -EPERM;
        n = read(fd, ret->key, JOURNAL_KEY_SIZE);
        if (n != JOURNAL_KEY_SIZE)
                return n < 0 ? negative_errno() : -EPERM;
        ret->have_key = true;
        return 0;
}

/* A new key under a temporary name, linked into place: a link never
 * replaces, so of two writers creating it at once both end with the first's. */
static int key_create(int state_fd) {
        uint8_t key[JOURNAL_KEY_SIZE];
        char tmp[64];
        uint64_t rnd;
        int fd, r;

        if (getrandom(key, sizeof key, 0) != (ssize_t) sizeof key || getrandom(&rnd, sizeof rnd, 0) != sizeof rnd)
                return -EIO;
        snprintf(tmp, sizeof tmp, ".#" JOURNAL_KEY_FILE ".%016llx", (unsigned long long) rnd);
        fd = openat(state_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return negative_errno();
        r = write_all(fd, key, sizeof key);
        explicit_bzero(key, sizeof key);
        if (r >= 0 && fchmod(fd, 0600) < 0)
                r = negative_errno();
        if (close(fd) < 0 && r >= 0)
                r = negative_errno();
        if (r >= 0 && linkat(state_fd, tmp, state_fd, JOURNAL_KEY_FILE, 0) < 0 && errno != EEXIST)
                r = negative_errno();
        (void) unlinkat(state_fd, tmp, 0);
        return r;
}

int journal_redact_load(int state_fd, struct journal_redact *ret) {
        int r;

        *ret = (struct journal_redact) {};
        r = key_read(state_fd, ret);
        if (r != -ENOENT)
                return r;
        r = key_create(state_fd);
        if (r < 0)
                return r;
        return key_read(state_fd, ret);
}

void journal_redact_done(struct journal_redact *r) {
        explicit_bzero(r, sizeof *r);
}

/* The digest of ctx, cut to its first JOURNAL_HMAC_HEX hex digits; ctx forgotten. */
static void digest_hex(struct hmac_sha256_ctx *ctx, char *hex) {
        uint8_t d[SHA256_DIGEST_SIZE];

        hmac_sha256_digest(ctx, sizeof d, d);
        explicit_bzero(ctx, sizeof *ctx);
        hex_encode(d, JOURNAL_HMAC_HEX / 2, hex);
}

void journal_redact_hmac(const struct journal_redact *r, const void *data, size_t size, char *hex) {
        struct hmac_sha256_ctx ctx;

        hmac_sha256_set_key(&ctx, JOURNAL_KEY_SIZE, r->key);
        hmac_sha256_update(&ctx, size, data);
        digest_hex(&ctx, hex);
}

void journal_text_fields(struct json *j, const char *key, const char *text, const struct journal_redact *redact) {
        char k[64], h[JOURNAL_HMAC_HEX + 1];

        if (!redact) {
                json_kv_string(j, key, text);
                return;
        }
        snprintf(k, sizeof k, "%s_length", key);
        json_kv_int(j, k, (long long) strlen(text));
        if (!redact->have_key)
                return;
        journal_redact_hmac(redact, text, strlen(text), h);
        snprintf(k, sizeof k, "%s_hmac", key);
        json_kv_string(j, k, h);
}

void journal_argv_fields(struct json *j, char *const *argv, const struct journal_redact *redact) {
        struct hmac_sha256_ctx ctx;
        char h[JOURNAL_HMAC_HEX + 1];
        size_t n = 0;

        if (!redact) {
                json_key(j, "argv");
                json_array_begin(j);
                for (size_t i = 0; argv[i]; i++)
                        json_string(j, argv[i]);
                json_array_end(j);
                return;
        }
        while (argv[n])
                n++;
        json_kv_string(j, "argv0", argv[0]);
        json_kv_int(j, "argc", (long long) n);
        if (!redact->have_key)
                return;
        hmac_sha256_set_key(&ctx, JOURNAL_KEY_SIZE, redact->key);
        for (size_t i = 1; i < n; i++)
                hmac_sha256_update(&ctx, strlen(argv[i]) + 1, (const uint8_t *) argv[i]);
        digest_hex(&ctx, h);
        json_kv_string(j, "argv_hmac", h);
}
