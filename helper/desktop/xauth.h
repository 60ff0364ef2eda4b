/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

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
