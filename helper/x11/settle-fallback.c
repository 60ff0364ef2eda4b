/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Settle in a build without xcb-damage: nothing to wait on, said as such (settle.h). */
#include <errno.h>

#include "settle.h"

int settle_open(struct settle *s, xcb_connection_t *c, xcb_window_t root) {
        *s = (struct settle) { .conn = c };
        return -EOPNOTSUPP;
}

void settle_close(struct settle *s) {
}

void settle_event(struct settle *s, const xcb_generic_event_t *ev) {
}

void settle_adapt(struct settle *s, unsigned min_ms, unsigned max_ms) {
}

void settle_begin(struct settle *s) {
}

int settle_wait(struct settle *s, unsigned quiet_ms, unsigned cap_ms, enum settle_state *ret, unsigned *ret_ms) {
        *ret = SETTLE_UNSUPPORTED;
        *ret_ms = 0;
        return 0;
}

unsigned long long settle_poll(struct settle *s) {
        return 0;
}

void settle_rearm(struct settle *s) {
}
