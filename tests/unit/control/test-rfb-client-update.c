/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's RFB session after the handshake (rfb-client-update.h): the
 * requests byte for byte, and the reader painting Raw and CopyRect into a
 * framebuffer from messages fed whole and a byte at a time, with every
 * count past the limits or outside the framebuffer refused.
 */
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rfb-bytes.h"
#include "rfb-client-update.h"

static void update(struct bytes *b, uint16_t rects) {
        add(b, "\x00\x00", 2);
        add16(b, rects);
}

static void rect(struct bytes *b, uint16_t x, uint16_t y, uint16_t w, uint16_t h, int32_t encoding) {
        add16(b, x);
        add16(b, y);
        add16(b, w);
        add16(b, h);
        add32(b, (uint32_t) encoding);
}

static void pixel(struct bytes *b, uint32_t rgb) {
        add(b, (uint8_t[]) { (uint8_t) rgb, (uint8_t) (rgb >> 8), (uint8_t) (rgb >> 16), 0 }, 4);
}

/* Feeds b into a fresh 4x3 framebuffer (whole, or a byte at a time): the last result. */
static ssize_t feed(const struct bytes *b, bool bytewise, struct rfb_framebuffer *fb, struct rfb_update_reader *rd) {
        ssize_t r = 0;

        if (rfb_framebuffer_init(fb, 4, 3) < 0)
                abort();
        rfb_update_reader_init(rd);
        for (size_t off = 0; off < b->n; off += bytewise ? 1 : b->n) {
                r = rfb_update_feed(rd, fb, b->d + off, bytewise ? 1 : b->n);
                if (r < 0)
                        return r;
        }
        return r;
}

static ssize_t feed_error(const struct bytes *b) {
        struct rfb_framebuffer fb;
        struct rfb_update_reader rd;
        ssize_t r = feed(b, false, &fb, &rd);

        rfb_framebuffer_done(&fb);
        return r;
}

int main(void) {
        static const uint8_t want_format[20] = { 0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0 };
        static const uint8_t want_encodings[12] = { 2, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0 };
        static const uint8_t want_request[10] = { 3, 1, 0, 0, 0, 0, 3, 0x20, 2, 0x58 };
        struct rfb_framebuffer fb;
        struct rfb_update_reader rd;
        struct bytes b = {};
        uint8_t out[20];

        tap_ok(rfb_request_pixel_format(out) == 20 && memcmp(out, want_format, 20) == 0,
               "SetPixelFormat: 32 bpp, depth 24, little endian, true colour, shifts 16/8/0");
        tap_ok(rfb_request_encodings(out) == 12 && memcmp(out, want_encodings, 12) == 0, "SetEncodings: CopyRect, Raw");
        tap_ok(rfb_request_update(true, 0, 0, 800, 600, out) == 10 && memcmp(out, want_request, 10) == 0,
               "FramebufferUpdateRequest: incremental, 800x600");

        /* An update of a Raw 2x2 and a CopyRect, a bell, a cut text drained, an empty update. */
        update(&b, 2);
        rect(&b, 1, 1, 2, 2, RFB_ENCODING_RAW);
        pixel(&b, 0x112233);
        pixel(&b, 0x445566);
        pixel(&b, 0x778899);
        pixel(&b, 0xaabbcc);
        rect(&b, 0, 0, 1, 1, RFB_ENCODING_COPYRECT);
        add16(&b, 2);
        add16(&b, 2);
        add(&b, "\x02", 1);
        add(&b, "\x03\x00\x00\x00", 4);
        add32(&b, 5);
        add(&b, "hello", 5);
        update(&b, 0);
        for (int bytewise = 0; bytewise < 2; bytewise++) {
                ssize_t r = feed(&b, bytewise, &fb, &rd);
                const char *how = bytewise ? "a byte at a time" : "whole";

                TAP_EQ_INT(r, bytewise ? 1 : (long long) b.n, "the messages are taken (%s)", how);
                tap_ok(fb.pixels[1 * 4 + 1] == 0x112233 && fb.pixels[1 * 4 + 2] == 0x445566 &&
                       fb.pixels[2 * 4 + 1] == 0x778899 && fb.pixels[2 * 4 + 2] == 0xaabbcc,
                       "... Raw painted the 2x2 at (1,1) in RGB (%s)", how);
                TAP_EQ_INT(fb.pixels[0], 0xaabbcc, "... CopyRect copied (2,2) to (0,0) (%s)", how);
                TAP_EQ_INT(fb.pixels[3], 0, "... and nothing else changed (%s)", how);
                tap_ok(rd.updates == 2 && rd.bells == 1, "... two updates, a bell, the cut text drained (%s)", how);
                rfb_framebuffer_done(&fb);
        }

        /* A CopyRect onto rows it reads from: a scroll down by one. */
        b = (struct bytes) {};
        update(&b, 2);
        rect(&b, 0, 0, 1, 2, RFB_ENCODING_RAW);
        pixel(&b, 0x000001);
        pixel(&b, 0x000002);
        rect(&b, 0, 1, 1, 2, RFB_ENCODING_COPYRECT);
        add16(&b, 0);
        add16(&b, 0);
        feed(&b, false, &fb, &rd);
        tap_ok(fb.pixels[0] == 1 && fb.pixels[4] == 1 && fb.pixels[8] == 2, "an overlapping CopyRect moves rows as a scroll does");
        rfb_framebuffer_done(&fb);

        /* Refused. */
        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 3, 0, 2, 1, RFB_ENCODING_RAW);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "a rectangle past the framebuffer's edge: -EPROTO");
        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 0, 0, 1, 1, 16);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "an encoding not asked for (ZRLE): -EPROTO");
        b = (struct bytes) {};
        update(&b, 5000);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "5000 rectangles in one update: -EPROTO");
        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 0, 0, 2, 2, RFB_ENCODING_COPYRECT);
        add16(&b, 3);
        add16(&b, 0);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "a CopyRect from outside the framebuffer: -EPROTO");
        b = (struct bytes) {};
        add(&b, "\x03\x00\x00\x00", 4);
        add32(&b, 300u * 1024u);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "cut text of 300 KiB: -EPROTO before it is read");
        b = (struct bytes) {};
        add(&b, "\x01\x00\x00\x00\x00\x01", 6);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "a colour map (never asked for): -EPROTO");
        b = (struct bytes) {};
        add(&b, "\x09", 1);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "an unknown message type: -EPROTO");
        return tap_done();
}
