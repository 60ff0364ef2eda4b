/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The server side of an RFB handshake, answered by botdesk itself for a
 * VNC server it did not start: once botdesk's own client (rfb-client.h)
 * has authenticated to that server, a viewer is greeted as a local
 * desktop's Xvnc greets it on rfb.sock: version 3.3, 3.7 or 3.8, security
 * None (the password stays botdesk's), then the server's own ServerInit.
 * After that the viewer's messages are the server's to read. No I/O: the
 * caller feeds the viewer's bytes and sends what rfb_front_take_out()
 * gives, so the same code runs in the front's loop and under a fuzzer.
 */

enum rfb_front_state {
        RFB_FRONT_VERSION,              /* the viewer's ProtocolVersion */
        RFB_FRONT_SECURITY,             /* 3.7, 3.8: the type it chose */
        RFB_FRONT_CLIENT_INIT,          /* its shared flag */
        RFB_FRONT_READY,                /* ServerInit sent: what follows is the session */
        RFB_FRONT_FAILED,
};

struct rfb_front {
        enum rfb_front_state state;
        unsigned minor;                 /* 3, 7 or 8, once the viewer said */
        const char *problem;            /* why it failed, in words */
        uint8_t head[12];
        size_t need, have;
        uint8_t *server_init;           /* the ServerInit to send: 24 bytes and the name */
        size_t server_init_len;
        uint8_t *out;                   /* what to send the viewer */
        size_t out_len, out_sent;
};

/* Greet a viewer with the server's geometry, pixel format and name (at most RFB_CLIENT_NAME_MAX bytes). 0 or -ENOMEM. */
int rfb_front_init(struct rfb_front *f, uint16_t width, uint16_t height, const uint8_t pixel_format[static 16],
                   const char *name);
void rfb_front_done(struct rfb_front *f);

/*
 * The viewer's bytes, in any pieces: how many were taken (never past
 * ClientInit: the rest is the session's), or -EPROTO (a version or a
 * security type botdesk does not speak; f->problem says which).
 */
ssize_t rfb_front_feed(struct rfb_front *f, const void *data, size_t size);

/* What to send the viewer now: a pointer into the front's buffer and its length (0: nothing). */
size_t rfb_front_pending(const struct rfb_front *f, const uint8_t **ret);
/* n bytes of it were sent. */
void rfb_front_sent(struct rfb_front *f, size_t n);
