/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <xcb/xcb.h>

/*
 * Settle, not sleep: after an agent's action, wait until the screen has
 * been quiet for `quiet` ms, or until a cap, on the X server's DAMAGE
 * events for the root window (xcb-damage), never by polling the picture
 * nor by sleeping a fixed time.
 *
 * What counts as a change: a damaged rectangle larger than
 * SETTLE_SMALL_AREA pixels. A blinking caret (a line 1-2 pixels wide) and
 * the panel clock's digits repaint areas below it, so they neither keep a
 * screen unsettled nor make an unchanged screen "settled"; a menu, a page,
 * a dialog or a spinner repaints far more. The price: a change that small
 * alone (a checkbox's tick) reads as no_change.
 *
 * settle.c with xcb-damage; settle-fallback.c says -EOPNOTSUPP without it.
 */

#define SETTLE_QUIET_MS_DEFAULT 150u
#define SETTLE_CAP_MS_DEFAULT 2000u
#define SETTLE_SMALL_AREA 1600u         /* pixels: 40 x 40 */

enum settle_state {
        SETTLE_SETTLED,                 /* it changed, then was quiet for quiet ms */
        SETTLE_STILL_CHANGING,          /* it was still changing at the cap */
        SETTLE_NO_CHANGE,               /* nothing changed for quiet ms */
        SETTLE_UNSUPPORTED,             /* no DAMAGE: nothing was waited for */
};

struct settle {
        xcb_connection_t *conn;
        uint32_t damage;
        uint8_t first_event;
        unsigned long long since;       /* settle_begin()'s time */
        unsigned long long last_change; /* 0: none since then */
};

/* Watch root on connection c (not owned). -EOPNOTSUPP without DAMAGE (the server's or the build's). */
int settle_open(struct settle *s, xcb_connection_t *c, xcb_window_t root);
void settle_close(struct settle *s);

/* An event read elsewhere on the connection (input_sync()): counted when it is a change. */
void settle_event(struct settle *s, const xcb_generic_event_t *ev);

/* Forget the changes so far: what comes after counts (call it before the action). */
void settle_begin(struct settle *s);

/*
 * Wait, as described above, from settle_begin() on. *ret_ms: the time it
 * took from settle_begin(). Other events of the connection are discarded.
 * Returns 0, or -EIO when the connection broke.
 */
int settle_wait(struct settle *s, unsigned quiet_ms, unsigned cap_ms, enum settle_state *ret, unsigned *ret_ms);

static inline const char *settle_state_name(enum settle_state st) {
        switch (st) {
        case SETTLE_SETTLED:
                return "settled";
        case SETTLE_STILL_CHANGING:
                return "still_changing";
        case SETTLE_NO_CHANGE:
                return "no_change";
        case SETTLE_UNSUPPORTED:
                break;
        }
        return "unsupported";
}
