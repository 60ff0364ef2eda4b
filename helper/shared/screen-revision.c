/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <xxhash.h>

#include "screen-revision.h"

uint64_t screen_hash64(const void *data, size_t size, uint64_t seed) {
        return XXH64(data, size, seed);
}

uint64_t screen_hash_begin(unsigned width, unsigned height, unsigned bytes_per_pixel) {
        const uint32_t shape[3] = { htole32(width), htole32(height), htole32(bytes_per_pixel) };

        return screen_hash64(shape, sizeof shape, 0);
}

void screen_run_id(const char *token, pid_t pid, unsigned long long starttime, char ret[static SCREEN_RUN_ID_LEN + 1]) {
        char who[64];
        uint64_t h;

        if (token && *token)
                h = screen_hash64(token, strlen(token), 0);
        else {
                int n = snprintf(who, sizeof who, "%d:%llu", (int) pid, starttime);
                h = screen_hash64(who, n > 0 ? (size_t) n : 0, 0);
        }
        /* 48 bits: runs of one user's desktops never meet by chance. */
        snprintf(ret, SCREEN_RUN_ID_LEN + 1, "%012llx", (unsigned long long) (h >> 16));
}

void screen_revision_format(const char *run_id, uint64_t hash, char ret[static SCREEN_REVISION_LEN + 1]) {
        snprintf(ret, SCREEN_REVISION_LEN + 1, "%.*s.%016llx", SCREEN_RUN_ID_LEN, run_id, (unsigned long long) hash);
}

static bool lower_hex(const char *s, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return true;
}

int screen_revision_parse(const char *s, char ret_run_id[static SCREEN_RUN_ID_LEN + 1], uint64_t *ret_hash) {
        uint64_t h = 0;

        if (!s || strlen(s) != SCREEN_REVISION_LEN || s[SCREEN_RUN_ID_LEN] != '.' || !lower_hex(s, SCREEN_RUN_ID_LEN) ||
            !lower_hex(s + SCREEN_RUN_ID_LEN + 1, SCREEN_HASH_LEN))
                return -EINVAL;
        /* Digits checked above: no strtoull and its signs, spaces and overflow to judge. */
        for (const char *p = s + SCREEN_RUN_ID_LEN + 1; *p; p++)
                h = h << 4 | (uint64_t) (*p <= '9' ? *p - '0' : *p - 'a' + 10);
        memcpy(ret_run_id, s, SCREEN_RUN_ID_LEN);
        ret_run_id[SCREEN_RUN_ID_LEN] = 0;
        *ret_hash = h;
        return 0;
}
