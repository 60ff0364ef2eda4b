/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ZRLE rectangles for the RFB client's session reader (rfb-client-zrle.h):
 * the connection's zlib stream inflated into a bounded buffer, and the
 * tiles in it decoded whole, checked, then painted.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* next_in as a pointer to const: the server's bytes are the caller's. */
#define ZLIB_CONST
#include <zlib.h>

#include "rfb-client-zrle.h"
#include "util.h"

#define TILE 64u
/*
 * The most inflated bytes one valid tile takes: plain RLE of 4096 runs of
 * one pixel, a CPIXEL and a length byte each, after the subencoding byte.
 * Raw takes 1 + 4096 * 3, the palettes less; a longer run takes fewer
 * bytes a pixel, since run lengths are written as 255s and a last byte.
 */
#define TILE_BYTES_MAX (1u + TILE * TILE * 4u)

struct rfb_zrle {
        z_stream zs;
        uint16_t x, y, w, h;            /* the rectangle being painted */
        uint32_t tile, tiles;           /* its tiles painted, and how many it has */
        size_t start, end;              /* buf[start, end): inflated, not yet painted */
        uint32_t px[TILE * TILE];       /* a tile as it is decoded, painted once it is whole and valid */
        /*
         * Two tiles' worth: when the buffer is full, a whole tile is in it
         * (its first, wherever the one before it ended), so that a full
         * buffer that yields no tile is a server's error, never a wait.
         */
        uint8_t buf[2 * TILE_BYTES_MAX];
};

int rfb_zrle_new(struct rfb_zrle **ret) {
        _cleanup_free_ struct rfb_zrle *z = calloc(1, sizeof *z);
        int r;

        if (!z)
                return -ENOMEM;
        /* zalloc, zfree and opaque zero (calloc): zlib's own malloc and free. */
        r = inflateInit(&z->zs);
        if (r != Z_OK)
                return r == Z_MEM_ERROR ? -ENOMEM : -ELIBBAD;
        *ret = TAKE_PTR(z);
        return 0;
}

struct rfb_zrle *rfb_zrle_free(struct rfb_zrle *z) {
        if (z) {
                inflateEnd(&z->zs);
                free(z);
        }
        return NULL;
}

int rfb_zrle_begin(struct rfb_zrle *z, const struct rfb_framebuffer *fb, uint16_t x, uint16_t y, uint16_t w,
                   uint16_t h) {
        /* The reader checked the rectangle already; this file paints, so it holds its own check. */
        if ((uint32_t) x + w > fb->width || (uint32_t) y + h > fb->height)
                return -EPROTO;
        z->x = x;
        z->y = y;
        z->w = w;
        z->h = h;
        z->tile = 0;
        z->tiles = (uint32_t) ((w + TILE - 1) / TILE) * ((h + TILE - 1) / TILE);
        return 0;
}

/* A CPIXEL: the three low bytes of a little-endian 0x00RRGGBB, blue first. */
static uint32_t cpixel(const uint8_t *p) {
        return (uint32_t) p[2] << 16 | (uint32_t) p[1] << 8 | p[0];
}

/* Packed palette indices, rows padded to a byte, the first pixel in a byte's high bits. */
static ssize_t tile_packed(const uint8_t *p, size_t n, size_t at, unsigned tw, unsigned th, const uint32_t *palette,
                           unsigned colours, uint32_t *px) {
        unsigned bits = colours == 2 ? 1 : colours <= 4 ? 2 : 4;
        size_t row = ((size_t) tw * bits + 7) / 8;

        if (n - at < row * th)
                return -EAGAIN;
        for (unsigned y = 0; y < th; y++)
                for (unsigned x = 0; x < tw; x++) {
                        unsigned bit = x * bits;
                        unsigned i = (p[at + y * row + bit / 8] >> (8 - bits - bit % 8)) & ((1u << bits) - 1);

                        /* 2 bits for 3 colours, 4 for 5 to 15: an index can name a colour the palette lacks. */
                        if (i >= colours)
                                return -EPROTO;
                        px[y * tw + x] = palette[i];
                }
        return (ssize_t) (at + row * th);
}

/*
 * Runs: a CPIXEL (plain RLE, colours 0) or a palette index (palette RLE;
 * the high bit says a length follows, else the run is one pixel), then
 * the length as bytes summed, 255 in all but the last, plus one.
 */
static ssize_t tile_runs(const uint8_t *p, size_t n, size_t at, size_t count, const uint32_t *palette,
                         unsigned colours, uint32_t *px) {
        for (size_t i = 0; i < count;) {
                uint32_t colour;
                size_t run = 1;
                bool length = true;

                if (colours == 0) {
                        if (n - at < 3)
                                return -EAGAIN;
                        colour = cpixel(p + at);
                        at += 3;
                } else {
                        if (n - at < 1)
                                return -EAGAIN;
                        if ((p[at] & 127u) >= colours)
                                return -EPROTO;
                        colour = palette[p[at] & 127u];
                        length = p[at++] & 128u;
                }
                while (length) {
                        if (at == n)
                                return -EAGAIN;
                        run += p[at];
                        /* Checked at every byte: 255s past the tile's end are refused, not summed. */
                        if (run > count - i)
                                return -EPROTO;
                        length = p[at++] == 255;
                }
                for (size_t k = 0; k < run; k++)
                        px[i + k] = colour;
                i += run;
        }
        return (ssize_t) at;
}

/* One tile of tw x th from p[0, n) into px: the bytes it took, -EAGAIN when it goes on past n, or -EPROTO. */
static ssize_t tile_decode(const uint8_t *p, size_t n, unsigned tw, unsigned th, uint32_t *px) {
        size_t count = (size_t) tw * th;
        uint32_t palette[127];
        unsigned sub, colours = 0;

        if (n < 1)
                return -EAGAIN;
        sub = p[0];
        if (sub == 0) {
                if (n - 1 < count * 3)
                        return -EAGAIN;
                for (size_t i = 0; i < count; i++)
                        px[i] = cpixel(p + 1 + i * 3);
                return (ssize_t) (1 + count * 3);
        }
        /* 1 is a palette of one colour (the tile solid), 2 to 16 packed, 130 to 255 with runs; 128 has none. */
        if (sub <= 16)
                colours = sub;
        else if (sub >= 130)
                colours = sub - 128;
        else if (sub != 128)
                /* RFC 6143 leaves 17 to 127 and 129 unused. */
                return -EPROTO;
        if (n - 1 < colours * 3)
                return -EAGAIN;
        for (unsigned i = 0; i < colours; i++)
                palette[i] = cpixel(p + 1 + i * 3);
        if (sub == 1) {
                for (size_t i = 0; i < count; i++)
                        px[i] = palette[0];
                return 4;
        }
        if (sub <= 16)
                return tile_packed(p, n, 1 + colours * 3, tw, th, palette, colours, px);
        return tile_runs(p, n, 1 + colours * 3, count, palette, colours, px);
}

/* The whole tiles in buf, painted: how many, or -EPROTO. */
static int paint_tiles(struct rfb_zrle *z, struct rfb_framebuffer *fb) {
        unsigned across = (z->w + TILE - 1) / TILE;
        int painted = 0;

        while (z->tile < z->tiles) {
                unsigned tx = z->tile % across * TILE, ty = z->tile / across * TILE;
                unsigned tw = z->w - tx < TILE ? z->w - tx : TILE, th = z->h - ty < TILE ? z->h - ty : TILE;
                ssize_t k = tile_decode(z->buf + z->start, z->end - z->start, tw, th, z->px);

                if (k == -EAGAIN)
                        break;
                if (k < 0)
                        return (int) k;
                for (unsigned row = 0; row < th; row++)
                        memcpy(fb->pixels + (size_t) (z->y + ty + row) * fb->width + z->x + tx,
                               z->px + (size_t) row * tw, (size_t) tw * sizeof *fb->pixels);
                z->start += (size_t) k;
                z->tile++;
                painted++;
        }
        return painted;
}

/* What zs holds, inflated into buf's free room: the bytes it made, -EPROTO, or -ENOMEM. */
static ssize_t inflate_some(struct rfb_zrle *z) {
        size_t before;
        int r;

        if (z->start > 0) {
                memmove(z->buf, z->buf + z->start, z->end - z->start);
                z->end -= z->start;
                z->start = 0;
        }
        if (z->end == sizeof z->buf)
                return 0;
        before = z->end;
        z->zs.next_out = z->buf + z->end;
        z->zs.avail_out = (uInt) (sizeof z->buf - z->end);
        r = inflate(&z->zs, Z_SYNC_FLUSH);
        z->end = sizeof z->buf - z->zs.avail_out;
        if (r == Z_MEM_ERROR)
                return -ENOMEM;
        /*
         * Z_BUF_ERROR is no progress for want of input, which the next
         * bytes bring. Z_STREAM_END is an error too: the stream is the
         * connection's and a server never ends it (TigerVNC's own decoder
         * refuses it likewise).
         */
        if (r != Z_OK && r != Z_BUF_ERROR)
                return -EPROTO;
        return (ssize_t) (z->end - before);
}

int rfb_zrle_feed(struct rfb_zrle *z, struct rfb_framebuffer *fb, const uint8_t *data, size_t size) {
        while (size > 0) {
                uInt piece = size > UINT_MAX ? UINT_MAX : (uInt) size;

                z->zs.next_in = data;
                z->zs.avail_in = piece;
                while (z->zs.avail_in > 0) {
                        uInt in = z->zs.avail_in;
                        ssize_t made = inflate_some(z);

                        if (made < 0)
                                return (int) made;
                        /*
                         * Tiles are decoded when the buffer is full, not at
                         * every byte fed: a tile is tried once or twice, never
                         * once a byte.
                         */
                        if (z->end == sizeof z->buf) {
                                int painted = paint_tiles(z, fb);

                                if (painted < 0)
                                        return painted;
                                /*
                                 * A full buffer always holds a whole tile: none
                                 * came, so a tile is longer than any valid one,
                                 * or bytes follow the last tile.
                                 */
                                if (painted == 0)
                                        return -EPROTO;
                        } else if (made == 0 && z->zs.avail_in == in)
                                /* zlib moves with input and room to write: never reached, but no spin if it were. */
                                return -EPROTO;
                }
                data += piece;
                size -= piece;
        }
        return 0;
}

int rfb_zrle_end(struct rfb_zrle *z, struct rfb_framebuffer *fb) {
        z->zs.next_in = NULL;
        z->zs.avail_in = 0;
        for (;;) {
                ssize_t made = inflate_some(z);
                int painted;

                if (made < 0)
                        return (int) made;
                painted = paint_tiles(z, fb);
                if (painted < 0)
                        return painted;
                if (made == 0 && painted == 0)
                        break;
        }
        /* Every tile, and not a byte more: the next rectangle starts where this one's bytes end. */
        return z->tile == z->tiles && z->start == z->end ? 0 : -EPROTO;
}
