/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/inotify.h>

#include "handback.h"
#include "held-input.h"
#include "lease.h"
#include "lease-settled.h"
#include "log.h"
#include "randr.h"
#include "util.h"
#include "x11.h"

static void restore(struct handback *h) {
        struct x11 x;
        int r;

        /* A connection of its own: the helper's main one is drained by its
         * event source, which replies read here would leave stranded. */
        r = x11_connect(&x, h->display, h->cookie);
        if (r < 0) {
                log_warning_errno(r, "Cannot connect to :%u to restore the screen size: %m", h->display);
                return;
        }
        r = randr_restore(x.conn, x.root, h->width, h->height, h->dpi);
        x11_disconnect(&x);
        if (r > 0)
                log_info("Control is back with the agent: screen restored to %ux%u.", h->width, h->height);
        else if (r == -EOPNOTSUPP) {
                if (!h->warned)
                        log_warning("The X server (or this build) has no RandR 1.2: a viewer's resize outlasts the hand-back.");
                h->warned = true;
        } else if (r < 0)
                log_warning_errno(r, "Cannot restore the screen to %ux%u after the hand-back: %m", h->width, h->height);
}

/* A human's epoch: what the agent left held down goes up before any of the human's input passes. */
static void release_held(struct handback *h) {
        struct x11 x;
        int r;

        r = x11_connect(&x, h->display, h->cookie);
        if (r >= 0) {
                r = held_input_release(x.conn, x.root);
                x11_disconnect(&x);
        }
        if (r > 0)
                log_info("A human took control: released %d button(s) and key(s) still held down.", r);
        else if (r < 0 && r != -EOPNOTSUPP)
                log_warning_errno(r, "Cannot release the input still held down for the human taking control: %m");
}

/*
 * The helper's part of epoch l, then the stamp that lets what waits for it
 * go on (lease-settled.h). The human's input waits for the stamp in the RFB
 * relay, so the releases, queued in the server by a round trip before the
 * stamp is written, come before the human's first event whichever process
 * sees the take first. A release that failed is stamped all the same: a
 * human locked out of a desktop whose X connection broke helps nobody.
 * The agent's clipboard waits for its stamp: a selection not emptied is not
 * stamped, so the agent's clipboard is refused rather than the human's read.
 */
static void settle(struct handback *h, const struct lease *l, bool after_human) {
        int r;

        if (l->holder == LEASE_HUMAN)
                release_held(h);
        else if (after_human && h->clipboard) {
                r = clipboard_owner_take_back(h->clipboard);
                if (r < 0) {
                        log_warning_errno(r, "Cannot empty the clipboard after the hand-back (%m); the agent's clipboard "
                                          "stays refused.");
                        return;
                }
        }
        r = lease_settled_write_at(h->runtime_fd, l->epoch);
        if (r < 0)
                log_warning_errno(r, "Cannot record the hand-over of epoch %llu as done: %m", l->epoch);
}

static int on_lease_event(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        struct handback *h = userdata;
        struct lease l;

        if (!(ev->mask & IN_Q_OVERFLOW) && (ev->len == 0 || !streq(ev->name, LEASE_FILE)))
                return 0;
        if (lease_read_at(h->runtime_fd, &l) < 0)
                return 0; /* fails closed as human: nothing handed back, nobody's input passes */
        /* A request changes the file, not the epoch: nothing to do. */
        if (l.epoch == h->epoch)
                return 0;
        /* Any new epoch held by the agent follows a human's control, even
         * when the take and the release came too fast to be seen apart. */
        if (l.holder == LEASE_AGENT)
                restore(h);
        settle(h, &l, true);
        h->epoch = l.epoch;
        return 0;
}

int handback_watch(struct handback *h, sd_event *e, int runtime_fd, unsigned display,
                   const uint8_t cookie[XAUTH_COOKIE_SIZE], unsigned width, unsigned height, unsigned dpi,
                   struct clipboard_owner *clipboard) {
        struct lease l;
        int r;

        *h = (struct handback) { .runtime_fd = runtime_fd, .display = display, .width = width, .height = height,
                                 .dpi = dpi, .clipboard = clipboard };
        memcpy(h->cookie, cookie, XAUTH_COOKIE_SIZE);
        r = lease_read_at(runtime_fd, &l);
        h->epoch = l.epoch;
        /* The epoch in force is this helper's to settle, whatever a
         * predecessor's stamp says: the stamp follows the lease from here. */
        if (r >= 0)
                settle(h, &l, false);
        /* The verified directory itself, not whatever its path names now.
         * Writers replace the lease by rename: IN_MOVED_TO is every change,
         * and lease.lock's opens and closes around it wake nobody. */
        return sd_event_add_inotify_fd(e, &h->source, runtime_fd, IN_MOVED_TO | IN_DELETE | IN_ONLYDIR,
                                       on_lease_event, h);
}

void handback_done(struct handback *h) {
        h->source = sd_event_source_disable_unref(h->source);
        explicit_bzero(h->cookie, sizeof h->cookie);
}
