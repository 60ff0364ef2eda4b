/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <xcb/xcb.h>

#include "xauth.h"

/*
 * The helper's own X connection: it proves the server accepts our cookie,
 * and it watches the root window for the EWMH window-manager check property
 * (PropertyNotify), which is how we know a window manager manages the screen.
 */

struct x11 {
        xcb_connection_t *conn;
        xcb_window_t root;
        xcb_atom_t wm_check;
};

int x11_connect(struct x11 *x, unsigned display, const uint8_t cookie[XAUTH_COOKIE_SIZE]);
/* A connection to :display with the cookie and nothing selected (NULL when refused); its screen in *ret_screen. */
xcb_connection_t *x11_connect_plain(unsigned display, const uint8_t cookie[XAUTH_COOKIE_SIZE], int *ret_screen);
void x11_disconnect(struct x11 *x);
int x11_fd(const struct x11 *x);

/* 1 when _NET_SUPPORTING_WM_CHECK on the root names a window that names itself. */
int x11_wm_present(struct x11 *x);

/*
 * Drain pending events. Returns 1 when one of them changed the WM check
 * property (the caller then asks x11_wm_present), 0 otherwise, -EPIPE when
 * the connection broke.
 */
int x11_process_events(struct x11 *x);
