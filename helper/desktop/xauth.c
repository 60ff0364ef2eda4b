/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/random.h>

#include "util.h"
#include "xauth.h"

/* libXau's family for "any address": see Xauth.h, FamilyWild. */
#define XAUTH_FAMILY_WILD 0xffff

int xauth_cookie_new(uint8_t cookie[XAUTH_COOKIE_SIZE]) {
        ssize_t n = getrandom(cookie, XAUTH_COOKIE_SIZE, 0);

        if (n < 0)
                return negative_errno();
        return n == XAUTH_COOKIE_SIZE ? 0 : -EIO;
}

static size_t put_counted(uint8_t *p, const void *data, size_t size) {
        /* Xauthority fields are a 16-bit big-endian length and the bytes. */
        p[0] = (uint8_t) (size >> 8);
        p[1] = (uint8_t) size;
        memcpy(p + 2, data, size);
        return size + 2;
}

int xauth_write_at(int dirfd, const char *name, unsigned display, const uint8_t cookie[XAUTH_COOKIE_SIZE]) {
        uint8_t buf[128];
        char number[16];
        size_t n = 0;

        snprintf(number, sizeof number, "%u", display);
        buf[n++] = (uint8_t) (XAUTH_FAMILY_WILD >> 8);
        buf[n++] = (uint8_t) XAUTH_FAMILY_WILD;
        n += put_counted(buf + n, "", 0);
        n += put_counted(buf + n, number, strlen(number));
        n += put_counted(buf + n, XAUTH_PROTOCOL, strlen(XAUTH_PROTOCOL));
        n += put_counted(buf + n, cookie, XAUTH_COOKIE_SIZE);
        return write_file_atomic_at(dirfd, name, buf, n, 0600);
}
