/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lease-gated RFB relay (rfb-relay.h): the state `botdesk rfb` and
 * `botdesk web` share, one viewer's filter, gate and activity stamp.
 */
#include "lease-settled.h"
#include "log.h"
#include "profile.h"
#include "rfb-relay.h"
#include "util.h"

void rfb_relay_init(struct rfb_relay *r, const char *profile, const char *viewer, int dirfd, uint32_t max_cut_text) {
        *r = (struct rfb_relay) {
                .profile = profile,
                .viewer = viewer,
                .dirfd = dirfd,
        };
        rfb_filter_init(&r->filter, max_cut_text);
}

enum rfb_relay_control rfb_relay_lease(struct rfb_relay *r, const struct lease *l) {
        bool holds = lease_allows_input(l, r->viewer);
        /* The holder's input waits until the desktop's helper released what
         * the agent held down (lease-settled.h): the helper's releases reach
         * the server's queue before it writes the stamp, so they come before
         * this viewer's first event, whoever saw the take first. A placed
         * desktop's relay has no dir: the far side's `botdesk rfb` waits. */
        bool allow = holds && (r->dirfd < 0 || lease_settled_for(r->dirfd, l->epoch));

        if (allow != r->filter.allow_input)
                log_debug("Input from a viewer of %s is now %s (lease epoch %llu).", r->profile,
                          allow ? "allowed" : "dropped", l->epoch);
        r->filter.allow_input = allow;
        if (allow)
                return RFB_RELAY_CONTROL;
        if (holds)
                return RFB_RELAY_SETTLING;
        if (l->holder != LEASE_HUMAN)
                return RFB_RELAY_WATCH;
        /* A damaged file fails closed as a human without a viewer: no take by anyone. */
        return l->failed ? RFB_RELAY_FAIL_CLOSED : RFB_RELAY_TAKEN;
}

void rfb_relay_set_buffer(struct rfb_relay *r, uint8_t *storage, size_t size, size_t read_max) {
        r->to_server = (struct buffer) { .data = storage, .size = size, .cap = size };
        r->read_max = read_max;
}

size_t rfb_relay_viewer_room(struct rfb_relay *r) {
        /* The filter writes its output in one piece, what it held back first: the room must be contiguous. */
        size_t room = buffer_reserve(&r->to_server, r->read_max + RFB_FILTER_HOLD_MAX);

        return room > RFB_FILTER_HOLD_MAX ? room - RFB_FILTER_HOLD_MAX : 0;
}

int rfb_relay_feed(struct rfb_relay *r, const void *in, size_t n) {
        size_t room = buffer_reserve(&r->to_server, RFB_FILTER_OUT_SIZE(n)), got = 0;
        int k;

        k = rfb_relay_from_viewer(r, in, n, buffer_tail(&r->to_server), room, &got);
        buffer_advance(&r->to_server, got);
        return k;
}

int rfb_relay_from_viewer(struct rfb_relay *r, const void *in, size_t n, void *out, size_t out_size,
                          size_t *ret_out) {
        int k = rfb_filter_feed(&r->filter, in, n, out, out_size, ret_out);

        if (k >= 0)
                rfb_relay_stamp(r);
        return k;
}

const char *rfb_relay_error(const struct rfb_relay *r) {
        return rfb_filter_error(&r->filter);
}

bool rfb_relay_stamp_at(struct rfb_relay *r, unsigned long long now) {
        if (r->last_activity && now - r->last_activity < RFB_RELAY_ACTIVITY_INTERVAL_USEC)
                return false;
        r->last_activity = now;
        activity_stamp(r->dirfd);
        return true;
}

void rfb_relay_stamp(struct rfb_relay *r) {
        (void) rfb_relay_stamp_at(r, now_usec());
}
