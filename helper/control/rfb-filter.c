/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rfb-filter.h"

enum {
        PHASE_VERSION,          /* 12 bytes "RFB 003.00x\n" */
        PHASE_SECURITY,         /* 3.7/3.8: one byte, the security type chosen */
        PHASE_VNCAUTH,          /* 16 bytes, the DES response */
        PHASE_CLIENT_INIT,      /* one byte, the shared flag */
        PHASE_HEAD,             /* the fixed part of a message, held until complete */
        PHASE_BODY,             /* a message's variable payload, streamed */
        PHASE_ENCODING,         /* one 4-byte entry of SetEncodings */
        PHASE_ERROR,
};

enum {
        MSG_SET_PIXEL_FORMAT = 0,
        MSG_SET_ENCODINGS = 2,
        MSG_FRAMEBUFFER_UPDATE_REQUEST = 3,
        MSG_KEY_EVENT = 4,
        MSG_POINTER_EVENT = 5,
        MSG_CLIENT_CUT_TEXT = 6,
        MSG_ENABLE_CONTINUOUS_UPDATES = 150,
        MSG_CLIENT_FENCE = 248,
        MSG_SET_DESKTOP_SIZE = 251,
        MSG_QEMU = 255,
};

enum {
        QEMU_EXTENDED_KEY_EVENT = 0,
        QEMU_AUDIO = 1,
};

#define FENCE_PAYLOAD_MAX 64

/* head_complete() results */
enum {
        HEAD_MORE,
        HEAD_DONE,
};

static uint16_t be16(const uint8_t *p) {
        return (uint16_t) (p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static bool message_is_input(uint8_t type) {
        return type == MSG_KEY_EVENT || type == MSG_POINTER_EVENT || type == MSG_CLIENT_CUT_TEXT ||
               type == MSG_SET_DESKTOP_SIZE || type == MSG_QEMU;
}

void rfb_filter_init(struct rfb_filter *f, uint32_t max_cut_text) {
        *f = (struct rfb_filter) {
                .max_cut_text = max_cut_text,
                .phase = PHASE_VERSION,
                .need = 12,
                .forward = true,
        };
}

__attribute__((format(printf, 2, 3)))
static int fail(struct rfb_filter *f, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(f->error, sizeof f->error, fmt, ap);
        va_end(ap);
        f->phase = PHASE_ERROR;
        return -EBADMSG;
}

static void next_message(struct rfb_filter *f) {
        f->phase = PHASE_HEAD;
        f->need = 1;
        f->body = 0;
}

/* After a head: stream its payload, or go on to the next message. */
static int message_done(struct rfb_filter *f, uint32_t body) {
        f->messages++;
        if (message_is_input(f->hold[0])) {
                f->forward = f->allow_input;
                if (f->forward)
                        f->input_forwarded++;
                else
                        f->input_dropped++;
        }
        if (body > 0) {
                f->phase = PHASE_BODY;
                f->body = body;
        } else
                next_message(f);
        return HEAD_DONE;
}

static int message_head(struct rfb_filter *f) {
        uint8_t type = f->hold[0];
        uint32_t len;

        if (f->held == 1) {
                /* Nothing of a head leaves before it is complete: whether an
                 * input message passes is decided then (message_done), by
                 * the lease as it is when its last head byte arrives. */
                f->forward = true;
                switch (type) {
                case MSG_SET_PIXEL_FORMAT:
                        f->need = 20;
                        break;
                case MSG_SET_ENCODINGS:
                        f->need = 4;
                        break;
                case MSG_FRAMEBUFFER_UPDATE_REQUEST:
                case MSG_ENABLE_CONTINUOUS_UPDATES:
                        f->need = 10;
                        break;
                case MSG_KEY_EVENT:
                case MSG_CLIENT_CUT_TEXT:
                case MSG_SET_DESKTOP_SIZE:
                        f->need = 8;
                        break;
                case MSG_POINTER_EVENT:
                        f->need = 6;
                        break;
                case MSG_CLIENT_FENCE:
                        f->need = 9;
                        break;
                case MSG_QEMU:
                        f->need = 2;
                        break;
                default:
                        return fail(f, "unknown client message type %u", type);
                }
                return HEAD_MORE;
        }

        switch (type) {
        case MSG_SET_ENCODINGS:
                f->encodings = be16(f->hold + 2);
                if (f->encodings == 0)
                        return message_done(f, 0);
                message_done(f, 0);
                f->phase = PHASE_ENCODING;
                f->need = 4;
                return HEAD_DONE;

        case MSG_CLIENT_CUT_TEXT:
                len = be32(f->hold + 4);
                /* Extended clipboard: a negative length announces -length
                 * bytes of the extended format (0x80000000 has no positive
                 * counterpart and is over any limit). */
                if (len & 0x80000000u)
                        len = len == 0x80000000u ? 0x80000000u : (uint32_t) -(int32_t) len;
                if (len > f->max_cut_text)
                        return fail(f, "cut text of %u bytes is over max_cut_text (%u)", len, f->max_cut_text);
                return message_done(f, len);

        case MSG_CLIENT_FENCE:
                if (f->hold[8] > FENCE_PAYLOAD_MAX)
                        return fail(f, "fence payload of %u bytes is over %u", f->hold[8], FENCE_PAYLOAD_MAX);
                return message_done(f, f->hold[8]);

        case MSG_SET_DESKTOP_SIZE:
                return message_done(f, (uint32_t) f->hold[6] * 16);

        case MSG_QEMU:
                if (f->held == 2) {
                        if (f->hold[1] == QEMU_EXTENDED_KEY_EVENT)
                                f->need = 12;
                        else if (f->hold[1] == QEMU_AUDIO)
                                f->need = 4;
                        else
                                return fail(f, "unknown QEMU client message %u", f->hold[1]);
                        return HEAD_MORE;
                }
                if (f->hold[1] == QEMU_AUDIO && f->held == 4) {
                        /* enable (0), disable (1), set format (2) + 6 bytes */
                        switch (be16(f->hold + 2)) {
                        case 0:
                        case 1:
                                break;
                        case 2:
                                f->need = 10;
                                return HEAD_MORE;
                        default:
                                return fail(f, "unknown QEMU audio operation %u", be16(f->hold + 2));
                        }
                }
                return message_done(f, 0);

        default:
                return message_done(f, 0);
        }
}

static int head_complete(struct rfb_filter *f) {
        switch (f->phase) {
        case PHASE_VERSION:
                if (memcmp(f->hold, "RFB 003.00", 10) != 0 || f->hold[11] != '\n' ||
                    (f->hold[10] != '3' && f->hold[10] != '7' && f->hold[10] != '8'))
                        return fail(f, "unsupported protocol version (3.3, 3.7 and 3.8 are)");
                f->minor = (uint8_t) (f->hold[10] - '0');
                f->phase = f->minor == 3 ? PHASE_CLIENT_INIT : PHASE_SECURITY;
                f->need = 1;
                return HEAD_DONE;

        case PHASE_SECURITY:
                if (f->hold[0] == 1)
                        f->phase = PHASE_CLIENT_INIT;
                else if (f->hold[0] == 2) {
                        f->phase = PHASE_VNCAUTH;
                        f->need = 16;
                } else
                        return fail(f, "unsupported security type %u", f->hold[0]);
                return HEAD_DONE;

        case PHASE_VNCAUTH:
                f->phase = PHASE_CLIENT_INIT;
                f->need = 1;
                return HEAD_DONE;

        case PHASE_CLIENT_INIT:
                /* Shared: an exclusive viewer would disconnect every other one. */
                f->hold[0] = 1;
                next_message(f);
                return HEAD_DONE;

        case PHASE_ENCODING:
                if ((int32_t) be32(f->hold) == RFB_ENCODING_EXTENDED_MOUSE_BUTTONS)
                        memset(f->hold, 0, 4);
                if (--f->encodings == 0)
                        next_message(f);
                return HEAD_DONE;

        case PHASE_HEAD:
                return message_head(f);

        default:
                return fail(f, "internal error: bad phase %u", f->phase);
        }
}

int rfb_filter_feed(struct rfb_filter *f, const void *in, size_t n, void *out, size_t out_size, size_t *ret_out) {
        const uint8_t *p = in;
        uint8_t *o = out;
        size_t i = 0, w = 0;
        int r;

        *ret_out = 0;
        if (f->phase == PHASE_ERROR)
                return -EBADMSG;
        if (n > SIZE_MAX - RFB_FILTER_HOLD_MAX || out_size < RFB_FILTER_OUT_SIZE(n))
                return -ENOBUFS;

        while (i < n) {
                if (f->phase == PHASE_BODY) {
                        size_t k = n - i < f->body ? n - i : f->body;

                        /* Part of this input message has reached the server
                         * already and the rest may not: a server cannot be
                         * told to forget half a message, so the stream ends.
                         * (hold[0] still holds the type during the body.) */
                        if (f->forward && !f->allow_input && message_is_input(f->hold[0])) {
                                *ret_out = w;
                                return fail(f, "input while its control was taken away mid-message");
                        }

                        if (f->forward) {
                                memcpy(o + w, p + i, k);
                                w += k;
                        }
                        i += k;
                        f->body -= (uint32_t) k;
                        if (f->body == 0)
                                next_message(f);
                        continue;
                }

                f->hold[f->held++] = p[i++];
                if (f->held < f->need)
                        continue;
                r = head_complete(f);
                if (r < 0) {
                        *ret_out = w;
                        return r;
                }
                if (r == HEAD_MORE)
                        continue;
                /* Heads leave only once complete and checked: what the server
                 * gets is always a run of whole, valid heads. */
                if (f->forward) {
                        memcpy(o + w, f->hold, f->held);
                        w += f->held;
                }
                f->held = 0;
        }
        *ret_out = w;
        return 0;
}

const char *rfb_filter_error(const struct rfb_filter *f) {
        return f->phase == PHASE_ERROR ? f->error : NULL;
}

bool rfb_filter_at_boundary(const struct rfb_filter *f) {
        return f->phase == PHASE_HEAD && f->held == 0;
}
