/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <xcb/xcb.h>

/*
 * Connect to display (a DISPLAY value) with the cookie from the Xauthority
 * file at xauthority; the environment is neither read nor changed. The new
 * connection is handed to the caller. -EINVAL (unparsable display), errors
 * of reading the file, -ENOENT (no cookie for this display in it),
 * -ECONNREFUSED (the server refused or is not there).
 */
int x11_connect_with_cookie(const char *display, const char *xauthority, xcb_connection_t **ret, int *ret_screen);
