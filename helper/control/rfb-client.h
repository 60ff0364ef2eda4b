/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The client side of an RFB handshake (RFC 6143), for a desktop botdesk
 * did not start: version (3.3, 3.7 or 3.8; 3.889, Apple's, read as 3.8),
 * security None or VNC authentication, ClientInit, ServerInit. No I/O of
 * its own: the caller feeds what the server sent and sends what the client
 * has to say (rfb_client_take_out()), so the same code runs in an event
 * loop, over a command's stdio and under a fuzzer.
 *
 * Everything the server says is bounded before it is kept: a failure
 * reason is drained (at most 4096 bytes) and never shown, for it is the
 * peer's text; a ServerInit over RFB_CLIENT_PIXELS_MAX pixels or a name
 * over RFB_CLIENT_NAME_MAX bytes ends the handshake.
 */

#define RFB_CLIENT_REASON_MAX 4096u
#define RFB_CLIENT_NAME_MAX (64u * 1024u)
#define RFB_CLIENT_PIXELS_MAX 16777216u
/* Security types (RFC 6143 7.1.2, and Apple's, which botdesk refuses). */
#define RFB_SECURITY_NONE 1u
#define RFB_SECURITY_VNC 2u

enum rfb_client_state {
        RFB_CLIENT_VERSION,
        RFB_CLIENT_SECURITY,            /* 3.3: the server's one type; 3.7+: its list */
        RFB_CLIENT_CHALLENGE,
        RFB_CLIENT_RESULT,
        RFB_CLIENT_REASON,              /* draining a failure's reason */
        RFB_CLIENT_SERVER_INIT,
        RFB_CLIENT_NAME,
        RFB_CLIENT_READY,
        RFB_CLIENT_FAILED,
};

struct rfb_client {
        enum rfb_client_state state;
        unsigned minor;                 /* 3, 7 or 8, once the version is agreed */
        uint8_t key[8];                 /* the DES key made from the password */
        bool have_password;
        int failure;                    /* the error the handshake ended with, once RFB_CLIENT_FAILED */
        const char *problem;            /* ... in words (never the server's) */
        int reason_error;               /* what the reason being drained will end with */
        /* What the current state waits for: need bytes, of which have are in buf. */
        uint8_t *buf;
        size_t need, have;
        /* What to send to the server. */
        uint8_t out[64];
        size_t out_len;
        /* ServerInit. */
        uint16_t width, height;
        uint8_t pixel_format[16];
        char *name;
};

/*
 * Starts a handshake; password (UTF-8, or NULL for none) is used for VNC
 * authentication as RFB does: its first 8 characters in Latin-1. -EINVAL
 * when one of them has no Latin-1 byte.
 */
int rfb_client_init(struct rfb_client *c, const char *password);
void rfb_client_done(struct rfb_client *c);

/*
 * What the server sent, in any pieces. Returns how many bytes were taken
 * (all of them until the handshake is done: the rest is the session's),
 * or, once it failed, a negative errno (c->problem says it in words):
 * -EPROTO not an RFB server or a message out of the protocol,
 * -EPROTONOSUPPORT no version or security type botdesk speaks (Apple's
 * alone), -ENOKEY the server wants a password and none was given,
 * -EACCES authentication failed, -ECONNREFUSED the server refused at once,
 * -EFBIG a ServerInit over the limits, -ENOMEM.
 */
ssize_t rfb_client_feed(struct rfb_client *c, const void *data, size_t size);

/* The bytes to send now (moved to ret, at most size), or 0. */
size_t rfb_client_take_out(struct rfb_client *c, void *ret, size_t size);

/* The VNC authentication's response to a 16-byte challenge under key (rfb-client-auth.c). */
void rfb_vnc_auth_response(const uint8_t key[static 8], const uint8_t challenge[static 16], uint8_t ret[static 16]);
/* The DES key of a password: its first 8 characters in Latin-1, zero-padded, each byte's bits reversed. */
int rfb_vnc_auth_key(const char *password, uint8_t ret[static 8]);
