/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define XAUTH_COOKIE_SIZE 16
#define XAUTH_PROTOCOL "MIT-MAGIC-COOKIE-1"

/* 16 random bytes from getrandom(). */
int xauth_cookie_new(uint8_t cookie[XAUTH_COOKIE_SIZE]);

/*
 * Write an Xauthority file at dirfd/name (0600, temp + rename) holding one
 * MIT-MAGIC-COOKIE-1 entry for display number `display` with the wildcard
 * address family, so that every local transport (abstract socket, path
 * socket) matches it. The cookie never appears on a command line.
 */
int xauth_write_at(int dirfd, const char *name, unsigned display, const uint8_t cookie[XAUTH_COOKIE_SIZE]);
/* The same cookie for each of displays (one or two: a restored desktop's as
 * its processes know it and as the host does, supervisor/resume.c). */
int xauth_write_displays_at(int dirfd, const char *name, const unsigned *displays, size_t n_displays,
                            const uint8_t cookie[XAUTH_COOKIE_SIZE]);

/*
 * Find the cookie for display number `display` in the bytes of an
 * Xauthority file (as xauth_write_at() writes it: FamilyWild or FamilyLocal
 * entries; an empty display number matches every display, as in libXau).
 * The returned pointers point into data. -ENOENT when no entry matches,
 * -EBADMSG when the file is truncated.
 */
struct xauth_cookie {
        const char *name;
        size_t name_len;
        const uint8_t *data;
        size_t data_len;
};
int xauth_lookup(const uint8_t *data, size_t size, unsigned display, struct xauth_cookie *ret);
