/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "rfb-filter.h"

#define MAX_CUT 262144

/* ---- building streams ---------------------------------------------------------------------- */

struct buf {
        uint8_t data[8192];
        size_t n;
};

/* A client stream and what the server must receive from it, with input
 * allowed and without. */
struct stream {
        struct buf in, all, noinput;
};

static void buf_add(struct buf *b, const void *p, size_t n) {
        if (b->n + n > sizeof b->data)
                abort();
        memcpy(b->data + b->n, p, n);
        b->n += n;
}

/* One message: sent as is, and forwarded as expected (or not at all, when it is input and input is off). */
static void msg(struct stream *s, bool input, const void *p, size_t n) {
        buf_add(&s->in, p, n);
        buf_add(&s->all, p, n);
        if (!input)
                buf_add(&s->noinput, p, n);
}

/* A message that the filter rewrites on its way. */
static void msg_rewritten(struct stream *s, const void *p, const void *want, size_t n) {
        buf_add(&s->in, p, n);
        buf_add(&s->all, want, n);
        buf_add(&s->noinput, want, n);
}

#define MSG(s, input, ...)                                                  \
        do {                                                                \
                const uint8_t _m[] = { __VA_ARGS__ };                       \
                msg((s), (input), _m, sizeof _m);                           \
        } while (0)

static void handshake(struct stream *s, char minor) {
        char version[] = "RFB 003.008\n";
        const uint8_t shared0 = 0, shared1 = 1;

        version[10] = minor;
        msg(s, false, version, 12);
        if (minor != '3')
                MSG(s, false, 1); /* security type None */
        msg_rewritten(s, &shared0, &shared1, 1);
}

/* What a TigerVNC or noVNC client sends in its first seconds, and a bit more. */
static void realistic(struct stream *s, char minor) {
        handshake(s, minor);
        /* SetPixelFormat: 32 bpp, depth 24, little endian, true colour, 255/255/255, shifts 16 8 0 */
        MSG(s, false, 0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0);
        /* SetEncodings: Tight, CopyRect, Raw, DesktopSize, ExtendedDesktopSize */
        MSG(s, false, 2, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21, 0xff, 0xff, 0xfe,
            0xcc);
        /* FramebufferUpdateRequest, full, 1440x900 */
        MSG(s, false, 3, 0, 0, 0, 0, 0, 0x05, 0xa0, 0x03, 0x84);
        /* KeyEvent 'a' down and up */
        MSG(s, true, 4, 1, 0, 0, 0, 0, 0, 0x61);
        MSG(s, true, 4, 0, 0, 0, 0, 0, 0, 0x61);
        /* PointerEvent: move to 100,200, press and release button 1 */
        MSG(s, true, 5, 0, 0, 100, 0, 200);
        MSG(s, true, 5, 1, 0, 100, 0, 200);
        MSG(s, true, 5, 0, 0, 100, 0, 200);
        /* ClientCutText "hello" */
        MSG(s, true, 6, 0, 0, 0, 0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o');
        /* ClientFence: flags BlockBefore|BlockAfter|Request, 4 bytes payload */
        MSG(s, false, 248, 0, 0, 0, 0x80, 0, 0, 3, 4, 0xde, 0xad, 0xbe, 0xef);
        /* EnableContinuousUpdates on, whole screen */
        MSG(s, false, 150, 1, 0, 0, 0, 0, 0x05, 0xa0, 0x03, 0x84);
        /* SetDesktopSize 1280x800, one screen */
        MSG(s, true, 251, 0, 0x05, 0x00, 0x03, 0x20, 1, 0,
            0, 0, 0, 1, 0, 0, 0, 0, 0x05, 0x00, 0x03, 0x20, 0, 0, 0, 0);
        /* QEMU extended key event: 'a' (keycode 0x1e) down and up */
        MSG(s, true, 255, 0, 0, 1, 0, 0, 0, 0x61, 0, 0, 0, 0x1e);
        MSG(s, true, 255, 0, 0, 0, 0, 0, 0, 0x61, 0, 0, 0, 0x1e);
        /* Extended clipboard: caps (length -8: flags + one size) */
        MSG(s, true, 6, 0, 0, 0, 0xff, 0xff, 0xff, 0xf8, 0x01, 0x00, 0x00, 0x01, 0x00, 0x04, 0x00, 0x00);
        /* Zero-length payloads: empty cut text, empty fence, no screens, no encodings */
        MSG(s, true, 6, 0, 0, 0, 0, 0, 0, 0);
        MSG(s, false, 248, 0, 0, 0, 0, 0, 0, 0, 0);
        MSG(s, true, 251, 0, 0x05, 0x00, 0x03, 0x20, 0, 0);
        MSG(s, false, 2, 0, 0, 0);
        /* QEMU audio: enable, then set format (s16, 2 channels, 44100 Hz) */
        MSG(s, true, 255, 1, 0, 0);
        MSG(s, true, 255, 1, 0, 2, 3, 2, 0, 0, 0xac, 0x44);
        /* Incremental update request */
        MSG(s, false, 3, 1, 0, 0, 0, 0, 0x05, 0xa0, 0x03, 0x84);
}

static const char *strnull_(const char *s) {
        return s ? s : "(null)";
}

/* ---- feeding ------------------------------------------------------------------------------- */

static uint64_t rng_state;

static uint32_t rng(void) {
        /* xorshift64*: fixed seeds, the same chunks on every run and machine */
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        return (uint32_t) ((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

enum chunking {
        WHOLE,
        BYTES,
        RANDOM,
};

/* Feed in with the chunking asked for; the output goes to out. Returns the
 * first error, or 0. */
static int feed(struct rfb_filter *f, const uint8_t *in, size_t n, enum chunking how, struct buf *out) {
        size_t i = 0;

        out->n = 0;
        while (i < n) {
                uint8_t tmp[RFB_FILTER_OUT_SIZE(sizeof out->data)];
                size_t k = how == WHOLE ? n - i : how == BYTES ? 1 : 1 + rng() % 37, got;
                int r;

                if (k > n - i)
                        k = n - i;
                r = rfb_filter_feed(f, in + i, k, tmp, sizeof tmp, &got);
                buf_add(out, tmp, got);
                if (r < 0)
                        return r;
                i += k;
        }
        return 0;
}

static bool same(const struct buf *got, const struct buf *want, const char *name) {
        size_t i;

        if (got->n == want->n && memcmp(got->data, want->data, got->n) == 0)
                return tap_ok(true, "%s", name);
        for (i = 0; i < got->n && i < want->n && got->data[i] == want->data[i]; i++)
                ;
        tap_ok(false, "%s", name);
        printf("#   got %zu bytes, want %zu; first difference at offset %zu\n", got->n, want->n, i);
        return false;
}

static void check_stream(const struct stream *s, bool input, enum chunking how, uint64_t seed, const char *what) {
        static struct buf out;
        struct rfb_filter f;
        char name[200];
        int r;

        rng_state = seed;
        rfb_filter_init(&f, MAX_CUT);
        f.allow_input = input;
        r = feed(&f, s->in.data, s->in.n, how, &out);
        snprintf(name, sizeof name, "%s, fed %s, with input %s, reaches the server %s", what,
                 how == WHOLE ? "whole" : how == BYTES ? "one byte at a time" : "in random chunks",
                 input ? "allowed" : "refused",
                 input ? "unchanged but for the shared flag" : "without its input messages");
        if (r < 0) {
                tap_ok(false, "%s", name);
                printf("#   the filter refused it: %s\n", strnull_(rfb_filter_error(&f)));
                return;
        }
        if (how == RANDOM)
                snprintf(name + strlen(name), sizeof name - strlen(name), " (seed %llu)", (unsigned long long) seed);
        same(&out, input ? &s->all : &s->noinput, name);
}

static void test_realistic(void) {
        static struct stream s38, s33, s37;

        realistic(&s38, '8');
        realistic(&s37, '7');
        realistic(&s33, '3');
        for (int input = 1; input >= 0; input--) {
                check_stream(&s38, input, WHOLE, 0, "a recorded 3.8 client stream");
                check_stream(&s38, input, BYTES, 0, "a recorded 3.8 client stream");
                for (uint64_t seed = 1; seed <= 3; seed++)
                        check_stream(&s38, input, RANDOM, seed, "a recorded 3.8 client stream");
                check_stream(&s37, input, RANDOM, 4, "a 3.7 client stream");
                check_stream(&s33, input, WHOLE, 0, "a 3.3 client stream (no security byte)");
                check_stream(&s33, input, BYTES, 0, "a 3.3 client stream (no security byte)");
        }

        /* Many more seeds, reported once. */
        {
                static struct buf out;
                unsigned bad = 0;

                for (uint64_t seed = 10; seed < 210; seed++)
                        for (int input = 0; input <= 1; input++) {
                                struct rfb_filter f;
                                const struct buf *want = input ? &s38.all : &s38.noinput;

                                rng_state = seed;
                                rfb_filter_init(&f, MAX_CUT);
                                f.allow_input = input;
                                if (feed(&f, s38.in.data, s38.in.n, RANDOM, &out) < 0 || out.n != want->n ||
                                    memcmp(out.data, want->data, out.n) != 0)
                                        bad++;
                        }
                if (!tap_ok(bad == 0, "200 random chunkings of the 3.8 stream, with and without input, all frame alike"))
                        printf("#   %u of 400 runs differ\n", bad);
        }
}

/* ---- counters, boundaries ------------------------------------------------------------------ */

static void test_counters(void) {
        static struct stream s;
        static struct buf out;
        struct rfb_filter f;

        realistic(&s, '8');
        rfb_filter_init(&f, MAX_CUT);
        if (!tap_ok(feed(&f, s.in.data, s.in.n, WHOLE, &out) == 0 && f.input_dropped == 14 &&
                            f.input_forwarded == 0 && f.messages == 22,
                    "without input, the filter counts 14 dropped input messages of 22"))
                printf("#   dropped %llu, forwarded %llu, messages %llu\n", (unsigned long long) f.input_dropped,
               (unsigned long long) f.input_forwarded, (unsigned long long) f.messages);
        tap_ok(rfb_filter_at_boundary(&f), "after a whole stream the filter is at a message boundary");
}

/* ---- refusals ------------------------------------------------------------------------------ */

/* Feeds the handshake and then tail; expects a refusal whose message contains
 * want_error, and no byte of tail forwarded. */
static void check_refused(const uint8_t *tail, size_t n, uint32_t max_cut, const char *want_error,
                          const char *name) {
        static struct stream s;
        static struct buf in, out;
        struct rfb_filter f;
        int r;

        for (int how = WHOLE; how <= BYTES; how++) {
                memset(&s, 0, sizeof s);
                handshake(&s, '8');
                in = s.in;
                buf_add(&in, tail, n);
                rfb_filter_init(&f, max_cut);
                f.allow_input = true;
                r = feed(&f, in.data, in.n, how, &out);
                if (!tap_ok(r == -EBADMSG && rfb_filter_error(&f) && strstr(rfb_filter_error(&f), want_error) &&
                                    out.n == s.all.n && memcmp(out.data, s.all.data, out.n) == 0,
                            "%s (fed %s)", name, how == WHOLE ? "whole" : "one byte at a time"))
                        printf("#   returned %d, error \"%s\", forwarded %zu bytes (want %zu)\n", r,
                               strnull_(rfb_filter_error(&f)), out.n, s.all.n);
        }
}

#define REFUSED(max, want, name, ...)                                         \
        do {                                                                  \
                const uint8_t _t[] = { __VA_ARGS__ };                         \
                check_refused(_t, sizeof _t, (max), (want), (name));          \
        } while (0)

static void test_refusals(void) {
        struct rfb_filter f;
        uint8_t out[64];
        size_t got;
        int r;

        REFUSED(MAX_CUT, "unknown client message type 7", "an unknown message type closes the stream", 7, 0, 0, 0);
        REFUSED(MAX_CUT, "unknown client message type 1", "FixColourMapEntries (a server's message) closes the stream",
                1, 0, 0, 0, 0, 0);
        REFUSED(MAX_CUT, "type 253", "gii (253) is not framed and closes the stream", 253, 0, 0, 4);
        REFUSED(16, "cut text of 17 bytes", "cut text one byte over max_cut_text closes the stream before its head",
                6, 0, 0, 0, 0, 0, 0, 17);
        REFUSED(MAX_CUT, "cut text of 2147483647", "cut text of 2 GiB closes the stream",
                6, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff);
        REFUSED(16, "cut text of 17 bytes", "extended cut text over max_cut_text (length -17) closes the stream",
                6, 0, 0, 0, 0xff, 0xff, 0xff, 0xef);
        REFUSED(MAX_CUT, "cut text of 2147483648", "a cut text length of INT32_MIN closes the stream",
                6, 0, 0, 0, 0x80, 0, 0, 0);
        REFUSED(MAX_CUT, "fence payload of 65", "a fence payload over 64 bytes closes the stream",
                248, 0, 0, 0, 0, 0, 0, 0, 65);
        REFUSED(MAX_CUT, "unknown QEMU client message 2", "an unknown QEMU sub-message closes the stream", 255, 2);
        REFUSED(MAX_CUT, "unknown QEMU audio operation 3", "an unknown QEMU audio operation closes the stream",
                255, 1, 0, 3);

        /* Handshake refusals. */
        rfb_filter_init(&f, MAX_CUT);
        r = rfb_filter_feed(&f, "RFB 003.005\n", 12, out, sizeof out, &got);
        tap_ok(r == -EBADMSG && got == 0, "an unsupported protocol version (3.5) closes the stream, nothing forwarded");
        rfb_filter_init(&f, MAX_CUT);
        r = rfb_filter_feed(&f, "GET / HTTP/1.1\r\n", 16, out, sizeof out, &got);
        tap_ok(r == -EBADMSG && got == 0, "an HTTP request instead of RFB closes the stream, nothing forwarded");
        rfb_filter_init(&f, MAX_CUT);
        r = rfb_filter_feed(&f, "RFB 003.008\n\x13", 13, out, sizeof out, &got);
        tap_ok(r == -EBADMSG && got == 12 && strstr(strnull_(rfb_filter_error(&f)), "security type 19"),
               "a security type the filter cannot follow (VeNCrypt) closes the stream after the version");
        r = rfb_filter_feed(&f, "\x01", 1, out, sizeof out, &got);
        tap_ok(r == -EBADMSG && got == 0, "a closed filter refuses everything after");

        rfb_filter_init(&f, MAX_CUT);
        r = rfb_filter_feed(&f, "RFB 003.008\n", 12, out, 12 + RFB_FILTER_HOLD_MAX - 1, &got);
        tap_ok(r == -ENOBUFS && got == 0, "an output buffer smaller than RFB_FILTER_OUT_SIZE(n) is refused");
        r = rfb_filter_feed(&f, "RFB 003.008\n", 12, out, sizeof out, &got);
        tap_ok(r == 0 && got == 12, "... and nothing was consumed by the refused call");
}

static void test_max_cut_text_exact(void) {
        static struct stream s;
        static struct buf out;
        struct rfb_filter f;
        uint8_t text[8 + 16] = { 6, 0, 0, 0, 0, 0, 0, 16 };
        uint8_t ext[8 + 16] = { 6, 0, 0, 0, 0xff, 0xff, 0xff, 0xf0 };

        handshake(&s, '8');
        msg(&s, true, text, sizeof text);
        msg(&s, true, ext, sizeof ext);
        rfb_filter_init(&f, 16);
        f.allow_input = true;
        tap_ok(feed(&f, s.in.data, s.in.n, BYTES, &out) == 0 && out.n == s.all.n &&
               memcmp(out.data, s.all.data, out.n) == 0,
               "cut text of exactly max_cut_text bytes, plain and extended, passes");
}

/* ---- the handshake ------------------------------------------------------------------------- */

static void test_handshake(void) {
        static struct stream s;
        static struct buf out;
        struct rfb_filter f;
        uint8_t auth[16];
        const uint8_t shared7 = 7, shared1 = 1;

        /* VncAuth: the 16-byte response passes untouched. */
        for (unsigned i = 0; i < sizeof auth; i++)
                auth[i] = (uint8_t) (0xa0 + i);
        msg(&s, false, "RFB 003.008\n", 12);
        MSG(&s, false, 2);
        msg(&s, false, auth, sizeof auth);
        msg_rewritten(&s, &shared7, &shared1, 1);
        MSG(&s, true, 5, 0, 0, 1, 0, 2);
        rfb_filter_init(&f, MAX_CUT);
        tap_ok(feed(&f, s.in.data, s.in.n, BYTES, &out) == 0 && out.n == s.noinput.n &&
               memcmp(out.data, s.noinput.data, out.n) == 0,
               "VncAuth's 16-byte response passes and a shared flag of 7 is forwarded as 1");

        /* The 16 response bytes are not read as messages: 4 there is no KeyEvent. */
        memset(&s, 0, sizeof s);
        memset(auth, 4, sizeof auth);
        msg(&s, false, "RFB 003.007\n", 12);
        MSG(&s, false, 2);
        msg(&s, false, auth, sizeof auth);
        MSG(&s, false, 1);
        rfb_filter_init(&f, MAX_CUT);
        tap_ok(feed(&f, s.in.data, s.in.n, WHOLE, &out) == 0 && out.n == s.noinput.n && f.input_dropped == 0,
               "bytes of a VncAuth response that look like KeyEvents are not framed as messages");
}

/* ---- the ExtendedMouseButtons rewrite ------------------------------------------------------ */

static void test_extended_mouse_buttons(void) {
        static struct stream s;
        static struct buf out;
        struct rfb_filter f;
        const uint8_t enc[] = { 2, 0, 0, 3, 0, 0, 0, 7, 0xff, 0xff, 0xfe, 0xc4, 0xff, 0xff, 0xff, 0x21 };
        const uint8_t want[] = { 2, 0, 0, 3, 0, 0, 0, 7, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21 };

        handshake(&s, '8');
        msg_rewritten(&s, enc, want, sizeof enc);
        /* Button 8 (bit 7): still a 6-byte PointerEvent for the server. */
        MSG(&s, true, 5, 0x80, 0, 10, 0, 20);
        MSG(&s, true, 5, 0x80, 0, 11, 0, 21);
        MSG(&s, false, 3, 1, 0, 0, 0, 0, 0, 10, 0, 10);
        for (int how = WHOLE; how <= BYTES; how++) {
                rfb_filter_init(&f, MAX_CUT);
                f.allow_input = true;
                tap_ok(feed(&f, s.in.data, s.in.n, how, &out) == 0 && out.n == s.all.n &&
                       memcmp(out.data, s.all.data, out.n) == 0,
                       "the ExtendedMouseButtons pseudo-encoding is replaced by Raw, so PointerEvents stay 6 bytes (%s)",
                       how == WHOLE ? "whole" : "byte by byte");
        }
}

/* ---- allow_input flipped mid-stream -------------------------------------------------------- */

static void test_flip(void) {
        static struct stream s;
        static struct buf want, out;
        struct rfb_filter f;
        const uint8_t ptr[3][6] = {
                { 5, 0, 0, 1, 0, 1 },
                { 5, 0, 0, 2, 0, 2 },
                { 5, 0, 0, 3, 0, 3 },
        };
        const uint8_t cut[8 + 4] = { 6, 0, 0, 0, 0, 0, 0, 4, 'a', 'b', 'c', 'd' };
        uint8_t tmp[64];
        size_t got;
        bool ok = true;

        handshake(&s, '8');
        rfb_filter_init(&f, MAX_CUT);
        out.n = 0;
        for (size_t i = 0; i < s.in.n; i++) {
                if (rfb_filter_feed(&f, s.in.data + i, 1, tmp, sizeof tmp, &got) < 0)
                        ok = false;
                buf_add(&out, tmp, got);
        }
        want = s.all;

        /* Message 0 starts refused; input is allowed after its third byte,
         * before it is complete: it passes. Message 1 passes too. */
        for (size_t i = 0; i < 6; i++) {
                if (i == 3)
                        f.allow_input = true;
                ok &= rfb_filter_feed(&f, ptr[0] + i, 1, tmp, sizeof tmp, &got) == 0;
                buf_add(&out, tmp, got);
        }
        buf_add(&want, ptr[0], 6);
        for (size_t i = 0; i < 6; i++) {
                ok &= rfb_filter_feed(&f, ptr[1] + i, 1, tmp, sizeof tmp, &got) == 0;
                buf_add(&out, tmp, got);
        }
        buf_add(&want, ptr[1], 6);
        /* Message 2 starts allowed; input is refused after its first byte:
         * complete only after that, it is dropped. */
        for (size_t i = 0; i < 6; i++) {
                ok &= rfb_filter_feed(&f, ptr[2] + i, 1, tmp, sizeof tmp, &got) == 0;
                if (i == 0)
                        f.allow_input = false;
                buf_add(&out, tmp, got);
        }
        /* Cut text: refused when its head completes, allowed during its payload: dropped whole. */
        for (size_t i = 0; i < sizeof cut; i++) {
                if (i == 9)
                        f.allow_input = true;
                ok &= rfb_filter_feed(&f, cut + i, 1, tmp, sizeof tmp, &got) == 0;
                buf_add(&out, tmp, got);
        }
        tap_ok(ok, "flipping allow_input mid-stream never breaks the framing");
        same(&out, &want, "allow_input flipped inside a message applies as it is when the message's head completes");
}

/* ---- the lease flipped between every byte of an input message -------------------------------- */

struct input_case {
        const char *name;
        uint8_t bytes[32];
        size_t n;
        size_t head;            /* the fixed part: where the verdict falls */
};

static const struct input_case input_cases[] = {
        { "KeyEvent", { 4, 1, 0, 0, 0, 0, 0, 0x61 }, 8, 8 },
        { "PointerEvent", { 5, 1, 0, 100, 0, 200 }, 6, 6 },
        { "QEMU extended key event", { 255, 0, 0, 1, 0, 0, 0, 0x61, 0, 0, 0, 0x1e }, 12, 12 },
        { "QEMU audio set format", { 255, 1, 0, 2, 3, 2, 0, 0, 0xac, 0x44 }, 10, 10 },
        { "ClientCutText", { 6, 0, 0, 0, 0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o' }, 13, 8 },
        { "extended clipboard", { 6, 0, 0, 0, 0xff, 0xff, 0xff, 0xfc, 1, 0, 0, 1 }, 12, 8 },
        { "SetDesktopSize", { 251, 0, 0x05, 0x00, 0x03, 0x20, 1, 0,
                              0, 0, 0, 1, 0, 0, 0, 0, 0x05, 0x00, 0x03, 0x20, 0, 0, 0, 0 }, 24, 8 },
};

/* Allowed while feeding byte i of the message? pattern 0: revoked from byte
 * j on; 1: granted from byte j on; 2: alternating, starting allowed; 3:
 * alternating, starting refused. */
static bool lease_at(unsigned pattern, size_t j, size_t i) {
        switch (pattern) {
        case 0:
                return i < j;
        case 1:
                return i >= j;
        case 2:
                return i % 2 == 0;
        default:
                return i % 2 == 1;
        }
}

/*
 * The rule, stated without the filter's code: an input message reaches the
 * server only if the lease allowed it when its fixed part completed; a
 * message that passed and whose payload then meets a refused byte ends the
 * stream, and nothing of the payload after the revocation is forwarded.
 */
static void test_lease_flipped_every_byte(void) {
        static const uint8_t trailer[] = { 3, 1, 0, 0, 0, 0, 0x05, 0xa0, 0x03, 0x84 };
        bool all_ok = true, key_late = false;
        unsigned checks = 0;

        for (size_t c = 0; c < sizeof input_cases / sizeof input_cases[0]; c++) {
                const struct input_case *m = &input_cases[c];

                for (unsigned pattern = 0; pattern < 4; pattern++)
                        for (size_t j = 0; j <= (pattern < 2 ? m->n : 0); j++) {
                                static struct stream s;
                                static struct buf out, want;
                                struct rfb_filter f;
                                uint8_t tmp[64];
                                size_t got, stop = m->n;
                                bool pass, closed = false, ok = true;
                                int r = 0;

                                s = (struct stream) {};
                                handshake(&s, '8');
                                want = s.all;
                                rfb_filter_init(&f, MAX_CUT);
                                f.allow_input = true;
                                out.n = 0;
                                ok &= feed(&f, s.in.data, s.in.n, WHOLE, &out) == 0;

                                pass = lease_at(pattern, j, m->head - 1);
                                if (pass)
                                        for (size_t i = m->head; i < m->n; i++)
                                                if (!lease_at(pattern, j, i)) {
                                                        stop = i;
                                                        closed = true;
                                                        break;
                                                }
                                if (pass)
                                        buf_add(&want, m->bytes, stop);
                                if (!closed)
                                        buf_add(&want, trailer, sizeof trailer);

                                for (size_t i = 0; i < m->n && r == 0; i++) {
                                        f.allow_input = lease_at(pattern, j, i);
                                        r = rfb_filter_feed(&f, m->bytes + i, 1, tmp, sizeof tmp, &got);
                                        buf_add(&out, tmp, got);
                                }
                                for (size_t i = 0; i < sizeof trailer && r == 0; i++) {
                                        r = rfb_filter_feed(&f, trailer + i, 1, tmp, sizeof tmp, &got);
                                        buf_add(&out, tmp, got);
                                }
                                ok &= closed ? r == -EBADMSG : r == 0;
                                ok &= out.n == want.n && memcmp(out.data, want.data, out.n) == 0;
                                checks++;
                                if (!ok) {
                                        all_ok = false;
                                        printf("#   %s, pattern %u, flip at byte %zu: %s, %zu bytes out, want %zu%s\n",
                                               m->name, pattern, j, r == 0 ? "open" : "closed", out.n, want.n,
                                               closed ? " and closed" : "");
                                }
                                if (c == 0 && pattern == 0 && j == 7)
                                        key_late = ok;
                        }
        }
        tap_ok(key_late, "a KeyEvent whose last byte arrives after the lease was revoked does not reach the server");
        tap_ok(all_ok, "with the lease flipped between every byte of each input message (%u cases), an input "
               "message passes only if allowed when its head completes, and a payload revoked midway closes the stream",
               checks);
}

int main(void) {
        test_realistic();
        test_counters();
        test_refusals();
        test_max_cut_text_exact();
        test_handshake();
        test_extended_mouse_buttons();
        test_flip();
        test_lease_flipped_every_byte();
        return tap_done();
}
