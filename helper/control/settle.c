/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <xcb/damage.h>

#include "settle.h"
#include "util.h"

int settle_open(struct settle *s, xcb_connection_t *c, xcb_window_t root) {
        const xcb_query_extension_reply_t *ext;
        xcb_damage_query_version_reply_t *v;
        xcb_void_cookie_t ck;
        xcb_generic_error_t *e;

        *s = (struct settle) { .conn = c };
        ext = xcb_get_extension_data(c, &xcb_damage_id);
        if (!ext || !ext->present)
                return -EOPNOTSUPP;
        v = xcb_damage_query_version_reply(c, xcb_damage_query_version(c, 1, 1), NULL);
        if (!v)
                return -EOPNOTSUPP;
        free(v);
        s->first_event = ext->first_event;
        s->damage = xcb_generate_id(c);
        /* Raw rectangles: every drawing reported, with its size, and no
         * region to subtract between two waits. */
        ck = xcb_damage_create_checked(c, s->damage, root, XCB_DAMAGE_REPORT_LEVEL_RAW_RECTANGLES);
        e = xcb_request_check(c, ck);
        if (e) {
                free(e);
                s->damage = 0;
                return -EOPNOTSUPP;
        }
        return 0;
}

void settle_close(struct settle *s) {
        if (s->damage)
                xcb_damage_destroy(s->conn, s->damage);
        s->damage = 0;
}

void settle_event(struct settle *s, const xcb_generic_event_t *ev) {
        const xcb_damage_notify_event_t *d = (const xcb_damage_notify_event_t *) ev;

        if (!s->damage || (ev->response_type & 0x7f) != s->first_event + XCB_DAMAGE_NOTIFY)
                return;
        /* A caret's blink or the clock's digits: below the threshold (settle.h). */
        if ((unsigned) d->area.width * d->area.height > SETTLE_SMALL_AREA)
                s->last_change = now_usec();
}

/* Take the events queued so far. */
static void drain(struct settle *s) {
        xcb_generic_event_t *ev;

        while ((ev = xcb_poll_for_event(s->conn))) {
                settle_event(s, ev);
                free(ev);
        }
}

void settle_begin(struct settle *s) {
        /* What the server drew before the action is not the action's. */
        xcb_flush(s->conn);
        drain(s);
        s->since = now_usec();
        s->last_change = 0;
}

int settle_wait(struct settle *s, unsigned quiet_ms, unsigned cap_ms, enum settle_state *ret, unsigned *ret_ms) {
        unsigned long long cap = s->since + (unsigned long long) cap_ms * 1000ull;

        xcb_flush(s->conn);
        for (;;) {
                unsigned long long now, quiet_end, until;
                struct pollfd p = { .fd = xcb_get_file_descriptor(s->conn), .events = POLLIN };
                int r;

                drain(s);
                if (xcb_connection_has_error(s->conn))
                        return -EIO;
                now = now_usec();
                quiet_end = (s->last_change ?: s->since) + (unsigned long long) quiet_ms * 1000ull;
                if (now >= quiet_end) {
                        *ret = s->last_change ? SETTLE_SETTLED : SETTLE_NO_CHANGE;
                        break;
                }
                if (now >= cap) {
                        *ret = SETTLE_STILL_CHANGING;
                        break;
                }
                until = quiet_end < cap ? quiet_end : cap;
                /* Woken by the next event or by the end of the quiet time, whichever comes first. */
                r = poll(&p, 1, (int) ((until - now + 999) / 1000));
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                if (r > 0 && (p.revents & (POLLERR | POLLHUP)))
                        return -EIO;
        }
        *ret_ms = (unsigned) ((now_usec() - s->since) / 1000);
        return 0;
}
