/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A build without xcb-xtest sends the agent no input, so nothing of it is held. */
#include <errno.h>

#include "held-input.h"

int held_input_release(xcb_connection_t *c, xcb_window_t root) {
        return -EOPNOTSUPP;
}
