/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <xcb/xcb.h>

/*
 * The screen's size through RandR: a viewer may resize the desktop
 * (SetDesktopSize, which Xvnc's -AcceptSetDesktopSize turns into a RandR
 * change); when control returns to the agent the configured size comes back,
 * so that the agent's coordinates mean what they meant before.
 */

/*
 * Give the screen of root width x height: one output (TigerVNC's "VNC-0",
 * else the first connected one) at 0,0 in a mode of that size, created and
 * added to the output when it has none; every other CRTC off; the screen
 * size to match, its physical size from dpi. Returns 0 when the screen had
 * that size already, 1 when it was changed, -EOPNOTSUPP when the server has
 * no RandR 1.2 (or botdesk was built without xcb-randr), -EIO when the
 * server refused a request, -EEXIST when no free name for a new mode was
 * found.
 */
int randr_restore(xcb_connection_t *c, xcb_window_t root, unsigned width, unsigned height, unsigned dpi);
