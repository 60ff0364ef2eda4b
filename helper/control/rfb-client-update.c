/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's side of an RFB session after the handshake
 * (rfb-client-update.h): its requests, and a reader of the server's
 * messages that paints ZRLE (rfb-client-zrle.c), CopyRect and Raw
 * rectangles into the framebuffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rfb-client-update.h"
#include "rfb-client-zrle.h"

enum {
        READ_TYPE,              /* a message's type byte */
        READ_UPDATE,            /* FramebufferUpdate: padding, rectangle count */
        READ_RECT,              /* a rectangle's header */
        READ_RAW,               /* its pixels, 4 bytes each */
        READ_COPYRECT,          /* its source */
        READ_ZRLE_LENGTH,       /* ZRLE: the length of its compressed bytes */
        READ_ZRLE,              /* those bytes, handed on as they come */
        READ_COLOURMAP,         /* SetColourMapEntries' header (never asked for: refused) */
        READ_CUT,               /* ServerCutText's header */
        READ_SKIP,              /* drained bytes */
};

static uint32_t be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p) {
        return (uint16_t) (p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v) {
        p[0] = (uint8_t) (v >> 8);
        p[1] = (uint8_t) v;
}

int rfb_framebuffer_init(struct rfb_framebuffer *fb, uint16_t width, uint16_t height) {
        *fb = (struct rfb_framebuffer) { .width = width, .height = height };
        fb->pixels = calloc((size_t) width * height ?: 1, sizeof *fb->pixels);
        return fb->pixels ? 0 : -ENOMEM;
}

void rfb_framebuffer_done(struct rfb_framebuffer *fb) {
        free(fb->pixels);
        *fb = (struct rfb_framebuffer) {};
}

size_t rfb_request_pixel_format(uint8_t out[static 20]) {
        /* SetPixelFormat: 32 bpp, depth 24, little endian, true colour, 255/255/255, shifts 16/8/0. */
        static const uint8_t msg[20] = { 0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0 };

        memcpy(out, msg, sizeof msg);
        return sizeof msg;
}

size_t rfb_request_encodings(uint8_t out[static 16]) {
        /*
         * In the order preferred: ZRLE, which most servers choose when
         * offered (a screen in a fraction of Raw's bytes), then CopyRect,
         * cheaper where the server can use it, then Raw.
         */
        static const uint8_t msg[16] = { 2, 0, 0, 3, 0, 0, 0, RFB_ENCODING_ZRLE, 0, 0, 0, RFB_ENCODING_COPYRECT,
                                         0, 0, 0, RFB_ENCODING_RAW };

        memcpy(out, msg, sizeof msg);
        return sizeof msg;
}

size_t rfb_request_update(bool incremental, uint16_t x, uint16_t y, uint16_t w, uint16_t h, uint8_t out[static 10]) {
        out[0] = 3;
        out[1] = incremental;
        put16(out + 2, x);
        put16(out + 4, y);
        put16(out + 6, w);
        put16(out + 8, h);
        return 10;
}

void rfb_update_reader_init(struct rfb_update_reader *rd) {
        *rd = (struct rfb_update_reader) { .state = READ_TYPE, .need = 1 };
}

void rfb_update_reader_done(struct rfb_update_reader *rd) {
        rd->zrle = rfb_zrle_free(rd->zrle);
}

static void expect(struct rfb_update_reader *rd, int state, size_t need) {
        rd->state = state;
        rd->need = need;
        rd->have = 0;
}

static void next_rect(struct rfb_update_reader *rd) {
        if (rd->rects_left == 0) {
                rd->updates++;
                expect(rd, READ_TYPE, 1);
        } else
                expect(rd, READ_RECT, 12);
}

static int on_type(struct rfb_update_reader *rd) {
        switch (rd->head[0]) {
        case 0:
                expect(rd, READ_UPDATE, 3);
                return 0;
        case 1:
                expect(rd, READ_COLOURMAP, 5);
                return 0;
        case 2:
                rd->bells++;
                expect(rd, READ_TYPE, 1);
                return 0;
        case 3:
                expect(rd, READ_CUT, 7);
                return 0;
        default:
                return -EPROTO;
        }
}

static int on_rect(struct rfb_update_reader *rd, const struct rfb_framebuffer *fb) {
        int32_t encoding = (int32_t) be32(rd->head + 8);

        rd->x = be16(rd->head);
        rd->y = be16(rd->head + 2);
        rd->w = be16(rd->head + 4);
        rd->h = be16(rd->head + 6);
        rd->rects_left--;
        /* Inside the framebuffer, or nothing of it is painted. */
        if ((uint32_t) rd->x + rd->w > fb->width || (uint32_t) rd->y + rd->h > fb->height)
                return -EPROTO;
        if (encoding == RFB_ENCODING_RAW) {
                rd->pixel = 0;
                if (rd->w == 0 || rd->h == 0)
                        next_rect(rd);
                else
                        expect(rd, READ_RAW, 4);
                return 0;
        }
        if (encoding == RFB_ENCODING_COPYRECT) {
                expect(rd, READ_COPYRECT, 4);
                return 0;
        }
        if (encoding == RFB_ENCODING_ZRLE) {
                expect(rd, READ_ZRLE_LENGTH, 4);
                return 0;
        }
        return -EPROTO;
}

static int on_zrle_length(struct rfb_update_reader *rd, struct rfb_framebuffer *fb) {
        int r;

        rd->zrle_left = be32(rd->head);
        if (rd->zrle_left > RFB_UPDATE_ZRLE_MAX)
                return -EPROTO;
        /* The stream is made at the first ZRLE rectangle: a server that never sends one costs nothing. */
        if (!rd->zrle) {
                r = rfb_zrle_new(&rd->zrle);
                if (r < 0)
                        return r;
        }
        r = rfb_zrle_begin(rd->zrle, fb, rd->x, rd->y, rd->w, rd->h);
        if (r < 0)
                return r;
        if (rd->zrle_left > 0) {
                expect(rd, READ_ZRLE, 0);
                return 0;
        }
        r = rfb_zrle_end(rd->zrle, fb);
        if (r < 0)
                return r;
        next_rect(rd);
        return 0;
}

/* Some of a ZRLE rectangle's compressed bytes: how many were taken, or an error. */
static ssize_t on_zrle(struct rfb_update_reader *rd, struct rfb_framebuffer *fb, const uint8_t *p, size_t size) {
        size_t n = size < rd->zrle_left ? size : rd->zrle_left;
        int r = rfb_zrle_feed(rd->zrle, fb, p, n);

        if (r < 0)
                return r;
        rd->zrle_left -= (uint32_t) n;
        if (rd->zrle_left == 0) {
                r = rfb_zrle_end(rd->zrle, fb);
                if (r < 0)
                        return r;
                next_rect(rd);
        }
        return (ssize_t) n;
}

/* The rectangle's next pixel, as asked for: little endian, B, G, R, unused. True when it was its last. */
static bool put_pixel(struct rfb_update_reader *rd, struct rfb_framebuffer *fb, const uint8_t *bgrx) {
        size_t row = rd->pixel / rd->w, col = rd->pixel % rd->w;

        fb->pixels[(size_t) (rd->y + row) * fb->width + rd->x + col] =
                (uint32_t) bgrx[2] << 16 | (uint32_t) bgrx[1] << 8 | bgrx[0];
        return ++rd->pixel == (size_t) rd->w * rd->h;
}

static int on_raw(struct rfb_update_reader *rd, struct rfb_framebuffer *fb) {
        if (put_pixel(rd, fb, rd->head))
                next_rect(rd);
        else
                expect(rd, READ_RAW, 4);
        return 0;
}

static int on_copyrect(struct rfb_update_reader *rd, struct rfb_framebuffer *fb) {
        uint16_t sx = be16(rd->head), sy = be16(rd->head + 2);

        if ((uint32_t) sx + rd->w > fb->width || (uint32_t) sy + rd->h > fb->height)
                return -EPROTO;
        /* Rows in the order that never reads one already overwritten. */
        for (size_t i = 0; i < rd->h; i++) {
                size_t r = sy < rd->y ? rd->h - 1 - i : i;

                memmove(fb->pixels + (size_t) (rd->y + r) * fb->width + rd->x,
                        fb->pixels + (size_t) (sy + r) * fb->width + sx, (size_t) rd->w * sizeof *fb->pixels);
        }
        next_rect(rd);
        return 0;
}

static int step(struct rfb_update_reader *rd, struct rfb_framebuffer *fb) {
        switch (rd->state) {
        case READ_TYPE:
                return on_type(rd);
        case READ_UPDATE:
                rd->rects_left = be16(rd->head + 1);
                if (rd->rects_left > RFB_UPDATE_RECTS_MAX)
                        return -EPROTO;
                next_rect(rd);
                return 0;
        case READ_RECT:
                return on_rect(rd, fb);
        case READ_RAW:
                return on_raw(rd, fb);
        case READ_COPYRECT:
                return on_copyrect(rd, fb);
        case READ_ZRLE_LENGTH:
                return on_zrle_length(rd, fb);
        case READ_COLOURMAP:
                /* Only for a colour-mapped format, which botdesk never asks for. */
                return -EPROTO;
        case READ_CUT:
                rd->skip = be32(rd->head + 3);
                if (rd->skip > RFB_UPDATE_CUT_MAX)
                        return -EPROTO;
                /* The server's clipboard is not the agent's to read here: drained. */
                if (rd->skip == 0)
                        expect(rd, READ_TYPE, 1);
                else
                        expect(rd, READ_SKIP, 0);
                return 0;
        default:
                return -EPROTO;
        }
}

ssize_t rfb_update_feed(struct rfb_update_reader *rd, struct rfb_framebuffer *fb, const void *data, size_t size) {
        const uint8_t *p = data;
        size_t used = 0;
        int r;

        while (used < size) {
                if (rd->state == READ_SKIP) {
                        size_t n = size - used < rd->skip ? size - used : rd->skip;

                        used += n;
                        rd->skip -= (uint32_t) n;
                        if (rd->skip == 0)
                                expect(rd, READ_TYPE, 1);
                        continue;
                }
                if (rd->state == READ_ZRLE) {
                        ssize_t n = on_zrle(rd, fb, p + used, size - used);

                        if (n < 0)
                                return n;
                        used += (size_t) n;
                        continue;
                }
                /* Raw's pixels straight from the data while they come whole: no byte-wise gathering. */
                if (rd->state == READ_RAW && rd->have == 0 && size - used >= 4) {
                        bool last = false;

                        for (; !last && size - used >= 4; used += 4)
                                last = put_pixel(rd, fb, p + used);
                        if (last)
                                next_rect(rd);
                        continue;
                }
                while (rd->have < rd->need && used < size)
                        rd->head[rd->have++] = p[used++];
                if (rd->have < rd->need)
                        break;
                r = step(rd, fb);
                if (r < 0)
                        return r;
        }
        return (ssize_t) used;
}
