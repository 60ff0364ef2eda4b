/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "websocket.h"

/*
 * A WebSocket's way out to its client, for both of botdesk web's streams
 * (web-stream.c's RFB, web-devtools.c's DevTools): whole frames queued in
 * a fixed buffer, and the control frames that must go between them (the
 * pong to the latest ping, our ping, our close), joined as room allows.
 * Room for those is always kept behind the data (WEB_OUT_CONTROL_RESERVE):
 * a producer asks web_out_room() and leaves that much.
 */

#define WEB_OUT_SIZE (512 * 1024)
#define WEB_OUT_CONTROL_RESERVE (2 * (2 + WS_CONTROL_MAX))
/* Free room at the end below which the queued bytes are moved to the front. */
#define WEB_OUT_COMPACT_BELOW (16 * 1024 + WS_HEADER_MAX + WEB_OUT_CONTROL_RESERVE)

struct web_out {
        struct buffer data;             /* whole frames, over storage */
        bool pong_pending, ping_pending;
        uint8_t pong[WS_HEADER_MAX + WS_CONTROL_MAX];
        size_t pong_size;
        uint8_t close_frame[2 + WS_CONTROL_MAX];
        size_t close_size;              /* queued, not yet in data */
        uint8_t storage[WEB_OUT_SIZE];
};

/* Empty, data over storage (a web_out is allocated with its stream, not copied). */
void web_out_init(struct web_out *o);

/* Free room at the end (the queued bytes moved to the front when little is left). */
size_t web_out_room(struct web_out *o);
/* n bytes of whole frames; the caller checked the room. */
void web_out_append(struct web_out *o, const void *data, size_t n);
/* The pong to a ping with this payload (at most WS_CONTROL_MAX): only the latest one's is sent. */
void web_out_pong(struct web_out *o, const uint8_t *payload, size_t n);
/* Our close frame, after what is queued; pings and pongs not yet joined are dropped. */
void web_out_close(struct web_out *o, uint16_t code, const char *reason);
/* Whether anything waits to go out. */
bool web_out_pending(const struct web_out *o);
/* Join the control frames that fit, then send what the socket takes: 0, or -errno when the client is gone. */
int web_out_flush(struct web_out *o, int fd);
