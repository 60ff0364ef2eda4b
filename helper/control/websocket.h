/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * RFC 6455 WebSocket framing, the server's side, for `botdesk web`.
 *
 * ws_parser is a push parser of the client's frames that allocates nothing:
 * feed it chunks of any size (one byte at a time included) and it returns
 * one event at a time. Data frames are unmasked in place, so the caller's
 * buffer must be writable, and handed out as they arrive (a frame of 1 MiB
 * is not collected first): the RFB stream beneath has its own framing and
 * does not care where WebSocket frames begin or end.
 *
 * What the parser refuses, with the close code the peer is sent:
 *  - 1002 (protocol error): an unmasked frame (a client MUST mask), RSV
 *    bits without a negotiated extension, an unknown opcode, a fragmented
 *    or over-125-byte control frame, a continuation with no message open, a
 *    new message while one is open, a 64-bit length with its top bit set, a
 *    close payload of one byte or a close code no endpoint may send;
 *  - 1003 (unsupported data): text messages (RFB is binary; noVNC sends
 *    binary frames only), or binary ones on a text endpoint (DevTools,
 *    whose messages are JSON text); botdesk web closes with it too when
 *    the RFB stream inside is unparsable;
 *  - 1007 (invalid payload): a close reason that is not UTF-8;
 *  - 1009 (too big): a frame longer than max_frame.
 * After an error every later call returns the same error.
 */

enum {
        WS_OP_CONTINUATION = 0x0,
        WS_OP_TEXT = 0x1,
        WS_OP_BINARY = 0x2,
        WS_OP_CLOSE = 0x8,
        WS_OP_PING = 0x9,
        WS_OP_PONG = 0xA,
};

enum {
        WS_CLOSE_NORMAL = 1000,
        WS_CLOSE_GOING_AWAY = 1001,     /* the server shuts down; an idle peer */
        WS_CLOSE_PROTOCOL = 1002,
        WS_CLOSE_UNSUPPORTED = 1003,
        WS_CLOSE_NO_STATUS = 1005,      /* never sent: a close frame without a code */
        WS_CLOSE_INVALID_PAYLOAD = 1007,
        WS_CLOSE_POLICY = 1008,
        WS_CLOSE_TOO_BIG = 1009,
        WS_CLOSE_INTERNAL = 1011,
        WS_CLOSE_TRY_AGAIN_LATER = 1013,        /* the desktop has as many viewers as it takes */
        /* Private codes (4000-4999) that tell a gateway's client why a stream
         * ended or was refused; the last two answer an upgrade at once (101,
         * then the close frame), before any byte of the desktop. */
        WS_CLOSE_EVICTED = 4000,        /* a human took control: "control-taken"; a newer viewer's stream: "replaced" */
        WS_CLOSE_DESKTOP_STOPPED = 4001,
        WS_CLOSE_BAD_TICKET = 4401,     /* a bad, reused or missing ticket (or session) */
        WS_CLOSE_FORBIDDEN = 4403,      /* a Host or Origin refused */
};

#define WS_CONTROL_MAX 125
/* The longest frame header: 2 bytes, 8 of extended length, 4 of mask. */
#define WS_HEADER_MAX 14
/* The accept key: base64 of a SHA-1, 28 characters. */
#define WS_ACCEPT_LEN 28

enum ws_event_type {
        WS_EVENT_NONE,          /* everything given was consumed; feed more */
        WS_EVENT_DATA,          /* data/size: payload of a data message (binary, or text on a text endpoint);
                                 * end: the message's last bytes (size may then be 0) */
        WS_EVENT_PING,          /* data/size: its payload, to be echoed in a pong */
        WS_EVENT_PONG,
        WS_EVENT_CLOSE,         /* code (WS_CLOSE_NO_STATUS when none), reason */
};

struct ws_event {
        enum ws_event_type type;
        const uint8_t *data;    /* DATA: in the caller's buffer; PING: in the parser */
        size_t size;
        bool end;               /* DATA: the message is complete with these bytes */
        uint16_t code;
        char reason[WS_CONTROL_MAX - 2 + 1];
};

struct ws_parser {
        /* Settings. */
        uint64_t max_frame;
        bool text;              /* a text endpoint: text messages taken, binary ones refused. Their UTF-8 is
                                 * the application's to judge (a JSON parser refuses what is not). */

        /* Parser state: private. */
        uint8_t phase;
        uint8_t opcode;         /* of the current frame */
        bool fin;
        bool in_message;        /* a fragmented binary message is open */
        uint8_t head[WS_HEADER_MAX];
        uint8_t head_have, head_need;
        uint8_t mask[4];
        uint64_t remaining;     /* payload bytes of the current frame still to come */
        uint64_t offset;        /* payload bytes of the current frame already seen (mask phase) */
        uint8_t control[WS_CONTROL_MAX];
        uint8_t control_size;
        uint16_t error;         /* close code once broken, 0 while fine */
        const char *error_text;
};

void ws_parser_init(struct ws_parser *p, uint64_t max_frame);
/* The same for a text endpoint. */
void ws_parser_init_text(struct ws_parser *p, uint64_t max_frame);

/*
 * Consume bytes of data (at most n) until one event is complete; *consumed
 * says how many were used. Returns 0 with the event, or -EBADMSG when the
 * peer broke the protocol: ws_parser_error() then gives the close code and
 * why. DATA events point into data, unmasked in place.
 */
int ws_parser_feed(struct ws_parser *p, uint8_t *data, size_t n, struct ws_event *ev, size_t *consumed);

/* The close code to send after -EBADMSG (0 while fine), and a reason. */
uint16_t ws_parser_error(const struct ws_parser *p, const char **ret_text);

/* Whether code may appear in a close frame on the wire (RFC 6455 7.4). */
bool ws_close_code_valid(uint16_t code);

/*
 * Write the header of an unmasked server frame (FIN set) of the given opcode
 * and payload size into out (WS_HEADER_MAX bytes); returns its length.
 */
size_t ws_frame_header(uint8_t opcode, uint64_t size, uint8_t out[static WS_HEADER_MAX]);

/* A whole close frame (code, then reason cut to fit) into out; returns its length. */
size_t ws_close_frame(uint16_t code, const char *reason, uint8_t out[static 2 + WS_CONTROL_MAX]);

/*
 * The Sec-WebSocket-Accept value for a client's Sec-WebSocket-Key: base64 of
 * SHA-1(key + the RFC's GUID). -EINVAL unless key is base64 of 16 bytes.
 */
int ws_accept_key(const char *key, char ret[static WS_ACCEPT_LEN + 1]);
