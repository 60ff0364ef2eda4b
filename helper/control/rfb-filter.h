/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The RFB client-to-server filter of `botdesk rfb`: a push parser that frames
 * the client's stream (RFC 6143 plus the extensions TigerVNC's Xvnc reads)
 * and returns the bytes to forward to the server. It allocates nothing and
 * keeps all its state in struct rfb_filter; feed it chunks of any size, one
 * byte at a time included.
 *
 * Handshake: the ProtocolVersion (only "RFB 003.003\n", "003.007", "003.008":
 * the server's flow is inferred from it, since the server's bytes are not
 * parsed), for 3.7/3.8 the client's security type (None, or VncAuth followed
 * by its 16-byte response; 3.3 clients send nothing, the server having
 * chosen None), then ClientInit, whose shared flag is forced to 1 so that a
 * viewer never disconnects the others.
 *
 * Messages: SetPixelFormat (0), SetEncodings (2), FramebufferUpdateRequest
 * (3), KeyEvent (4), PointerEvent (5), ClientCutText (6, with the extended
 * clipboard's negative length), EnableContinuousUpdates (150), ClientFence
 * (248), SetDesktopSize (251), QEMU client messages (255: extended key event,
 * audio). The input messages (4, 5, 6, 251, 255) are dropped whole unless
 * allow_input is set when their fixed part is complete (for key and pointer
 * events: the whole message); the caller may flip allow_input between calls.
 * A payload (cut text, screens) is streamed: once part of it has been
 * forwarded, a call with allow_input unset closes the stream, since the
 * rest can neither be dropped nor let through.
 *
 * The filter closes the stream (returns -EBADMSG, and rfb_filter_error()
 * says why) on an unknown version, security type, message type or QEMU
 * sub-message, on cut text longer than max_cut_text, on a fence payload
 * over 64 bytes, and on input revoked inside a forwarded payload.
 *
 * One rewrite besides the shared flag: the ExtendedMouseButtons
 * pseudo-encoding (-316) in SetEncodings becomes Raw (0). With it, newer
 * servers read a PointerEvent with bit 7 set as 7 bytes and older ones as 6,
 * so its framing would depend on the server's version; without it every
 * server reads 6, as this filter does.
 */

/* Bytes the filter may hold between calls (the longest fixed head is 20). */
#define RFB_FILTER_HOLD_MAX 20

/* The output buffer needed for an input chunk of n bytes. */
#define RFB_FILTER_OUT_SIZE(n) ((n) + RFB_FILTER_HOLD_MAX)

#define RFB_ENCODING_EXTENDED_MOUSE_BUTTONS (-316)

struct rfb_filter {
        /* Settings: the caller may change these between calls. */
        bool allow_input;
        uint32_t max_cut_text;

        /* Counters, of complete heads seen (for logs, tests and the fuzzer). */
        uint64_t messages;              /* client messages after ClientInit */
        uint64_t input_forwarded;
        uint64_t input_dropped;

        /* Parser state: private. */
        uint8_t phase;
        uint8_t minor;                  /* 3, 7 or 8 */
        bool forward;                   /* the current message is forwarded */
        uint8_t held;                   /* bytes in hold */
        uint8_t need;                   /* bytes the current head needs */
        uint8_t hold[RFB_FILTER_HOLD_MAX];
        uint32_t body;                  /* payload bytes still to stream */
        uint32_t encodings;             /* SetEncodings entries still to come */
        char error[96];
};

void rfb_filter_init(struct rfb_filter *f, uint32_t max_cut_text);

/*
 * Feed n bytes of the client's stream. The bytes to forward are written to
 * out, which must hold at least RFB_FILTER_OUT_SIZE(n) bytes (else -ENOBUFS,
 * nothing consumed) and must not overlap in; *ret_out is their count. On a
 * protocol violation returns -EBADMSG and *ret_out counts the bytes of the
 * complete, valid messages before it; every later call fails the same way.
 */
int rfb_filter_feed(struct rfb_filter *f, const void *in, size_t n, void *out, size_t out_size, size_t *ret_out);

/* Why the stream was closed, or NULL while it is fine. */
const char *rfb_filter_error(const struct rfb_filter *f);

/* True between client messages (after ClientInit), when nothing is held. */
bool rfb_filter_at_boundary(const struct rfb_filter *f);
