/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "rfb-client-update.h"

/*
 * ZRLE rectangles (RFC 6143 7.7.6) for the session's reader
 * (rfb-client-update.c): one zlib stream for the whole connection,
 * continued from rectangle to rectangle, inflated into a bounded buffer and
 * painted tile by tile (64x64, smaller at the right and bottom edges) as
 * whole tiles arrive, so that neither a rectangle's compressed bytes nor
 * its inflated ones are ever held at once.
 *
 * With the pixel format botdesk asks for (32 bpp, depth 24, 0x00RRGGBB
 * little endian) a ZRLE pixel is a CPIXEL of the word's three low bytes:
 * blue, green, red.
 *
 * A tile's subencoding that RFC 6143 leaves unused, a run past its tile's
 * end, a palette index past its palette, a zlib stream that does not
 * inflate, a rectangle whose bytes hold fewer tiles than it covers or more
 * bytes than its tiles: -EPROTO.
 */

struct rfb_zrle;

/* The connection's inflate state (rfb_zrle_free() frees it): 0, or -ENOMEM. */
int rfb_zrle_new(struct rfb_zrle **ret);
struct rfb_zrle *rfb_zrle_free(struct rfb_zrle *z);

/* A rectangle of the framebuffer begins: 0, or -EPROTO when it is not inside fb. */
int rfb_zrle_begin(struct rfb_zrle *z, const struct rfb_framebuffer *fb, uint16_t x, uint16_t y, uint16_t w,
                   uint16_t h);
/* Some of its compressed bytes (all of them are taken): 0, -EPROTO, or -ENOMEM. */
int rfb_zrle_feed(struct rfb_zrle *z, struct rfb_framebuffer *fb, const uint8_t *data, size_t size);
/* The last of its bytes came: its remaining tiles painted, 0, or -EPROTO. */
int rfb_zrle_end(struct rfb_zrle *z, struct rfb_framebuffer *fb);
