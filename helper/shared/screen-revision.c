/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "screen-revision.h"

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t rotl(uint64_t x, unsigned r) {
        return (x << r) | (x >> (64 - r));
}

/* Loads through memcpy: rows of a 16 bpp screen start at any address. */
static inline uint64_t read64(const uint8_t *p) {
        uint64_t v;

        memcpy(&v, p, sizeof v);
        return le64toh(v);
}

static inline uint32_t read32(const uint8_t *p) {
        uint32_t v;

        memcpy(&v, p, sizeof v);
        return le32toh(v);
}

static inline uint64_t round64(uint64_t acc, uint64_t input) {
        return rotl(acc + input * P2, 31) * P1;
}

static inline uint64_t merge64(uint64_t acc, uint64_t v) {
        return (acc ^ round64(0, v)) * P1 + P4;
}

uint64_t screen_hash64(const void *data, size_t size, uint64_t seed) {
        const uint8_t *p = data, *end = p + size;
        uint64_t h;

        if (size >= 32) {
                uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;

                for (; end - p >= 32; p += 32) {
                        v1 = round64(v1, read64(p));
                        v2 = round64(v2, read64(p + 8));
                        v3 = round64(v3, read64(p + 16));
                        v4 = round64(v4, read64(p + 24));
                }
                h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
                h = merge64(h, v1);
                h = merge64(h, v2);
                h = merge64(h, v3);
                h = merge64(h, v4);
        } else
                h = seed + P5;
        h += size;
        for (; end - p >= 8; p += 8)
                h = rotl(h ^ round64(0, read64(p)), 27) * P1 + P4;
        if (end - p >= 4) {
                h = rotl(h ^ (uint64_t) read32(p) * P1, 23) * P2 + P3;
                p += 4;
        }
        for (; p < end; p++)
                h = rotl(h ^ *p * P5, 11) * P1;
        h ^= h >> 33;
        h *= P2;
        h ^= h >> 29;
        h *= P3;
        h ^= h >> 32;
        return h;
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
