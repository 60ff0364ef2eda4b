/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include <nettle/base64.h>
#include <nettle/sha1.h>

#include "utf8.h"
#include "websocket.h"

enum {
        PHASE_HEAD,     /* the first two bytes */
        PHASE_HEAD_REST,/* extended length and mask */
        PHASE_PAYLOAD,
        PHASE_CLOSED,   /* a close frame was read: nothing follows it */
};

void ws_parser_init(struct ws_parser *p, uint64_t max_frame) {
        *p = (struct ws_parser) { .max_frame = max_frame };
}

void ws_parser_init_text(struct ws_parser *p, uint64_t max_frame) {
        *p = (struct ws_parser) { .max_frame = max_frame, .text = true };
}

static int fail(struct ws_parser *p, uint16_t code, const char *why) {
        if (!p->error) {
                p->error = code;
                p->error_text = why;
        }
        return -EBADMSG;
}

uint16_t ws_parser_error(const struct ws_parser *p, const char **ret_text) {
        if (ret_text)
                *ret_text = p->error ? p->error_text : NULL;
        return p->error;
}

bool ws_close_code_valid(uint16_t code) {
        /* 1004-1006 and 1015 are reserved to mean "no frame carried this". */
        if (code >= 1000 && code <= 1003)
                return true;
        if (code >= 1007 && code <= 1014)
                return true;
        return code >= 3000 && code <= 4999;
}

/* The frame header is complete: check it against the rules and the state. */
static int header_done(struct ws_parser *p) {
        uint8_t len7 = p->head[1] & 0x7f;
        uint64_t len = len7;
        size_t at = 2;
        bool control = p->opcode & 0x8;

        if (len7 == 126) {
                len = (uint64_t) p->head[2] << 8 | p->head[3];
                at = 4;
        } else if (len7 == 127) {
                len = 0;
                for (size_t i = 0; i < 8; i++)
                        len = len << 8 | p->head[2 + i];
                at = 10;
                if (len >> 63)
                        return fail(p, WS_CLOSE_PROTOCOL, "a frame length with its top bit set");
        }
        memcpy(p->mask, p->head + at, 4);

        if (control) {
                if (!p->fin)
                        return fail(p, WS_CLOSE_PROTOCOL, "a fragmented control frame");
                if (len > WS_CONTROL_MAX)
                        return fail(p, WS_CLOSE_PROTOCOL, "a control frame longer than 125 bytes");
                if (p->opcode == WS_OP_CLOSE && len == 1)
                        return fail(p, WS_CLOSE_PROTOCOL, "a close frame of one byte");
        } else if (len > p->max_frame)
                return fail(p, WS_CLOSE_TOO_BIG, "a frame longer than the server accepts");

        p->remaining = len;
        p->offset = 0;
        p->control_size = 0;
        return 0;
}

/* The first two bytes: opcode and flags, checked before the rest arrives. */
static int head_start(struct ws_parser *p) {
        uint8_t b0 = p->head[0], b1 = p->head[1];

        p->fin = b0 & 0x80;
        p->opcode = b0 & 0x0f;
        if (b0 & 0x70)
                return fail(p, WS_CLOSE_PROTOCOL, "reserved bits without an extension");
        if (!(b1 & 0x80))
                return fail(p, WS_CLOSE_PROTOCOL, "an unmasked frame from the client");
        switch (p->opcode) {
        case WS_OP_CONTINUATION:
                if (!p->in_message)
                        return fail(p, WS_CLOSE_PROTOCOL, "a continuation frame with no message open");
                break;
        case WS_OP_TEXT:
                if (p->in_message)
                        return fail(p, WS_CLOSE_PROTOCOL, "a new message inside a fragmented one");
                if (!p->text)
                        return fail(p, WS_CLOSE_UNSUPPORTED, "a text message (RFB is binary)");
                break;
        case WS_OP_BINARY:
                if (p->in_message)
                        return fail(p, WS_CLOSE_PROTOCOL, "a new message inside a fragmented one");
                if (p->text)
                        return fail(p, WS_CLOSE_UNSUPPORTED, "a binary message (DevTools messages are text)");
                break;
        case WS_OP_CLOSE:
        case WS_OP_PING:
        case WS_OP_PONG:
                break;
        default:
                return fail(p, WS_CLOSE_PROTOCOL, "an unknown opcode");
        }
        if (!(p->opcode & 0x8))
                p->in_message = !p->fin;

        p->head_need = 2 + ((b1 & 0x7f) == 126 ? 2 : (b1 & 0x7f) == 127 ? 8 : 0) + 4;
        return 0;
}

/* A control frame's payload is complete: make it an event. */
static int control_done(struct ws_parser *p, struct ws_event *ev) {
        size_t n = p->control_size;

        switch (p->opcode) {
        case WS_OP_PING:
                ev->type = WS_EVENT_PING;
                ev->data = p->control;
                ev->size = n;
                return 0;
        case WS_OP_PONG:
                ev->type = WS_EVENT_PONG;
                ev->data = p->control;
                ev->size = n;
                return 0;
        default: /* close */
                ev->type = WS_EVENT_CLOSE;
                ev->code = WS_CLOSE_NO_STATUS;
                ev->reason[0] = 0;
                if (n >= 2) {
                        ev->code = (uint16_t) (p->control[0] << 8 | p->control[1]);
                        if (!ws_close_code_valid(ev->code))
                                return fail(p, WS_CLOSE_PROTOCOL, "a close code no endpoint may send");
                        if (!utf8_valid(p->control + 2, n - 2))
                                return fail(p, WS_CLOSE_INVALID_PAYLOAD, "a close reason that is not UTF-8");
                        /* UTF-8 without NUL bytes is what a C string can carry; cut at one otherwise. */
                        memcpy(ev->reason, p->control + 2, n - 2);
                        ev->reason[n - 2] = 0;
                }
                p->phase = PHASE_CLOSED;
                return 0;
        }
}

int ws_parser_feed(struct ws_parser *p, uint8_t *data, size_t n, struct ws_event *ev, size_t *consumed) {
        size_t i = 0;
        int r;

        *ev = (struct ws_event) { .type = WS_EVENT_NONE };
        *consumed = 0;
        if (p->error)
                return -EBADMSG;

        while (i < n) {
                switch (p->phase) {
                case PHASE_CLOSED:
                        /* Nothing may follow a close frame: drop it unread. */
                        *consumed = n;
                        return 0;

                case PHASE_HEAD:
                        p->head[p->head_have++] = data[i++];
                        if (p->head_have < 2)
                                break;
                        r = head_start(p);
                        if (r < 0)
                                goto out_error;
                        p->phase = PHASE_HEAD_REST;
                        break;

                case PHASE_HEAD_REST: {
                        size_t k = p->head_need - p->head_have;

                        if (k > n - i)
                                k = n - i;
                        memcpy(p->head + p->head_have, data + i, k);
                        p->head_have += (uint8_t) k;
                        i += k;
                        if (p->head_have < p->head_need)
                                break;
                        p->head_have = 0;
                        r = header_done(p);
                        if (r < 0)
                                goto out_error;
                        p->phase = PHASE_PAYLOAD;
                        if (p->remaining > 0)
                                break;
                        /* An empty frame: a control frame, or the end of a message (its last frame may
                         * be empty; an empty one in between says nothing). */
                        p->phase = PHASE_HEAD;
                        if (p->opcode & 0x8) {
                                r = control_done(p, ev);
                                if (r < 0)
                                        goto out_error;
                                *consumed = i;
                                return 0;
                        }
                        if (p->fin) {
                                ev->type = WS_EVENT_DATA;
                                ev->data = data + i;
                                ev->size = 0;
                                ev->end = true;
                                *consumed = i;
                                return 0;
                        }
                        break;
                }

                case PHASE_PAYLOAD: {
                        uint64_t k = p->remaining;
                        uint8_t *d = data + i;

                        if (k > n - i)
                                k = n - i;
                        for (size_t j = 0; j < k; j++)
                                d[j] ^= p->mask[(p->offset + j) & 3];
                        p->offset += k;
                        p->remaining -= k;
                        i += k;
                        if (p->opcode & 0x8) {
                                memcpy(p->control + p->control_size, d, k);
                                p->control_size += (uint8_t) k;
                                if (p->remaining > 0)
                                        break;
                                p->phase = PHASE_HEAD;
                                r = control_done(p, ev);
                                if (r < 0)
                                        goto out_error;
                                *consumed = i;
                                return 0;
                        }
                        if (p->remaining == 0)
                                p->phase = PHASE_HEAD;
                        ev->type = WS_EVENT_DATA;
                        ev->data = d;
                        ev->size = k;
                        ev->end = p->remaining == 0 && p->fin;
                        *consumed = i;
                        return 0;
                }
                }
        }
        *consumed = i;
        return 0;

out_error:
        *consumed = i;
        return r;
}

size_t ws_frame_header(uint8_t opcode, uint64_t size, uint8_t out[static WS_HEADER_MAX]) {
        out[0] = 0x80 | (opcode & 0x0f);
        if (size <= 125) {
                out[1] = (uint8_t) size;
                return 2;
        }
        if (size <= 0xffff) {
                out[1] = 126;
                out[2] = (uint8_t) (size >> 8);
                out[3] = (uint8_t) size;
                return 4;
        }
        out[1] = 127;
        for (size_t i = 0; i < 8; i++)
                out[2 + i] = (uint8_t) (size >> (56 - 8 * i));
        return 10;
}

size_t ws_close_frame(uint16_t code, const char *reason, uint8_t out[static 2 + WS_CONTROL_MAX]) {
        size_t n = reason ? strlen(reason) : 0;

        if (n > WS_CONTROL_MAX - 2)
                n = WS_CONTROL_MAX - 2;
        /* Never cut a UTF-8 sequence in half: back up to a character start. */
        while (n > 0 && reason[n] && ((uint8_t) reason[n] & 0xc0) == 0x80)
                n--;
        out[0] = 0x80 | WS_OP_CLOSE;
        out[1] = (uint8_t) (2 + n);
        out[2] = (uint8_t) (code >> 8);
        out[3] = (uint8_t) code;
        if (n)
                memcpy(out + 4, reason, n);
        return 4 + n;
}

int ws_accept_key(const char *key, char ret[static WS_ACCEPT_LEN + 1]) {
        static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
        struct base64_decode_ctx b64;
        struct sha1_ctx sha;
        uint8_t raw[24], digest[SHA1_DIGEST_SIZE];
        size_t len = strlen(key), got = sizeof raw;

        /* 16 random bytes in base64: 22 characters and "==". */
        if (len != 24 || key[22] != '=' || key[23] != '=')
                return -EINVAL;
        base64_decode_init(&b64);
        if (!base64_decode_update(&b64, &got, raw, len, key) || !base64_decode_final(&b64) || got != 16)
                return -EINVAL;

        sha1_init(&sha);
        sha1_update(&sha, len, (const uint8_t *) key);
        sha1_update(&sha, sizeof guid - 1, (const uint8_t *) guid);
        sha1_digest(&sha, sizeof digest, digest);
        base64_encode_raw(ret, sizeof digest, digest);
        ret[WS_ACCEPT_LEN] = 0;
        return 0;
}
