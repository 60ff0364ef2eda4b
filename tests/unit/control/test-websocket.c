/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFC 6455 framing of botdesk web: the handshake key, masking, fragmented
 * messages with control frames between their fragments, and every refusal
 * with the close code the viewer gets, the same whether the bytes arrive
 * whole, one at a time or in random chunks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "util.h"
#include "utf8.h"
#include "websocket.h"

#define BIG (1 << 16)

struct buf {
        uint8_t d[BIG];
        size_t n;
};

/* A client frame: masked unless told otherwise, with the given flags. */
static void frame(struct buf *b, uint8_t first, bool masked, const void *payload, uint64_t len, uint64_t claimed) {
        static const uint8_t mask[4] = { 0x37, 0xfa, 0x21, 0x3d };
        const uint8_t *p = payload;

        b->d[b->n++] = first;
        if (claimed <= 125)
                b->d[b->n++] = (uint8_t) ((masked ? 0x80 : 0) | claimed);
        else if (claimed <= 0xffff) {
                b->d[b->n++] = (masked ? 0x80 : 0) | 126;
                b->d[b->n++] = (uint8_t) (claimed >> 8);
                b->d[b->n++] = (uint8_t) claimed;
        } else {
                b->d[b->n++] = (masked ? 0x80 : 0) | 127;
                for (int i = 7; i >= 0; i--)
                        b->d[b->n++] = (uint8_t) (claimed >> (8 * i));
        }
        if (masked) {
                memcpy(b->d + b->n, mask, 4);
                b->n += 4;
        }
        for (uint64_t i = 0; i < len; i++)
                b->d[b->n++] = masked ? p[i] ^ mask[i & 3] : p[i];
}

static void fr(struct buf *b, uint8_t first, const void *payload, size_t len) {
        frame(b, first, true, payload, len, len);
}

struct result {
        uint8_t data[BIG];
        size_t n_data;
        char events[64];        /* D P O C per event (data runs once) */
        uint8_t ping[WS_CONTROL_MAX];
        size_t n_ping;
        uint16_t close_code;
        char reason[128];
        uint16_t error;
};

enum { CHUNK_WHOLE, CHUNK_BYTES, CHUNK_RANDOM };

static void run(const struct buf *in, int mode, unsigned seed, uint64_t max_frame, struct result *res) {
        static uint8_t copy[BIG];
        struct ws_parser p;
        size_t at = 0, ne = 0;

        memcpy(copy, in->d, in->n);
        memset(res, 0, sizeof *res);
        srand(seed);
        ws_parser_init(&p, max_frame);
        while (at < in->n) {
                size_t chunk = mode == CHUNK_WHOLE ? in->n - at : mode == CHUNK_BYTES ? 1 : 1 + (size_t) rand() % 7;
                size_t end;

                if (chunk > in->n - at)
                        chunk = in->n - at;
                end = at + chunk;
                while (at < end) {
                        struct ws_event ev;
                        size_t used;
                        int r = ws_parser_feed(&p, copy + at, end - at, &ev, &used);

                        at += used;
                        if (r < 0) {
                                res->error = ws_parser_error(&p, NULL);
                                /* Broken for good. */
                                if (ws_parser_feed(&p, copy, 1, &ev, &used) != -EBADMSG)
                                        res->error = 1;
                                return;
                        }
                        if (ev.type == WS_EVENT_NONE) {
                                if (used == 0)
                                        break;
                                continue;
                        }
                        if (ev.type == WS_EVENT_DATA) {
                                memcpy(res->data + res->n_data, ev.data, ev.size);
                                res->n_data += ev.size;
                                if (ne == 0 || res->events[ne - 1] != 'D')
                                        res->events[ne++] = 'D';
                        } else if (ev.type == WS_EVENT_PING) {
                                memcpy(res->ping, ev.data, ev.size);
                                res->n_ping = ev.size;
                                res->events[ne++] = 'P';
                        } else if (ev.type == WS_EVENT_PONG)
                                res->events[ne++] = 'O';
                        else if (ev.type == WS_EVENT_CLOSE) {
                                res->close_code = ev.code;
                                snprintf(res->reason, sizeof res->reason, "%s", ev.reason);
                                res->events[ne++] = 'C';
                        }
                }
        }
}

/* The same verdict in every chunking. */
static void expect_error(const char *what, const struct buf *in, uint16_t code) {
        struct result r;

        for (int mode = CHUNK_WHOLE; mode <= CHUNK_RANDOM; mode++) {
                run(in, mode, 7, 1 << 20, &r);
                if (!tap_ok(r.error == code, "%s: close %u (%s)", what, code,
                            mode == CHUNK_WHOLE ? "whole" : mode == CHUNK_BYTES ? "byte by byte" : "random chunks"))
                        printf("#   got close code %u\n", r.error);
        }
}

static void test_accept_key(void) {
        char out[WS_ACCEPT_LEN + 1];

        /* The example of RFC 6455 section 1.3. */
        TAP_EQ_INT(ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", out), 0, "the RFC's sample key is accepted");
        TAP_EQ_STR(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "its accept value is the RFC's");
        TAP_EQ_INT(ws_accept_key("dGhlIHNhbXBsZSBub25jZQ=", out), -EINVAL, "a key that is not 24 characters is refused");
        TAP_EQ_INT(ws_accept_key("dGhlIHNhbXBsZSBub25jZ!==", out), -EINVAL, "a key that is not base64 is refused");
        TAP_EQ_INT(ws_accept_key("dGhlIHNhbXBsZSBub25jZXh4", out), -EINVAL, "a key of 18 bytes is refused");
}

static void test_fragmented_with_control(void) {
        struct buf b = {};
        struct result r;
        const char *modes[] = { "whole", "byte by byte", "random chunks" };

        /* binary "hel" (not fin), ping "p", pong, continuation "lo" (not fin), continuation "!" fin, close 1000 "bye" */
        fr(&b, WS_OP_BINARY, "hel", 3);
        fr(&b, 0x80 | WS_OP_PING, "p1", 2);
        fr(&b, 0x80 | WS_OP_PONG, "", 0);
        fr(&b, WS_OP_CONTINUATION, "lo", 2);
        fr(&b, WS_OP_CONTINUATION, "", 0);
        fr(&b, 0x80 | WS_OP_CONTINUATION, "!", 1);
        fr(&b, 0x80 | WS_OP_BINARY, "", 0);
        fr(&b, 0x80 | WS_OP_CLOSE, "\x03\xe8" "bye", 5);

        for (int mode = CHUNK_WHOLE; mode <= CHUNK_RANDOM; mode++)
                for (unsigned seed = 1; seed <= (mode == CHUNK_RANDOM ? 20u : 1u); seed++) {
                        run(&b, mode, seed, 1 << 20, &r);
                        if (seed > 1 && r.error == 0 && r.n_data == 6 && memcmp(r.data, "hello!", 6) == 0 &&
                            r.close_code == 1000)
                                continue; /* one line for all the random seeds that pass */
                        tap_ok(r.error == 0, "%s: a fragmented message with control frames between is valid", modes[mode]);
                        tap_ok(r.n_data == 6 && memcmp(r.data, "hello!", 6) == 0,
                               "%s: the payload is unmasked and whole across fragments", modes[mode]);
                        TAP_EQ_STR(r.events, "DPODC",
                                   "%s: data, ping, pong, data, close, in order", modes[mode]);
                        tap_ok(r.n_ping == 2 && memcmp(r.ping, "p1", 2) == 0, "%s: the ping's payload is handed out",
                               modes[mode]);
                        TAP_EQ_INT(r.close_code, 1000, "%s: the close code is read", modes[mode]);
                        TAP_EQ_STR(r.reason, "bye", "%s: the close reason is read", modes[mode]);
                }
}

static void test_lengths(void) {
        static uint8_t payload[70000];
        struct buf *b = calloc(1, sizeof *b + 0);
        struct result r;
        uint8_t h[WS_HEADER_MAX];

        for (size_t i = 0; i < sizeof payload; i++)
                payload[i] = (uint8_t) (i * 7);
        /* 16-bit length (300) then a 64-bit one (65000 fits 16 bits: use the 64-bit form via claimed > 0xffff below). */
        fr(b, 0x80 | WS_OP_BINARY, payload, 300);
        run(b, CHUNK_RANDOM, 3, 1 << 20, &r);
        tap_ok(r.error == 0 && r.n_data == 300 && memcmp(r.data, payload, 300) == 0,
               "a frame with a 16-bit length is read whole");

        b->n = 0;
        fr(b, 0x80 | WS_OP_BINARY, payload, 300);
        run(b, CHUNK_WHOLE, 0, 300, &r);
        TAP_EQ_INT(r.error, 0, "a frame exactly at the limit is accepted");
        run(b, CHUNK_WHOLE, 0, 299, &r);
        TAP_EQ_INT(r.error, WS_CLOSE_TOO_BIG, "a frame one byte over the limit gets 1009");

        b->n = 0;
        frame(b, 0x80 | WS_OP_BINARY, true, payload, 0, 1ULL << 40);
        run(b, CHUNK_BYTES, 0, 1 << 20, &r);
        TAP_EQ_INT(r.error, WS_CLOSE_TOO_BIG, "a 64-bit length of 1 TiB gets 1009 before any payload");
        b->n = 0;
        frame(b, 0x80 | WS_OP_BINARY, true, payload, 0, 1ULL << 63);
        run(b, CHUNK_WHOLE, 0, 1 << 20, &r);
        TAP_EQ_INT(r.error, WS_CLOSE_PROTOCOL, "a 64-bit length with its top bit set gets 1002");

        TAP_EQ_INT(ws_frame_header(WS_OP_BINARY, 125, h), 2, "a server frame of 125 bytes has a 2-byte header");
        TAP_EQ_INT(ws_frame_header(WS_OP_BINARY, 126, h), 4, "126 bytes: a 4-byte header");
        tap_ok(h[0] == 0x82 && h[1] == 126 && h[2] == 0 && h[3] == 126, "the 16-bit length is big-endian, FIN set, unmasked");
        TAP_EQ_INT(ws_frame_header(WS_OP_BINARY, 65535, h), 4, "65535 bytes: a 4-byte header");
        TAP_EQ_INT(ws_frame_header(WS_OP_BINARY, 65536, h), 10, "65536 bytes: a 10-byte header");
        tap_ok(h[1] == 127 && h[7] == 1 && h[8] == 0 && h[9] == 0, "the 64-bit length is big-endian");
        free(b);
}

static void test_refusals(void) {
        struct buf b;

#define ONE(what, code, ...) do { b.n = 0; __VA_ARGS__; expect_error(what, &b, code); } while (0)
        ONE("an unmasked client frame", WS_CLOSE_PROTOCOL, frame(&b, 0x82, false, "x", 1, 1));
        ONE("RSV1 without an extension", WS_CLOSE_PROTOCOL, fr(&b, 0xc2, "x", 1));
        ONE("RSV3 without an extension", WS_CLOSE_PROTOCOL, fr(&b, 0x92, "x", 1));
        ONE("opcode 3 (reserved data)", WS_CLOSE_PROTOCOL, fr(&b, 0x83, "x", 1));
        ONE("opcode 0xB (reserved control)", WS_CLOSE_PROTOCOL, fr(&b, 0x8b, "x", 1));
        ONE("a continuation with no message open", WS_CLOSE_PROTOCOL, fr(&b, 0x80, "x", 1));
        ONE("a binary frame inside a fragmented message", WS_CLOSE_PROTOCOL,
            fr(&b, WS_OP_BINARY, "a", 1); fr(&b, 0x82, "b", 1));
        ONE("a fragmented ping", WS_CLOSE_PROTOCOL, fr(&b, WS_OP_PING, "x", 1));
        ONE("a ping of 126 bytes", WS_CLOSE_PROTOCOL, frame(&b, 0x89, true, (uint8_t[126]) {}, 126, 126));
        ONE("a close frame of one byte", WS_CLOSE_PROTOCOL, fr(&b, 0x88, "\x03", 1));
        ONE("close code 1005 on the wire", WS_CLOSE_PROTOCOL, fr(&b, 0x88, "\x03\xed", 2));
        ONE("close code 999", WS_CLOSE_PROTOCOL, fr(&b, 0x88, "\x03\xe7", 2));
        ONE("close code 2000", WS_CLOSE_PROTOCOL, fr(&b, 0x88, "\x07\xd0", 2));
        ONE("a close reason that is not UTF-8", WS_CLOSE_INVALID_PAYLOAD, fr(&b, 0x88, "\x03\xe8\xc3\x28", 4));
        ONE("a close reason with a UTF-16 surrogate", WS_CLOSE_INVALID_PAYLOAD, fr(&b, 0x88, "\x03\xe8\xed\xa0\x80", 5));
        ONE("a text message", WS_CLOSE_UNSUPPORTED, fr(&b, 0x81, "hi", 2));
        ONE("a ping in a message, then a text frame", WS_CLOSE_PROTOCOL,
            fr(&b, WS_OP_BINARY, "a", 1); fr(&b, 0x89, "", 0); fr(&b, 0x81, "b", 1));
#undef ONE
}

static void test_close_forms(void) {
        struct buf b = {};
        struct result r;
        uint8_t out[2 + WS_CONTROL_MAX];
        char longr[200];
        size_t n;

        fr(&b, 0x88, "", 0);
        run(&b, CHUNK_BYTES, 0, 1 << 20, &r);
        TAP_EQ_INT(r.close_code, WS_CLOSE_NO_STATUS, "an empty close frame reads as 1005 (no status)");
        b.n = 0;
        fr(&b, 0x88, "\x0f\xa1" "desktop stopped", 17);
        fr(&b, 0x82, "ignored", 7);
        run(&b, CHUNK_WHOLE, 0, 1 << 20, &r);
        tap_ok(r.error == 0 && r.close_code == 4001 && r.n_data == 0, "a private code is accepted; nothing after a close is read");
        b.n = 0;
        fr(&b, 0x88, "\x03\xe8" "caf\xc3\xa9", 7);
        run(&b, CHUNK_BYTES, 0, 1 << 20, &r);
        TAP_EQ_STR(r.reason, "caf\xc3\xa9", "a UTF-8 close reason is kept");

        n = ws_close_frame(4001, "desktop stopped", out);
        tap_ok(n == 19 && out[0] == 0x88 && out[1] == 17 && out[2] == 0x0f && out[3] == 0xa1 &&
               memcmp(out + 4, "desktop stopped", 15) == 0, "a server close frame: FIN, opcode 8, code, reason");
        memset(longr, 'a', sizeof longr);
        longr[122] = (char) 0xc3; /* a two-byte character across the 123-byte limit */
        longr[123] = (char) 0xa9;
        longr[199] = 0;
        n = ws_close_frame(1000, longr, out);
        tap_ok(n == 4 + 122 && utf8_valid(out + 4, n - 4), "a long reason is cut to fit, never inside a character");

        tap_ok(utf8_valid((const uint8_t *) "\xf0\x9f\x96\xa5", 4), "UTF-8: a four-byte character is valid");
        tap_ok(!utf8_valid((const uint8_t *) "\xc0\x80", 2), "UTF-8: an overlong NUL is not");
        tap_ok(!utf8_valid((const uint8_t *) "\xf4\x90\x80\x80", 4), "UTF-8: above U+10FFFF is not");
        tap_ok(!utf8_valid((const uint8_t *) "\xe2\x82", 2), "UTF-8: a truncated sequence is not");
}

/* A text endpoint's messages, whole, each ended by the event that says so: "msg1|msg2|" with the error code. */
static void messages(const struct buf *in, bool byte_by_byte, char *out, size_t out_size, uint16_t *ret_error) {
        static uint8_t copy[BIG];
        struct ws_parser p;
        size_t at = 0, n = 0;

        memcpy(copy, in->d, in->n);
        *ret_error = 0;
        out[0] = 0;
        ws_parser_init_text(&p, 1 << 20);
        while (at < in->n) {
                struct ws_event ev;
                size_t used, give = byte_by_byte ? 1 : in->n - at;

                if (ws_parser_feed(&p, copy + at, give, &ev, &used) < 0) {
                        *ret_error = ws_parser_error(&p, NULL);
                        return;
                }
                at += used;
                if (ev.type != WS_EVENT_DATA)
                        continue;
                if (n + ev.size + 2 > out_size)
                        return;
                memcpy(out + n, ev.data, ev.size);
                n += ev.size;
                if (ev.end)
                        out[n++] = '|';
                out[n] = 0;
        }
}

static void test_text_endpoint(void) {
        struct buf b = {};
        char got[256];
        uint16_t err;

        fr(&b, 0x80 | WS_OP_TEXT, "{\"id\":1}", 8);
        fr(&b, WS_OP_TEXT, "{\"id\"", 5);
        fr(&b, 0x80 | WS_OP_PING, "p", 1);
        fr(&b, WS_OP_CONTINUATION, ":2}", 3);
        fr(&b, 0x80 | WS_OP_CONTINUATION, "", 0);
        fr(&b, 0x80 | WS_OP_TEXT, "x", 1);
        for (int bytes = 0; bytes <= 1; bytes++) {
                messages(&b, bytes, got, sizeof got, &err);
                tap_ok(err == 0 && streq(got, "{\"id\":1}|{\"id\":2}|x|"),
                       "a text endpoint: each message whole, its end said, an empty last fragment included (%s)",
                       bytes ? "byte by byte" : "whole");
                if (err || !streq(got, "{\"id\":1}|{\"id\":2}|x|"))
                        printf("#   got \"%s\", error %u\n", got, err);
        }

        b.n = 0;
        fr(&b, 0x80 | WS_OP_BINARY, "hi", 2);
        messages(&b, false, got, sizeof got, &err);
        TAP_EQ_INT(err, WS_CLOSE_UNSUPPORTED, "a text endpoint refuses a binary message (1003)");
}

int main(void) {
        test_accept_key();
        test_text_endpoint();
        test_fragmented_with_control();
        test_lengths();
        test_refusals();
        test_close_forms();
        return tap_done();
}
