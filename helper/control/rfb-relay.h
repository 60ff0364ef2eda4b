/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "lease.h"
#include "rfb-filter.h"

/*
 * One viewer's lease-gated RFB relay to a desktop, whatever carries the
 * bytes: `botdesk rfb` on stdin/stdout, `botdesk web` in WebSocket frames.
 * The relay holds what both fronts decide alike: which client messages are
 * input (rfb-filter.h), the gate that lets this viewer's input through only
 * while it holds the control lease, and the desktop's activity stamp, at
 * most once a minute. The front does the I/O: it feeds the viewer's bytes
 * in, says when the server sent some, and hands over every lease it reads
 * (after draining the lease changes queued before those bytes were read).
 *
 * The relay also holds the connection's way to the server (to_server, over
 * the front's storage) and the back-pressure rule of both fronts, so that
 * neither side can make the other's buffer grow: the viewer is read only
 * while the bytes for the server leave room for what a read of it may
 * become (the filter adds at most what it held back), and the server only
 * while the front's buffer toward the viewer has room for a read worth
 * making. A side not read is the whole of the flow control: the kernel's
 * socket buffers then fill, and the peer waits (Xvnc skips frames for a
 * viewer that does not read).
 */

/* RFB traffic is a use of the desktop, but one stamp a minute is enough for
 * an idle timer counted in minutes. */
#define RFB_RELAY_ACTIVITY_INTERVAL_USEC (60ULL * 1000000ULL)

/* What a lease means for this viewer. */
enum rfb_relay_control {
        RFB_RELAY_WATCH,        /* the agent holds control: the screen is shown, input dropped */
        RFB_RELAY_CONTROL,      /* this viewer holds control: its input passes */
        RFB_RELAY_SETTLING,     /* this viewer holds control, but the helper has not released the agent's
                                 * held input yet (lease-settled.h): input waits (`botdesk rfb` reads none
                                 * meanwhile) or is dropped; the stamp's write is a lease change */
        RFB_RELAY_TAKEN,        /* a human other than this viewer took control (a readable lease) */
        RFB_RELAY_FAIL_CLOSED,  /* the lease cannot be trusted (lease.h): nobody's input passes */
};

struct rfb_relay {
        struct rfb_filter filter;
        const char *profile;            /* for logs; outlives the relay */
        const char *viewer;             /* NULL: a viewer without an id, never in control */
        int dirfd;                      /* the desktop's runtime dir, for its activity stamp */
        unsigned long long last_activity;       /* CLOCK_MONOTONIC usec of the last stamp, 0: none */
        struct buffer to_server;        /* the viewer's filtered bytes the server has not taken yet */
        size_t read_max;                /* the front's largest read of the viewer */
};

/* Input dropped until the first rfb_relay_lease() says otherwise. */
void rfb_relay_init(struct rfb_relay *r, const char *profile, const char *viewer, int dirfd, uint32_t max_cut_text);

/*
 * After rfb_relay_init(): the buffer toward the server, over the front's
 * storage (size bytes, more than RFB_FILTER_HOLD_MAX), and the front's
 * largest read of the viewer (its pending bytes are moved to the front of
 * the storage only when less than that is left at the end).
 */
void rfb_relay_set_buffer(struct rfb_relay *r, uint8_t *storage, size_t size, size_t read_max);

/* How many of the viewer's bytes may be taken now: 0 while those for the server fill their buffer. */
size_t rfb_relay_viewer_room(struct rfb_relay *r);

/* Whether the viewer may be read at all now (rfb_relay_viewer_room() above 0, without moving a byte). */
static inline bool rfb_relay_viewer_readable(const struct rfb_relay *r) {
        return buffer_room(&r->to_server) > RFB_FILTER_HOLD_MAX;
}

/*
 * Whether the server may be read now: the front's buffer toward the viewer
 * has room (room_to_viewer) for at least read_min bytes of it, a read worth
 * its system call (and whatever the front adds around it, a frame's header).
 */
static inline bool rfb_relay_server_readable(size_t room_to_viewer, size_t read_min) {
        return room_to_viewer >= read_min && room_to_viewer > 0;
}

/* n of the viewer's bytes (at most rfb_relay_viewer_room()) through the relay into the server's buffer; as
 * rfb_relay_from_viewer(). */
int rfb_relay_feed(struct rfb_relay *r, const void *in, size_t n);

/* Send the server what waits for it, without blocking: as buffer_send(). */
static inline ssize_t rfb_relay_flush_server(struct rfb_relay *r, int fd) {
        return buffer_send(fd, &r->to_server);
}

/* Bytes waiting for the server. */
static inline size_t rfb_relay_server_pending(const struct rfb_relay *r) {
        return buffer_len(&r->to_server);
}

/* The lease in force now: input passes from the next byte fed on exactly when this viewer holds it. */
enum rfb_relay_control rfb_relay_lease(struct rfb_relay *r, const struct lease *l);

/*
 * The viewer's bytes, as rfb_filter_feed(): what goes on to the server is
 * written to out (RFB_FILTER_OUT_SIZE(n) bytes of room), its count to
 * *ret_out. A chunk taken stamps the desktop's activity. -EBADMSG when the
 * viewer broke the protocol (rfb_relay_error() says how): the stream ends.
 */
int rfb_relay_from_viewer(struct rfb_relay *r, const void *in, size_t n, void *out, size_t out_size,
                          size_t *ret_out);

/* Why the viewer's stream was refused, or NULL while it is fine. */
const char *rfb_relay_error(const struct rfb_relay *r);

/* The desktop was used (the server sent bytes, the stream opened): stamp its activity if a minute has passed. */
void rfb_relay_stamp(struct rfb_relay *r);
/* As rfb_relay_stamp() at monotonic time now; whether it stamped (exposed for tests). */
bool rfb_relay_stamp_at(struct rfb_relay *r, unsigned long long now);
