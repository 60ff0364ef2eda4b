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
 * What counts as a change: pixels that differ, unless all that differs is
 * caret-like, a line at most SETTLE_CARET_THICKNESS pixels thick and at most
 * SETTLE_SMALL_AREA pixels in all. DAMAGE says where a client drew, not
 * what changed: GTK 3 repaints a whole window (24,000 pixels for a 400x60
 * one) each time an entry's caret blinks. So a damaged rectangle is read
 * back and compared with what it held when last read: a blinking caret
 * then keeps no screen unsettled, while a typed character or a checkbox's
 * tick is a change. Rectangles are remembered (the last SETTLE_KNOWN_MAX,
 * for the life of the connection, refreshed when damaged between two
 * waits), so in a long-lived process (botdesk mcp, act) a caret is known
 * from its first blink on; a rectangle never read before counts as
 * DAMAGE reports it (a change when larger than SETTLE_SMALL_AREA), so a
 * one-shot wait may see a caret's first blink as a change. Rectangles
 * larger than SETTLE_READ_MAX_AREA are not read: a change. The panel clock
 * shows minutes: it changes once a minute, which ends no quiet time for
 * long. Reading back is bounded: the rectangles damaged since the last
 * read are read together, at most every SETTLE_READ_MS; a change counts
 * from when its damage arrived, not from when it was read.
 *
 * How long quiet must last once the screen changed: quiet_ms, or, with
 * adaptive bounds (settle_adapt()), a window learnt from this action's own
 * changes: twice the time the screen took to answer, or three times the
 * largest gap between its changes so far, whichever is longer, within
 * [min_ms, max_ms]. A menu drawn in one frame 15 ms after the click is
 * settled 60 ms later; an application that answers slowly, or draws in
 * steps far apart, is waited for longer. Before any change the wait for
 * one is quiet_ms, as without bounds.
 *
 * settle.c with xcb-damage; settle-fallback.c says -EOPNOTSUPP without it.
 */

#define SETTLE_QUIET_MS_DEFAULT 150u
#define SETTLE_CAP_MS_DEFAULT 2000u
#define SETTLE_SMALL_AREA 1600u         /* pixels: 40 x 40 */
#define SETTLE_CARET_THICKNESS 3u      /* pixels */
#define SETTLE_READ_MS 50u              /* damaged rectangles are read back at most this often */
#define SETTLE_PENDING_MAX 8            /* rectangles kept apart before they are merged into one */
#define SETTLE_KNOWN_MAX 16             /* rectangles whose pixels are remembered */
#define SETTLE_READ_MAX_AREA 262144u    /* pixels: larger damage is a change, not read back */

enum settle_state {
        SETTLE_SETTLED,                 /* it changed, then was quiet for quiet ms */
        SETTLE_STILL_CHANGING,          /* it was still changing at the cap */
        SETTLE_NO_CHANGE,               /* nothing changed for quiet ms */
        SETTLE_UNSUPPORTED,             /* no DAMAGE: nothing was waited for */
};

struct settle_rect {
        int x0, y0, x1, y1;             /* [x0, x1) x [y0, y1) */
};

struct settle {
        xcb_connection_t *conn;
        uint32_t damage;
        uint8_t first_event;
        xcb_window_t root;
        uint16_t width, height;
        uint32_t *screen;               /* width x height: the pixels of the known rectangles, NULL: none yet */
        struct settle_rect known[SETTLE_KNOWN_MAX];
        unsigned n_known, next_known;   /* next_known: the one replaced when all are taken */
        struct settle_rect pending[SETTLE_PENDING_MAX];
        unsigned n_pending;             /* damaged rectangles not yet read back */
        unsigned long long next_read;   /* not before this time */
        unsigned long long pending_at[SETTLE_PENDING_MAX]; /* when each pending rectangle was last damaged */
        unsigned long long since;       /* settle_begin()'s time */
        unsigned long long last_change; /* 0: none since then */
        unsigned long long first_change, max_gap; /* of this wait's changes: its first, the largest gap between two */
        unsigned min_ms, max_ms;        /* settle_adapt()'s bounds; min_ms 0: a fixed window */
        unsigned window_ms;             /* the window the last settle_wait() ended on, or 0 */
};

/* Changed pixels spanning w x h that a caret's blink explains. */
static inline bool settle_caret_like(unsigned w, unsigned h) {
        return (w <= SETTLE_CARET_THICKNESS || h <= SETTLE_CARET_THICKNESS) && w * h <= SETTLE_SMALL_AREA;
}

/* Watch root on connection c (not owned). -EOPNOTSUPP without DAMAGE (the server's or the build's). */
int settle_open(struct settle *s, xcb_connection_t *c, xcb_window_t root);
void settle_close(struct settle *s);

/* An event read elsewhere on the connection (input_sync()): counted when it is a change. */
void settle_event(struct settle *s, const xcb_generic_event_t *ev);

/* Learn the window after the last change from the changes themselves, within [min_ms, max_ms] (a max_ms
 * below min_ms is min_ms); min_ms 0 keeps the fixed window. */
void settle_adapt(struct settle *s, unsigned min_ms, unsigned max_ms);

/* Forget the changes so far: what comes after counts (call it before the action). */
void settle_begin(struct settle *s);

/*
 * Wait, as described above, from settle_begin() on. *ret_ms: the time it
 * took from settle_begin(). Other events of the connection are discarded.
 * Returns 0, or -EIO when the connection broke.
 */
int settle_wait(struct settle *s, unsigned quiet_ms, unsigned cap_ms, enum settle_state *ret, unsigned *ret_ms);

/*
 * For a caller that runs a loop of its own on the connection (botdesk
 * wait), handing each event to settle_event(): reads the damage back when
 * it is due, so that s->last_change is up to date. Returns when it wants
 * to be called again (CLOCK_MONOTONIC usec), 0 when nothing is pending.
 */
unsigned long long settle_poll(struct settle *s);

/* For such a caller: count the quiet time and changes from now on, as settle_begin() does, but without taking
 * the connection's queued events (they are the caller's). */
void settle_rearm(struct settle *s);

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
