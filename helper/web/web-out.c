/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "web.h"
#include "web-out.h"

void web_out_init(struct web_out *o) {
        o->data = BUFFER_FIXED(o->storage);
}

size_t web_out_room(struct web_out *o) {
        return buffer_reserve(&o->data, WEB_OUT_COMPACT_BELOW);
}

void web_out_append(struct web_out *o, const void *data, size_t n) {
        /* The caller asked web_out_room() first: it fits. */
        (void) buffer_append(&o->data, data, n);
}

void web_out_pong(struct web_out *o, const uint8_t *payload, size_t n) {
        size_t hl = ws_frame_header(WS_OP_PONG, n, o->pong);

        /* Only the latest ping needs its pong (RFC 6455 5.5.3). */
        memcpy(o->pong + hl, payload, n);
        o->pong_size = hl + n;
        o->pong_pending = true;
}

void web_out_close(struct web_out *o, uint16_t code, const char *reason) {
        o->close_size = ws_close_frame(code, reason, o->close_frame);
        o->pong_pending = o->ping_pending = false;
}

bool web_out_pending(const struct web_out *o) {
        return buffer_len(&o->data) > 0 || o->close_size || o->pong_pending || o->ping_pending;
}

int web_out_flush(struct web_out *o, int fd) {
        ssize_t k;

        if (o->pong_pending && web_out_room(o) >= o->pong_size) {
                web_out_append(o, o->pong, o->pong_size);
                o->pong_pending = false;
        }
        if (o->ping_pending && web_out_room(o) >= 2) {
                web_out_append(o, (const uint8_t[]) { 0x80 | WS_OP_PING, 0 }, 2);
                o->ping_pending = false;
        }
        if (o->close_size && web_out_room(o) >= o->close_size) {
                web_out_append(o, o->close_frame, o->close_size);
                o->close_size = 0;
        }
        k = buffer_send(fd, &o->data);
        return k < 0 ? (int) k : 0;
}
