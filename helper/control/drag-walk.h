/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The one walk of a drag, whether its events go to an X server (input.h's
 * input_drag()) or to a VNC server (remote-screen.h): press at path[0],
 * steps motions between each two points, release at the last. pace (may
 * be NULL) comes after the press, after the first motion and at each
 * point: a toolkit starts its drag from the press and the first motions it
 * has read, then negotiates with the target while the pointer moves (GTK's
 * drag-and-drop, XDND), so a drag sent in one burst is over before it
 * began. n >= 1.
 */
struct drag_ops {
        void (*move)(void *userdata, unsigned x, unsigned y);
        void (*button)(void *userdata, bool down);
        void (*pace)(void *userdata);
};

void drag_walk(const unsigned (*path)[2], size_t n, unsigned steps, const struct drag_ops *ops, void *userdata);
