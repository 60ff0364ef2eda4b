/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The requestState of a desktop's input-required results (mcp-state.h):
 * PAYLOAD.MAC, the MAC an HMAC-SHA256 (nettle) of the payload under a key
 * of the desktop's own, RUNTIME/mcp-state.key: 32 random bytes made by the
 * first process that needs them and never replaced, so that every `botdesk
 * mcp` of the desktop (a request of botdesk web's runs in one of its own)
 * verifies what another signed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

#include "mcp-state.h"
#include "util.h"

#define KEY_FILE "mcp-state.key"
#define KEY_SIZE 32
#define MAC_HEX (2 * SHA256_DIGEST_SIZE)

static int key_read(int dirfd, uint8_t key[static KEY_SIZE]) {
        _cleanup_close_ int fd = openat(dirfd, KEY_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st;
        ssize_t n;

        if (fd < 0)
                return negative_errno();
        /* Only a key of this user's, closed to everyone else, signs anything. */
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
                return -EPERM;
        n = read_small(fd, (char *) key, KEY_SIZE + 1);
        return n == KEY_SIZE ? 0 : -EBADMSG;
}

/* The key, made when missing: written under a name of its own, then linked into place (never over another). */
static int key_get(int dirfd, uint8_t key[static KEY_SIZE]) {
        char tmp[sizeof KEY_FILE ".XXXXXXXXXXXXXXXX"];
        uint8_t fresh[KEY_SIZE];
        _cleanup_close_ int fd = -EBADF;
        uint64_t rnd;
        int r;

        r = key_read(dirfd, key);
        if (r != -ENOENT)
                return r;
        if (getrandom(fresh, sizeof fresh, 0) != (ssize_t) sizeof fresh || getrandom(&rnd, sizeof rnd, 0) != sizeof rnd)
                return -EIO;
        snprintf(tmp, sizeof tmp, KEY_FILE ".%016llx", (unsigned long long) rnd);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return negative_errno();
        r = write_all(fd, fresh, sizeof fresh);
        explicit_bzero(fresh, sizeof fresh);
        if (r >= 0 && linkat(dirfd, tmp, dirfd, KEY_FILE, 0) < 0 && errno != EEXIST)
                r = negative_errno();
        (void) unlinkat(dirfd, tmp, 0);
        if (r < 0)
                return r;
        /* Ours, or the one another process linked first: the same for all from here on. */
        return key_read(dirfd, key);
}

static void mac_hex(const uint8_t key[static KEY_SIZE], const char *payload, char ret[static MAC_HEX + 1]) {
        struct hmac_sha256_ctx ctx;
        uint8_t d[SHA256_DIGEST_SIZE];

        hmac_sha256_set_key(&ctx, KEY_SIZE, key);
        hmac_sha256_update(&ctx, strlen(payload), (const uint8_t *) payload);
        hmac_sha256_digest(&ctx, sizeof d, d);
        hex_encode(d, sizeof d, ret);
}

int mcp_state_sign(int dirfd, const char *payload, char **ret) {
        uint8_t key[KEY_SIZE];
        char mac[MAC_HEX + 1];
        int r;

        if (!*payload)
                return -EINVAL;
        r = key_get(dirfd, key);
        if (r < 0)
                return r;
        mac_hex(key, payload, mac);
        explicit_bzero(key, sizeof key);
        *ret = strdup_printf("%s.%s", payload, mac);
        return *ret ? 0 : -ENOMEM;
}

int mcp_state_verify(int dirfd, const char *state, char **ret_payload) {
        _cleanup_free_ char *payload = NULL;
        uint8_t key[KEY_SIZE];
        char mac[MAC_HEX + 1];
        const char *dot;
        bool good;

        dot = state ? strrchr(state, '.') : NULL;
        if (!dot || strlen(dot + 1) != MAC_HEX)
                return -EBADMSG;
        payload = strndup(state, (size_t) (dot - state));
        if (!payload)
                return -ENOMEM;
        /* No key yet: nothing was ever signed here, so this was not either. */
        if (key_read(dirfd, key) < 0)
                return -EBADMSG;
        mac_hex(key, payload, mac);
        explicit_bzero(key, sizeof key);
        good = memeql_sec(mac, dot + 1, MAC_HEX);
        if (!good)
                return -EBADMSG;
        *ret_payload = TAKE_PTR(payload);
        return 0;
}
