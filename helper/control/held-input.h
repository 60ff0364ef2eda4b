/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <xcb/xcb.h>

/*
 * Input still held down on a server, let go: what the desktop's helper does
 * when a human takes control (lease-settled.h), so that an agent's
 * left_mouse_down without its up, or a key it held, does not turn the
 * human's moves into drags and their keys into shortcuts.
 *
 * The core protocol tells which of buttons 1-5 (QueryPointer's mask) and
 * which keys (QueryKeymap) are down; each is released through XTEST (and
 * every button beyond 5 blindly: the server drops a release of a button
 * that is not down), the
 * device every agent input comes from, and a round trip makes sure the
 * server has queued the releases before this returns: input that the
 * server reads afterwards (a viewer's, through Xvnc) comes after them.
 * The number released, -EOPNOTSUPP without XTEST (held-input-fallback.c
 * in a build without xcb-xtest), -EIO.
 */
int held_input_release(xcb_connection_t *c, xcb_window_t root);
