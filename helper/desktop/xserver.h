/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "config.h"

/*
 * TigerVNC's X server: which binary, and its command line. Xtigervnc is
 * preferred (Debian's name), then Xvnc; a binary that is not TigerVNC's
 * (no "rfbunixpath" parameter) is refused, because only TigerVNC serves RFB
 * on a Unix socket.
 */

/* Absolute path of a usable server, -ENOENT when none, -EPROTONOSUPPORT when
 * the only candidate is not TigerVNC's (ret_rejected names it). */
int xserver_find(const char *path_override, char **ret, char **ret_rejected);

/* Does this binary carry TigerVNC's -rfbunixpath parameter? */
int xserver_is_tigervnc(const char *path);

/* The full argv (NULL-terminated, malloc'd) for display n. */
int xserver_argv(const char *binary, const struct bd_config *c, unsigned n, const char *profile,
                 const char *rfb_socket, const char *xauthority, char ***ret);
