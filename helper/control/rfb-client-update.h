/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * After the handshake (rfb-client.h): what the client asks for and what it
 * makes of the server's messages. botdesk asks for 32-bit true colour
 * (0x00RRGGBB in little-endian words, so a pixel is a uint32_t on this
 * host's order regardless of the server's) and the ZRLE, CopyRect and Raw
 * encodings (ZRLE in rfb-client-zrle.h), and keeps the framebuffer those
 * updates paint.
 *
 * The reader takes the server's messages in any pieces and checks every
 * count against the limits before anything is allocated or copied: a
 * rectangle outside the framebuffer, more than RFB_UPDATE_RECTS_MAX
 * rectangles in one update, cut text over RFB_UPDATE_CUT_MAX bytes, a ZRLE
 * rectangle of more than RFB_UPDATE_ZRLE_MAX compressed bytes, an encoding
 * or message type botdesk did not ask for: -EPROTO.
 */

#define RFB_UPDATE_RECTS_MAX 4096u
#define RFB_UPDATE_CUT_MAX (256u * 1024u)
#define RFB_ENCODING_RAW 0
#define RFB_ENCODING_COPYRECT 1
#define RFB_ENCODING_ZRLE 16
/*
 * The compressed bytes of one ZRLE rectangle. The largest screen the
 * client accepts is RFB_CLIENT_PIXELS_MAX (16 Mi pixels); the costliest
 * valid tile inflates to 4 bytes a pixel and a byte (plain RLE of
 * one-pixel runs), and deflate's worst (stored blocks) adds 5 bytes in
 * 65535: a whole such screen in one rectangle needs less than 64 MiB and
 * 64 KiB. A count past this bound is a server that lies; nothing is
 * allocated for it either way, the bytes are inflated as they come.
 */
#define RFB_UPDATE_ZRLE_MAX (65u * 1024u * 1024u)

struct rfb_framebuffer {
        uint16_t width, height;
        uint32_t *pixels;               /* width * height, 0x00RRGGBB */
};

int rfb_framebuffer_init(struct rfb_framebuffer *fb, uint16_t width, uint16_t height);
void rfb_framebuffer_done(struct rfb_framebuffer *fb);

/* The client's requests, written into out (the size each returns): SetPixelFormat, SetEncodings, FramebufferUpdateRequest. */
size_t rfb_request_pixel_format(uint8_t out[static 20]);
size_t rfb_request_encodings(uint8_t out[static 16]);
size_t rfb_request_update(bool incremental, uint16_t x, uint16_t y, uint16_t w, uint16_t h, uint8_t out[static 10]);

struct rfb_zrle;

struct rfb_update_reader {
        int state;
        uint8_t head[16];               /* the fixed part of what is being read */
        size_t need, have;
        uint32_t rects_left;            /* in the update being read */
        uint16_t x, y, w, h;            /* the rectangle being painted */
        size_t pixel;                   /* Raw: pixels of it done */
        uint32_t skip;                  /* cut text or a colour map: bytes still to drain */
        uint32_t zrle_left;             /* ZRLE: compressed bytes of the rectangle still to come */
        struct rfb_zrle *zrle;          /* the connection's zlib stream, from its first ZRLE rectangle on */
        unsigned updates;               /* complete FramebufferUpdates read */
        unsigned bells;
};

void rfb_update_reader_init(struct rfb_update_reader *rd);
/* Frees what the reader holds (the zlib stream); for _cleanup_, and again after it, harmless. */
void rfb_update_reader_done(struct rfb_update_reader *rd);

/* The server's bytes: painted into fb. The count taken (all of them), -EPROTO, or -ENOMEM. */
ssize_t rfb_update_feed(struct rfb_update_reader *rd, struct rfb_framebuffer *fb, const void *data, size_t size);
