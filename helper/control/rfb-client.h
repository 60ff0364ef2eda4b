/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The client side of an RFB handshake (RFC 6143), for a desktop botdesk
 * did not start: version (3.3, 3.7 or 3.8; 3.889, Apple's, read as 3.8),
 * security None or VNC authentication, or VeNCrypt (19) around either,
 * ClientInit, ServerInit. No I/O of its own: the caller feeds what the
 * server sent and sends what the client has to say (rfb_client_take_out()),
 * so the same code runs in an event loop, over a command's stdio and under a
 * fuzzer. VeNCrypt's TLS is the caller's too: the machine stops in
 * RFB_CLIENT_START_TLS, the caller runs the TLS handshake (rfb-tls.h), calls
 * rfb_client_tls_started() and feeds what TLS decrypts from then on.
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
#define RFB_SECURITY_VENCRYPT 19u
/*
 * VeNCrypt's subtypes (TigerVNC's and QEMU's numbers). The Plain ones send a
 * username and password in the clear of TLS: botdesk has no username and
 * never picks them.
 */
#define RFB_VENCRYPT_PLAIN 256u
#define RFB_VENCRYPT_TLS_NONE 257u
#define RFB_VENCRYPT_TLS_VNC 258u
#define RFB_VENCRYPT_TLS_PLAIN 259u
#define RFB_VENCRYPT_X509_NONE 260u
#define RFB_VENCRYPT_X509_VNC 261u
#define RFB_VENCRYPT_X509_PLAIN 262u

enum rfb_client_state {
        RFB_CLIENT_VERSION,
        RFB_CLIENT_SECURITY,            /* 3.3: the server's one type; 3.7+: its list */
        RFB_CLIENT_VENCRYPT_VERSION,    /* VeNCrypt: the server's version (0.2) */
        RFB_CLIENT_VENCRYPT_ACK,        /* ... whether it takes ours */
        RFB_CLIENT_VENCRYPT_TYPES,      /* ... its subtypes: a count, then that many u32 */
        RFB_CLIENT_VENCRYPT_ACCEPT,     /* ... whether it takes the one chosen */
        RFB_CLIENT_START_TLS,           /* the caller's turn: TLS (tls_x509 says which), then rfb_client_tls_started() */
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
        /* VeNCrypt: whether the caller can run TLS, and has a CA to verify the server with (rfb_client_use_tls()). */
        bool tls_usable, have_ca;
        uint32_t subtype;               /* the VeNCrypt subtype chosen, or 0 */
        bool tls_x509;                  /* once RFB_CLIENT_START_TLS: X509 (verify the certificate), else anonymous */
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
 * Lets the handshake pick VeNCrypt (type 19), before the first byte is fed.
 * The rule, for a user who cares who the server is:
 *  - have_ca (remote_ca_file): VeNCrypt X509 or nothing. X509Vnc when there
 *    is a password, else X509None; a server that offers no VeNCrypt, or
 *    only its anonymous or Plain subtypes, is refused, for a peer that
 *    strips TLS from the list must not get the password in RFB's clear.
 *  - no CA: None or VNC authentication where the server offers them, as
 *    without VeNCrypt; VeNCrypt only when the server offers nothing else,
 *    and then only anonymous TLS (TLSVnc, TLSNone): an X509 subtype is
 *    refused, naming remote_ca_file, for its certificate could not be
 *    checked. Anonymous TLS encrypts but does not authenticate the server.
 * Without this (rfb_grab(), a build without GnuTLS), a server that offers
 * VeNCrypt alone, or any server with have_ca, is refused.
 */
void rfb_client_use_tls(struct rfb_client *c, bool tls_usable, bool have_ca);

/* The caller's TLS handshake is done (RFB_CLIENT_START_TLS): what is fed from now on is what TLS decrypts. */
void rfb_client_tls_started(struct rfb_client *c);

/*
 * What the server sent, in any pieces. Returns how many bytes were taken
 * (all of them until the handshake is done: the rest is the session's; or
 * until RFB_CLIENT_START_TLS: the rest would be TLS's, and a server sends
 * none before the client's hello),
 * or, once it failed, a negative errno (c->problem says it in words):
 * -EPROTO not an RFB server or a message out of the protocol,
 * -EPROTONOSUPPORT no version or security type botdesk speaks (Apple's
 * alone, VeNCrypt's Plain alone, a version of VeNCrypt other than 0.2, a
 * VeNCrypt the rule of rfb_client_use_tls() refuses), -ENOKEY the server
 * wants a password and none was given,
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
