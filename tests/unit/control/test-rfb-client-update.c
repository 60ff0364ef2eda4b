/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's RFB session after the handshake (rfb-client-update.h): the
 * requests byte for byte, and the reader painting Raw, CopyRect and ZRLE
 * into a framebuffer from messages fed whole and a byte at a time, with
 * every count past the limits or outside the framebuffer refused. ZRLE's
 * rectangles come from an encoder of the test's own (each subencoding from
 * a picture, deflated on one stream across the rectangles as a server
 * does), and the framebuffer must be that picture.
 */
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* next_in as a pointer to const, as the reader's own file has it. */
#define ZLIB_CONST
#include <zlib.h>

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

/* Feeds b into a fresh framebuffer of w x h (whole, or a byte at a time): the last result. */
static ssize_t feed_sized(const struct bytes *b, bool bytewise, struct rfb_framebuffer *fb,
                          struct rfb_update_reader *rd, uint16_t w, uint16_t h) {
        ssize_t r = 0;

        if (rfb_framebuffer_init(fb, w, h) < 0)
                abort();
        rfb_update_reader_init(rd);
        for (size_t off = 0; off < b->n; off += bytewise ? 1 : b->n) {
                r = rfb_update_feed(rd, fb, b->d + off, bytewise ? 1 : b->n);
                if (r < 0)
                        return r;
        }
        return r;
}

static ssize_t feed(const struct bytes *b, bool bytewise, struct rfb_framebuffer *fb, struct rfb_update_reader *rd) {
        return feed_sized(b, bytewise, fb, rd, 4, 3);
}

/* Fed whole: its result. */
static ssize_t feed_error(const struct bytes *b) {
        struct rfb_framebuffer fb;
        struct rfb_update_reader rd;
        ssize_t r = feed(b, false, &fb, &rd);

        rfb_update_reader_done(&rd);
        rfb_framebuffer_done(&fb);
        return r;
}

/* ---- ZRLE: an encoder of the test's own, a server's side of RFC 6143 7.7.6 ---- */

enum how { SOLID, RAW, PACKED, PLAIN_RLE, PALETTE_RLE };

struct kind {
        enum how how;
        unsigned colours;               /* PACKED and PALETTE_RLE: how many the picture has */
};

/* The pictures' framebuffer. */
#define FW 200u
#define FH 280u

/* Pixel i of a picture made for runs: five runs of 1, one of 256 (255, 0), one of 300 (255, 44), then 17s. */
static unsigned run_id(size_t i) {
        return i < 5 ? (unsigned) i : i < 261 ? 5 : i < 561 ? 6 : 7 + (unsigned) ((i - 561) / 17);
}

/* The picture a kind of tile is made for, painted into want over (x, y, w, h), from colour base. */
static void paint(uint32_t *want, unsigned x, unsigned y, unsigned w, unsigned h, struct kind k, uint32_t base) {
        for (unsigned r = 0; r < h; r++)
                for (unsigned c = 0; c < w; c++) {
                        size_t i = (size_t) r * w + c;
                        uint32_t v = k.how == SOLID     ? base
                                     : k.how == RAW     ? base ^ (c * 0x010203u + r * 0x0a0b0cu)
                                     : k.how == PACKED  ? base + (c + 3 * r) % k.colours * 0x111111u
                                     : k.how == PLAIN_RLE ? base + run_id(i) * 0x010305u
                                                          : base + run_id(i) % k.colours * 0x0f0f0fu;

                        want[(size_t) (y + r) * FW + x + c] = v & 0xffffffu;
                }
}

/* A CPIXEL of the pixel format asked for: blue, green, red. */
static void cpix(struct bytes *t, uint32_t rgb) {
        add(t, (uint8_t[]) { (uint8_t) rgb, (uint8_t) (rgb >> 8), (uint8_t) (rgb >> 16) }, 3);
}

static void run_length(struct bytes *t, size_t run) {
        for (run--; run >= 255; run -= 255)
                add(t, "\xff", 1);
        add(t, (uint8_t[]) { (uint8_t) run }, 1);
}

/* The tile's colours in the order they first appear: how many, or 128 for more than a palette holds. */
static unsigned palette_of(const uint32_t *px, size_t n, uint32_t pal[static 127]) {
        unsigned k = 0;

        for (size_t i = 0; i < n; i++) {
                unsigned j = 0;

                while (j < k && pal[j] != px[i])
                        j++;
                if (j == k) {
                        if (k == 127)
                                return 128;
                        pal[k++] = px[i];
                }
        }
        return k;
}

static uint8_t index_of(const uint32_t *pal, unsigned k, uint32_t v) {
        for (unsigned j = 0; j < k; j++)
                if (pal[j] == v)
                        return (uint8_t) j;
        abort();
}

/* One tile of px (tw x th) in the subencoding k names, appended to t. */
static void encode_tile(struct bytes *t, struct kind k, const uint32_t *px, unsigned tw, unsigned th) {
        size_t n = (size_t) tw * th;
        uint32_t pal[127];
        unsigned colours = palette_of(px, n, pal);

        /* The picture must be what the case's name says. */
        if ((k.how == SOLID && colours != 1) || ((k.how == PACKED || k.how == PALETTE_RLE) && colours != k.colours))
                abort();
        if (k.how == SOLID) {
                add(t, "\x01", 1);
                cpix(t, px[0]);
        } else if (k.how == RAW) {
                add(t, "\x00", 1);
                for (size_t i = 0; i < n; i++)
                        cpix(t, px[i]);
        } else if (k.how == PACKED) {
                unsigned bits = colours == 2 ? 1 : colours <= 4 ? 2 : 4;

                add(t, (uint8_t[]) { (uint8_t) colours }, 1);
                for (unsigned j = 0; j < colours; j++)
                        cpix(t, pal[j]);
                for (unsigned r = 0; r < th; r++) {
                        unsigned byte = 0, used = 0;

                        for (unsigned c = 0; c < tw; c++) {
                                byte |= (unsigned) index_of(pal, colours, px[r * tw + c]) << (8 - bits - used);
                                used += bits;
                                if (used == 8) {
                                        add(t, (uint8_t[]) { (uint8_t) byte }, 1);
                                        byte = used = 0;
                                }
                        }
                        if (used > 0)
                                add(t, (uint8_t[]) { (uint8_t) byte }, 1);
                }
        } else {
                if (k.how == PALETTE_RLE) {
                        add(t, (uint8_t[]) { (uint8_t) (128 + colours) }, 1);
                        for (unsigned j = 0; j < colours; j++)
                                cpix(t, pal[j]);
                } else
                        add(t, "\x80", 1);
                for (size_t i = 0, run; i < n; i += run) {
                        for (run = 1; i + run < n && px[i + run] == px[i]; run++)
                                ;
                        if (k.how == PLAIN_RLE) {
                                cpix(t, px[i]);
                                run_length(t, run);
                        } else if (run == 1)
                                add(t, (uint8_t[]) { index_of(pal, colours, px[i]) }, 1);
                        else {
                                add(t, (uint8_t[]) { (uint8_t) (128 | index_of(pal, colours, px[i])) }, 1);
                                run_length(t, run);
                        }
                }
        }
}

/* raw deflated on the connection's stream zs (cut by flush, as a server cuts a rectangle), length first, onto b. */
static void deflate_rect(struct bytes *b, z_stream *zs, const struct bytes *raw, int flush) {
        static uint8_t out[sizeof raw->d + 1024];

        zs->next_in = raw->d;
        zs->avail_in = (uInt) raw->n;
        zs->next_out = out;
        zs->avail_out = sizeof out;
        if (deflate(zs, flush) != (flush == Z_FINISH ? Z_STREAM_END : Z_OK) || zs->avail_in != 0 || zs->avail_out == 0)
                abort();
        add32(b, (uint32_t) (sizeof out - zs->avail_out));
        add(b, out, sizeof out - zs->avail_out);
}

/* A ZRLE rectangle of want over (x, y, w, h), its tiles in the kinds given in turn, onto b on the stream zs. */
static void zrle_rect(struct bytes *b, z_stream *zs, const uint32_t *want, unsigned x, unsigned y, unsigned w,
                      unsigned h, const struct kind *kinds, size_t nkinds) {
        static struct bytes raw;
        static uint32_t px[64 * 64];
        size_t i = 0;

        raw.n = 0;
        for (unsigned ty = 0; ty < h; ty += 64)
                for (unsigned tx = 0; tx < w; tx += 64, i++) {
                        unsigned tw = w - tx < 64 ? w - tx : 64, th = h - ty < 64 ? h - ty : 64;

                        for (unsigned r = 0; r < th; r++)
                                for (unsigned c = 0; c < tw; c++)
                                        px[r * tw + c] = want[(size_t) (y + ty + r) * FW + x + tx + c];
                        encode_tile(&raw, kinds[i % nkinds], px, tw, th);
                }
        rect(b, (uint16_t) x, (uint16_t) y, (uint16_t) w, (uint16_t) h, RFB_ENCODING_ZRLE);
        deflate_rect(b, zs, &raw, Z_SYNC_FLUSH);
}

static const struct zcase {
        const char *name;
        unsigned x, y, w, h;
        struct kind kinds[6];           /* tile by tile, in turn */
        size_t nkinds;
        bool second;                    /* in the second update */
} zcases[] = {
        { "a solid tile (subencoding 1)", 0, 0, 10, 7, { { SOLID, 0 } }, 1, false },
        { "a raw tile (0)", 10, 0, 13, 5, { { RAW, 0 } }, 1, false },
        { "a packed palette of 2 colours: 1 bit an index, 13 to a row padded to 2 bytes (2)", 23, 0, 13, 3,
          { { PACKED, 2 } }, 1, false },
        { "a packed palette of 3 colours: 2 bits an index (3)", 36, 0, 7, 5, { { PACKED, 3 } }, 1, false },
        { "a packed palette of 4 colours: 2 bits, 9 to a row padded to 3 bytes (4)", 43, 0, 9, 4, { { PACKED, 4 } }, 1,
          false },
        { "a packed palette of 5 colours: 4 bits an index (5)", 52, 0, 5, 5, { { PACKED, 5 } }, 1, false },
        { "a packed palette of 16 colours: 4 bits, 17 to a row (16)", 57, 0, 17, 3, { { PACKED, 16 } }, 1, false },
        { "plain RLE: runs of 1, 256 (255, 0), 300 (255, 44) and 17 in a whole 64x64 tile (128)", 0, 8, 64, 64,
          { { PLAIN_RLE, 0 } }, 1, false },
        { "palette RLE of 3 colours: single pixels by index alone, long runs by index and length (131)", 64, 8, 40, 30,
          { { PALETTE_RLE, 3 } }, 1, false },
        { "palette RLE of 127 colours, the largest palette (255)", 104, 8, 64, 64, { { PALETTE_RLE, 127 } }, 1, false },
        { "150x75 in 6 tiles, the right ones 22 wide and the bottom ones 11 high, each subencoding once",
          0, 72, 150, 75,
          { { SOLID, 0 }, { RAW, 0 }, { PACKED, 5 }, { PLAIN_RLE, 0 }, { PALETTE_RLE, 3 }, { PACKED, 2 } }, 6, true },
        { "128x128 in 4 raw tiles, more inflated bytes than the reader holds at once", 0, 150, 128, 128,
          { { RAW, 0 } }, 1, true },
        { "a solid tile after a Raw rectangle, on the stream the first update began", 180, 140, 20, 10,
          { { SOLID, 0 } }, 1, true },
};

static void zrle_case(struct bytes *b, z_stream *zs, const uint32_t *want, const struct zcase *z) {
        zrle_rect(b, zs, want, z->x, z->y, z->w, z->h, z->kinds, z->nkinds);
}

static bool region_is(const struct rfb_framebuffer *fb, const uint32_t *want, unsigned x, unsigned y, unsigned w,
                      unsigned h) {
        for (unsigned r = 0; r < h; r++)
                for (unsigned c = 0; c < w; c++) {
                        size_t i = (size_t) (y + r) * FW + x + c;

                        if (fb->pixels[i] != want[i]) {
                                printf("#   at (%u,%u): 0x%06x, want 0x%06x\n", x + c, y + r, fb->pixels[i], want[i]);
                                return false;
                        }
                }
        return true;
}

/* The cases painted in two updates on one stream, fed whole and a byte at a time: the framebuffer is the picture. */
static void zrle_pictures(void) {
        static uint32_t want[FW * FH];
        static struct bytes b;
        struct rfb_framebuffer fb[2];
        z_stream zs = {};

        if (deflateInit(&zs, Z_DEFAULT_COMPRESSION) != Z_OK)
                abort();
        for (size_t n = 0; n < sizeof zcases / sizeof zcases[0]; n++) {
                const struct zcase *z = &zcases[n];

                for (unsigned ty = 0, i = 0; ty < z->h; ty += 64)
                        for (unsigned tx = 0; tx < z->w; tx += 64, i++)
                                paint(want, z->x + tx, z->y + ty, z->w - tx < 64 ? z->w - tx : 64,
                                      z->h - ty < 64 ? z->h - ty : 64, z->kinds[i % z->nkinds],
                                      0x102030u * (uint32_t) (n + 1) + 0x0d0e0fu * i);
        }
        want[190] = 0x0a0b0c;
        want[191] = 0x0d0e0f;
        update(&b, 10);
        for (size_t n = 0; n < 10; n++)
                zrle_case(&b, &zs, want, &zcases[n]);
        update(&b, 4);
        for (size_t n = 10; n < 12; n++)
                zrle_case(&b, &zs, want, &zcases[n]);
        rect(&b, 190, 0, 2, 1, RFB_ENCODING_RAW);
        pixel(&b, 0x0a0b0c);
        pixel(&b, 0x0d0e0f);
        zrle_case(&b, &zs, want, &zcases[12]);
        deflateEnd(&zs);

        for (int bytewise = 0; bytewise < 2; bytewise++) {
                const char *how = bytewise ? "a byte at a time" : "whole";
                struct rfb_update_reader rd;
                ssize_t r = feed_sized(&b, bytewise, &fb[bytewise], &rd, FW, FH);

                TAP_EQ_INT(r, bytewise ? 1 : (long long) b.n, "ZRLE: two updates on one zlib stream are taken (%s)",
                           how);
                TAP_EQ_INT(rd.updates, 2, "... both read to their end (%s)", how);
                for (size_t n = 0; n < sizeof zcases / sizeof zcases[0]; n++)
                        tap_ok(region_is(&fb[bytewise], want, zcases[n].x, zcases[n].y, zcases[n].w, zcases[n].h),
                               "... %s: painted as it must be (%s, update %d)", zcases[n].name, how,
                               zcases[n].second ? 2 : 1);
                tap_ok(region_is(&fb[bytewise], want, 0, 0, FW, FH), "... and every other pixel as it was (%s)", how);
                rfb_update_reader_done(&rd);
                rfb_update_reader_done(&rd);
        }
        tap_ok(memcmp(fb[0].pixels, fb[1].pixels, sizeof want) == 0,
               "ZRLE fed whole and a byte at a time: the same picture");
        rfb_framebuffer_done(&fb[0]);
        rfb_framebuffer_done(&fb[1]);
}

/* b fed whole and a byte at a time into an 80x64 framebuffer: -EPROTO both ways. */
static void zrle_refused(const struct bytes *b, const char *what) {
        ssize_t r[2];

        for (int bytewise = 0; bytewise < 2; bytewise++) {
                struct rfb_framebuffer fb;
                struct rfb_update_reader rd;

                r[bytewise] = feed_sized(b, bytewise, &fb, &rd, 80, 64);
                rfb_update_reader_done(&rd);
                rfb_framebuffer_done(&fb);
        }
        if (!tap_ok(r[0] == -EPROTO && r[1] == -EPROTO, "ZRLE: %s: -EPROTO, fed whole and a byte at a time", what))
                printf("#   got %zd and %zd\n", r[0], r[1]);
}

/* One update of one ZRLE rectangle (w x h at 0,0) whose inflated bytes are tile, cut by flush on a fresh stream. */
static void zrle_one(struct bytes *b, const void *tile, size_t n, uint16_t w, uint16_t h, int flush) {
        static struct bytes raw;
        z_stream zs = {};

        if (deflateInit(&zs, Z_DEFAULT_COMPRESSION) != Z_OK)
                abort();
        raw.n = 0;
        add(&raw, tile, n);
        *b = (struct bytes) {};
        update(b, 1);
        rect(b, 0, 0, w, h, RFB_ENCODING_ZRLE);
        deflate_rect(b, &zs, &raw, flush);
        deflateEnd(&zs);
}

#define TILE_REFUSED(w, h, what, ...)                                                           \
        do {                                                                                    \
                static const uint8_t _t[] = { __VA_ARGS__ };                                    \
                zrle_one(&b, _t, sizeof _t, w, h, Z_SYNC_FLUSH);                                \
                zrle_refused(&b, what);                                                         \
        } while (0)

static void zrle_refusals(void) {
        static struct bytes b;
        static uint8_t tile17[1 + 17 * 3 + 1];
        ssize_t r;

        TILE_REFUSED(4, 4, "a plain RLE run of 17 in a 4x4 tile", 128, 1, 2, 3, 16);
        TILE_REFUSED(16, 16, "a plain RLE run of 257 (255, 1) in a 16x16 tile", 128, 1, 2, 3, 255, 1);
        TILE_REFUSED(4, 4, "a palette RLE run past its tile's end", 130, 1, 2, 3, 4, 5, 6, 0x81, 16);
        TILE_REFUSED(4, 1, "a packed index past its palette (3 of 3 colours)", 3, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0x1b);
        TILE_REFUSED(1, 1, "a palette RLE index past its palette (2 of 2)", 130, 1, 2, 3, 4, 5, 6, 2);
        TILE_REFUSED(2, 1, "a palette RLE run's index past its palette", 130, 1, 2, 3, 4, 5, 6, 0x82, 0);
        /* Each followed by just what it would be if it were used: a palette of 17 and an index, one of 1 and a run. */
        memset(tile17, 0, sizeof tile17);
        tile17[0] = 17;
        zrle_one(&b, tile17, sizeof tile17, 1, 1, Z_SYNC_FLUSH);
        zrle_refused(&b, "the unused subencoding 17 (a packed palette of 17 colours, were it one)");
        TILE_REFUSED(1, 1, "the unused subencoding 129 (a palette RLE of 1 colour, were it one)", 129, 1, 2, 3, 0);
        TILE_REFUSED(1, 1, "the unused subencoding 127", 127, 0, 0, 0, 0, 0, 0);
        TILE_REFUSED(65, 1, "bytes that end before the rectangle's second tile", 1, 1, 2, 3);
        TILE_REFUSED(1, 1, "an inflated byte past the rectangle's last tile", 1, 1, 2, 3, 0);
        zrle_one(&b, (uint8_t[]) { 1, 1, 2, 3 }, 4, 1, 1, Z_FINISH);
        zrle_refused(&b, "a zlib stream the server ended (the connection's stream never ends)");

        /* Corrupt zlib: a header that is none, and a block type 3 in a stream that was good for a rectangle. */
        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 0, 0, 1, 1, RFB_ENCODING_ZRLE);
        add32(&b, 4);
        add(&b, "\x01\x02\x03\x04", 4);
        zrle_refused(&b, "a corrupt zlib header");
        zrle_one(&b, (uint8_t[]) { 1, 1, 2, 3 }, 4, 1, 1, Z_SYNC_FLUSH);
        update(&b, 1);
        rect(&b, 0, 0, 1, 1, RFB_ENCODING_ZRLE);
        add32(&b, 2);
        add(&b, "\xff\xff", 2);
        zrle_refused(&b, "a corrupt block where the stream continues in the next update");

        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 0, 0, 1, 1, RFB_ENCODING_ZRLE);
        add32(&b, RFB_UPDATE_ZRLE_MAX + 1);
        zrle_refused(&b, "a length of RFB_UPDATE_ZRLE_MAX + 1");
        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 0, 0, 1, 1, RFB_ENCODING_ZRLE);
        add32(&b, RFB_UPDATE_ZRLE_MAX);
        r = feed_error(&b);
        TAP_EQ_INT(r, (long long) b.n, "ZRLE: a length of RFB_UPDATE_ZRLE_MAX is taken (its bytes awaited)");
}

int main(void) {
        static const uint8_t want_format[20] = { 0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0 };
        static const uint8_t want_encodings[16] = { 2, 0, 0, 3, 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0, 0 };
        static const uint8_t want_request[10] = { 3, 1, 0, 0, 0, 0, 3, 0x20, 2, 0x58 };
        struct rfb_framebuffer fb;
        struct rfb_update_reader rd;
        struct bytes b = {};
        uint8_t out[20];

        tap_ok(rfb_request_pixel_format(out) == 20 && memcmp(out, want_format, 20) == 0,
               "SetPixelFormat: 32 bpp, depth 24, little endian, true colour, shifts 16/8/0");
        tap_ok(rfb_request_encodings(out) == 16 && memcmp(out, want_encodings, 16) == 0,
               "SetEncodings: ZRLE, CopyRect, Raw, in that order");
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
                rfb_update_reader_done(&rd);
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
        rfb_update_reader_done(&rd);
        rfb_framebuffer_done(&fb);

        zrle_pictures();

        /* Refused. */
        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 3, 0, 2, 1, RFB_ENCODING_RAW);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "a rectangle past the framebuffer's edge: -EPROTO");
        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 0, 0, 1, 1, 5);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "an encoding not asked for (Hextile): -EPROTO");
        b = (struct bytes) {};
        update(&b, 1);
        rect(&b, 3, 0, 2, 1, RFB_ENCODING_ZRLE);
        TAP_EQ_INT(feed_error(&b), -EPROTO, "a ZRLE rectangle past the framebuffer's edge: -EPROTO before its length");
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
        zrle_refusals();
        return tap_done();
}
