/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <xcb/xcb.h>

#include "xauth.h"

/*
 * A new cookie on a running X server, through the SECURITY extension's
 * GenerateAuthorization (X11R6.4 Security Extension, section 2): the one
 * protocol way to add an MIT-MAGIC-COOKIE-1 after the server has read its
 * -auth file. The cookie is trusted (what a client that read an
 * Xauthority file gets) and never times out, so it is good for the
 * desktop's whole life. libxcb has no binding for the extension; the
 * request is built here, in the extension's own encoding.
 */

/* A new trusted cookie, made by the server from its own random bytes, into
 * ret_cookie: 0, -EOPNOTSUPP without the extension, -EPROTO when the
 * server refused, -EPIPE when the connection broke. *ret_id (may be NULL)
 * gets the authorization's id. */
int xsecurity_new_cookie(xcb_connection_t *conn, uint8_t ret_cookie[XAUTH_COOKIE_SIZE], uint32_t *ret_id);
