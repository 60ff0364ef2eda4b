/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <xcb/damage.h>

#include "settle.h"
#include "settle-wake.h"
#include "util.h"

int settle_open(struct settle *s, xcb_connection_t *c, xcb_window_t root) {
        const xcb_query_extension_reply_t *ext;
        xcb_damage_query_version_reply_t *v;
        xcb_get_geometry_reply_t *g;
        xcb_void_cookie_t ck;
        xcb_generic_error_t *e;

        *s = (struct settle) { .conn = c, .root = root };
        ext = xcb_get_extension_data(c, &xcb_damage_id);
        if (!ext || !ext->present)
                return -EOPNOTSUPP;
        v = xcb_damage_query_version_reply(c, xcb_damage_query_version(c, 1, 1), NULL);
        if (!v)
                return -EOPNOTSUPP;
        free(v);
        g = xcb_get_geometry_reply(c, xcb_get_geometry(c, root), NULL);
        if (g) {
                s->width = g->width;
                s->height = g->height;
                free(g);
        }
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
        free(s->screen);
        s->screen = NULL;
}

/* Read r of the screen into pixels (r's width x height, 32 bits each). */
static int read_rect(struct settle *s, const struct settle_rect *r, uint32_t **ret) {
        unsigned w = (unsigned) (r->x1 - r->x0), h = (unsigned) (r->y1 - r->y0);
        xcb_get_image_reply_t *img;
        uint32_t *px;

        img = xcb_get_image_reply(s->conn,
                                  xcb_get_image(s->conn, XCB_IMAGE_FORMAT_Z_PIXMAP, s->root, (int16_t) r->x0,
                                                (int16_t) r->y0, (uint16_t) w, (uint16_t) h, UINT32_MAX),
                                  NULL);
        if (!img)
                return -EIO;
        /* Depth 24 in 32-bit pixels, rows unpadded: what Xvnc serves. Anything else is not compared. */
        if ((size_t) xcb_get_image_data_length(img) != (size_t) w * h * 4) {
                free(img);
                return -EOPNOTSUPP;
        }
        px = malloc((size_t) w * h * 4);
        if (!px) {
                free(img);
                return -ENOMEM;
        }
        memcpy(px, xcb_get_image_data(img), (size_t) w * h * 4);
        free(img);
        *ret = px;
        return 0;
}

/* r clipped to the screen; false when nothing is left. */
static bool clip(const struct settle *s, struct settle_rect *r) {
        r->x0 = MAX(r->x0, 0);
        r->y0 = MAX(r->y0, 0);
        r->x1 = MIN(r->x1, (int) s->width);
        r->y1 = MIN(r->y1, (int) s->height);
        return r->x0 < r->x1 && r->y0 < r->y1;
}

static bool inside(const struct settle_rect *r, const struct settle_rect *in) {
        return r->x0 >= in->x0 && r->y0 >= in->y0 && r->x1 <= in->x1 && r->y1 <= in->y1;
}

static bool overlap(const struct settle_rect *a, const struct settle_rect *b) {
        return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static unsigned long long area(const struct settle_rect *r) {
        return (unsigned long long) (r->x1 - r->x0) * (unsigned) (r->y1 - r->y0);
}

static bool known(const struct settle *s, const struct settle_rect *r) {
        for (unsigned i = 0; i < s->n_known; i++)
                if (inside(r, &s->known[i]))
                        return true;
        return false;
}

/* Its pixels are no longer what the known rectangles it meets hold. */
static void forget(struct settle *s, const struct settle_rect *r) {
        for (unsigned i = 0; i < s->n_known;)
                if (overlap(r, &s->known[i]))
                        s->known[i] = s->known[--s->n_known];
                else
                        i++;
        s->next_known = 0;
}

static void remember(struct settle *s, const struct settle_rect *r) {
        if (s->n_known < SETTLE_KNOWN_MAX)
                s->known[s->n_known++] = *r;
        else {
                s->known[s->next_known] = *r;
                s->next_known = (s->next_known + 1) % SETTLE_KNOWN_MAX;
        }
}

static void pend(struct settle *s, struct settle_rect r) {
        unsigned long long now = now_usec();

        for (unsigned i = 0; i < s->n_pending; i++)
                if (inside(&r, &s->pending[i])) {
                        s->pending_at[i] = now;
                        return;
                }
        if (s->n_pending == SETTLE_PENDING_MAX) {
                /* Too many apart: one rectangle around them all, read as one. */
                struct settle_rect *u = &s->pending[0];

                for (unsigned i = 1; i < s->n_pending; i++) {
                        u->x0 = MIN(u->x0, s->pending[i].x0);
                        u->y0 = MIN(u->y0, s->pending[i].y0);
                        u->x1 = MAX(u->x1, s->pending[i].x1);
                        u->y1 = MAX(u->y1, s->pending[i].y1);
                }
                s->n_pending = 1;
        }
        s->pending_at[s->n_pending] = now;
        s->pending[s->n_pending++] = r;
}

/* A change whose damage arrived at: the last one, and what the window learns from it. */
static void changed_at(struct settle *s, unsigned long long at) {
        if (!s->last_change)
                s->first_change = at;
        else if (at > s->last_change)
                s->max_gap = MAX(s->max_gap, at - s->last_change);
        s->last_change = MAX(s->last_change, at);
}

/*
 * Read one damaged rectangle back into the kept pixels. Returns whether it
 * changed: for a known rectangle, pixels that differ and are not
 * caret-like; for one read the first time, what DAMAGE says (larger than
 * SETTLE_SMALL_AREA).
 */
static bool read_one(struct settle *s, const struct settle_rect *r) {
        unsigned w = (unsigned) (r->x1 - r->x0);
        int cx0 = r->x1, cy0 = r->y1, cx1 = r->x0 - 1, cy1 = r->y0 - 1;
        _cleanup_free_ uint32_t *px = NULL;
        bool was_known;

        if (area(r) > SETTLE_READ_MAX_AREA) {
                forget(s, r);
                return true;
        }
        if (!s->screen) {
                s->screen = malloc((size_t) s->width * s->height * 4);
                if (!s->screen)
                        return area(r) > SETTLE_SMALL_AREA;
        }
        if (read_rect(s, r, &px) < 0) {
                forget(s, r);
                return area(r) > SETTLE_SMALL_AREA;
        }
        was_known = known(s, r);
        for (int y = r->y0; y < r->y1; y++) {
                uint32_t *was = s->screen + (size_t) y * s->width + r->x0;
                const uint32_t *is = px + (size_t) (y - r->y0) * w;

                if (was_known)
                        for (unsigned x = 0; x < w; x++)
                                if ((was[x] ^ is[x]) & 0xffffffu) {
                                        cx0 = MIN(cx0, r->x0 + (int) x);
                                        cx1 = MAX(cx1, r->x0 + (int) x);
                                        cy0 = MIN(cy0, y);
                                        cy1 = y;
                                }
                memcpy(was, is, (size_t) w * 4);
        }
        if (!was_known) {
                remember(s, r);
                return area(r) > SETTLE_SMALL_AREA;
        }
        return cx1 >= cx0 && !settle_caret_like((unsigned) (cx1 - cx0 + 1), (unsigned) (cy1 - cy0 + 1));
}

/* Read the pending rectangles back; count_changes false: only bring the kept pixels up to date. */
static void read_pending(struct settle *s, bool count_changes) {
        unsigned long long now = now_usec();

        for (unsigned i = 0; i < s->n_pending; i++)
                if (read_one(s, &s->pending[i]) && count_changes)
                        changed_at(s, s->pending_at[i]);
        s->n_pending = 0;
        s->next_read = now + SETTLE_READ_MS * 1000ull;
}

void settle_event(struct settle *s, const xcb_generic_event_t *ev) {
        const xcb_damage_notify_event_t *d = (const xcb_damage_notify_event_t *) ev;
        struct settle_rect r;

        if (!s->damage || (ev->response_type & 0x7f) != s->first_event + XCB_DAMAGE_NOTIFY)
                return;
        r = (struct settle_rect) { d->area.x, d->area.y, d->area.x + d->area.width, d->area.y + d->area.height };
        if (!clip(s, &r))
                return;
        pend(s, r);
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
        /* Bring what was drawn since the last wait into the kept pixels, as the base. */
        read_pending(s, false);
        s->next_read = 0;
        s->since = now_usec();
        s->last_change = s->first_change = s->max_gap = 0;
}

void settle_adapt(struct settle *s, unsigned min_ms, unsigned max_ms) {
        s->min_ms = min_ms;
        s->max_ms = MAX(min_ms, max_ms);
}

/* How long the screen must stay quiet from now on (settle.h). */
static unsigned window(const struct settle *s, unsigned quiet_ms) {
        unsigned long long w;

        if (!s->last_change || s->min_ms == 0)
                return quiet_ms;
        w = MAX(2 * (s->first_change - s->since), 3 * s->max_gap) / 1000;
        return (unsigned) MIN(MAX(w, (unsigned long long) s->min_ms), (unsigned long long) s->max_ms);
}

unsigned long long settle_poll(struct settle *s) {
        if (s->n_pending == 0)
                return 0;
        if (now_usec() >= s->next_read)
                read_pending(s, true);
        return s->n_pending > 0 ? s->next_read : 0;
}

void settle_rearm(struct settle *s) {
        s->since = now_usec();
        s->last_change = s->first_change = s->max_gap = 0;
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
                if (s->n_pending > 0 && now >= s->next_read) {
                        read_pending(s, true);
                        now = now_usec();
                }
                s->window_ms = window(s, quiet_ms);
                quiet_end = (s->last_change ?: s->since) + (unsigned long long) s->window_ms * 1000ull;
                /* Damage not yet read back may be a change: the quiet time is not over until it is read. */
                if (now >= quiet_end && s->n_pending == 0) {
                        *ret = s->last_change ? SETTLE_SETTLED : SETTLE_NO_CHANGE;
                        break;
                }
                if (now >= cap) {
                        *ret = SETTLE_STILL_CHANGING;
                        break;
                }
                /* Woken by the next event, the next read back or the end of the quiet time, whichever comes first. */
                until = settle_wake_at(now, quiet_end, cap, s->n_pending > 0, s->next_read);
                r = poll(&p, 1, (int) ((until - now + 999) / 1000));
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                if (r > 0 && (p.revents & (POLLERR | POLLHUP)))
                        return -EIO;
        }
        *ret_ms = (unsigned) ((now_usec() - s->since) / 1000);
        return 0;
}
