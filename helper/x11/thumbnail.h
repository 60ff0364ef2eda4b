/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xcb/xcb.h>

/*
 * Thumbnails of a desktop: the root window read over xcb in strips (MIT-SHM
 * into a small memfd when the server offers SHM 1.2, GetImage otherwise),
 * scaled down as the strips arrive to fit a box with an area-averaging
 * filter in integer arithmetic, encoded as PNG (libpng) or JPEG
 * (libjpeg-turbo) in memory.
 *
 * Everything except thumb_grab_scaled() is pure: no X server, no files, so
 * the unit tests drive it with synthetic pixels. The grab reads through a
 * connection its caller opened.
 */

#define THUMB_SIZE_MAX 8192u
#define THUMB_DEFAULT_WIDTH 960u
#define THUMB_DEFAULT_HEIGHT 600u
#define THUMB_JPEG_QUALITY_DEFAULT 72
/* zlib level: 1-3 costs a few per cent of size and saves most of the time. */
#define THUMB_PNG_LEVEL_DEFAULT 2

/* Source pixel layouts, named by their bytes in memory, first byte first. */
enum thumb_pixfmt {
        THUMB_BGRX8888,    /* 32 bpp, red 0xff0000, LSB-first server (Xvnc on x86, depth 24/32) */
        THUMB_XRGB8888,    /* the same masks from an MSB-first server */
        THUMB_RGBX8888,    /* 32 bpp, red 0x0000ff, LSB-first */
        THUMB_XBGR8888,    /* 32 bpp, red 0x0000ff, MSB-first */
        THUMB_RGB565_LE,   /* 16 bpp 5-6-5, LSB-first (Xvnc -depth 16) */
        THUMB_RGB565_BE,   /* 16 bpp 5-6-5, MSB-first */
        _THUMB_PIXFMT_MAX,
};

enum thumb_encoding {
        THUMB_PNG,
        THUMB_JPEG,
};

/*
 * The layout of an X ZPixmap from its pixmap format (bits per pixel), depth,
 * the server's image byte order and the visual's channel masks. Returns an
 * enum thumb_pixfmt, or -EOPNOTSUPP for anything else (8-bit, 15-bit, 24 bpp
 * packed, 10-bit channels).
 */
int thumb_pixfmt_from_x(unsigned bits_per_pixel, unsigned depth, bool msb_first,
                        uint32_t red_mask, uint32_t green_mask, uint32_t blue_mask);
unsigned thumb_pixfmt_bytes(enum thumb_pixfmt f);

/* "WxH", each 1..THUMB_SIZE_MAX, decimal digits only: 0, -EINVAL (syntax) or -ERANGE. */
int thumb_parse_size(const char *s, unsigned *ret_width, unsigned *ret_height);

const char *thumb_encoding_mime(enum thumb_encoding e);

/*
 * The largest size that fits a src_w x src_h picture into box_w x box_h with
 * its aspect ratio kept (rounded to the nearest pixel, at least 1), never
 * larger than the source: a small screen stays its own size.
 */
void thumb_fit(unsigned src_w, unsigned src_h, unsigned box_w, unsigned box_h,
               unsigned *ret_w, unsigned *ret_h);

/*
 * Downscale src (src_w x src_h pixels of fmt, rows src_stride bytes apart)
 * to dst_w x dst_h packed RGB888 in dst (dst_w * 3 bytes a row), each output
 * pixel the area-weighted mean of the source pixels it covers. dst_w/dst_h
 * may equal but never exceed the source, which is at most 65535 pixels each
 * way (-EINVAL); -ENOMEM.
 */
int thumb_scale(const uint8_t *src, enum thumb_pixfmt fmt, unsigned src_w, unsigned src_h, size_t src_stride,
                uint8_t *dst, unsigned dst_w, unsigned dst_h);

/*
 * The same, fed a few source rows at a time (top to bottom), so a screen
 * can be scaled while it is still being read. Output row y is complete in
 * dst once the last source row it covers was pushed. thumb_scaler_new
 * checks like thumb_scale; push returns -EINVAL past the last source row.
 */
struct thumb_scaler;
int thumb_scaler_new(enum thumb_pixfmt fmt, unsigned src_w, unsigned src_h, uint8_t *dst, unsigned dst_w,
                     unsigned dst_h, struct thumb_scaler **ret);
int thumb_scaler_push(struct thumb_scaler *s, const uint8_t *rows, size_t stride, unsigned n);
/*
 * The same into a ring of dst_rows output rows: row y is written at row
 * y % dst_rows of dst, for a caller that takes the rows away as they
 * complete and so never needs the whole picture in memory. A push of n
 * source rows completes at most thumb_scaler_ring_rows(src_h, dst_h, n)
 * rows: a ring that big loses none between two pushes. dst_rows is 1..dst_h
 * (-EINVAL).
 */
int thumb_scaler_new_ring(enum thumb_pixfmt fmt, unsigned src_w, unsigned src_h, uint8_t *dst, unsigned dst_rows,
                          unsigned dst_w, unsigned dst_h, struct thumb_scaler **ret);
unsigned thumb_scaler_ring_rows(unsigned src_h, unsigned dst_h, unsigned n);
/* How many output rows, from the top, are complete. */
unsigned thumb_scaler_rows_done(const struct thumb_scaler *s);
struct thumb_scaler *thumb_scaler_free(struct thumb_scaler *s);
static inline void thumb_scaler_freep(struct thumb_scaler **s) {
        thumb_scaler_free(*s);
}

/*
 * Encode packed RGB888 (w * 3 bytes a row) into a new malloc'ed buffer,
 * handed to the caller in *ret. PNG: zlib level 0-9. JPEG: quality 1-100,
 * 4:2:0, baseline. -EINVAL, -ENOMEM, -EIO when the library fails.
 */
int thumb_encode_png(const uint8_t *rgb, unsigned w, unsigned h, int level, uint8_t **ret, size_t *ret_size);
int thumb_encode_jpeg(const uint8_t *rgb, unsigned w, unsigned h, int quality, uint8_t **ret, size_t *ret_size);

/*
 * The same JPEG fed rows as they are ready, top to bottom (n rows of w * 3
 * bytes, contiguous), so that a thumbnail is encoded while the rest of the
 * screen is still being read. finish hands the image to the caller once
 * all h rows were pushed (-EINVAL before); -EIO once the library failed.
 */
struct thumb_jpeg;
int thumb_jpeg_new(unsigned w, unsigned h, int quality, struct thumb_jpeg **ret);
int thumb_jpeg_push(struct thumb_jpeg *j, const uint8_t *rgb, unsigned n);
int thumb_jpeg_finish(struct thumb_jpeg *j, uint8_t **ret, size_t *ret_size);
struct thumb_jpeg *thumb_jpeg_free(struct thumb_jpeg *j);

/*
 * A thumb_rows_fn (below) that encodes the rows as they come into
 * *jpeg, set up at the first call with the size then known: the JPEG of a
 * grab without the whole picture in memory. Finish with thumb_jpeg_finish,
 * free with thumb_jpeg_free.
 */
struct thumb_jpeg_rows {
        int quality;
        struct thumb_jpeg *jpeg;
};
int thumb_jpeg_rows(const uint8_t *rows, unsigned width, unsigned height, unsigned y0, unsigned y1, void *userdata);

/* RFC 4648 base64 with padding, NUL-terminated, malloc'ed (NULL on ENOMEM). */
char *thumb_base64(const void *data, size_t size);
/* "data:MIME;base64,..." for an encoded image, malloc'ed (NULL on ENOMEM). */
char *thumb_data_url(enum thumb_encoding e, const void *data, size_t size);

/* A thumbnail of a screen. */
struct thumb_image {
        uint8_t *rgb;                   /* owned: packed RGB888, width * 3 bytes a row (NULL when streamed) */
        unsigned width, height;
        unsigned screen_width, screen_height;
        bool shm;                       /* read through MIT-SHM (else GetImage) */
        /* Of the grab's time, how much went to scaling strips (the rest is
         * waiting for the server's copies): the bench prints both. */
        unsigned long long scale_usec;
        uint64_t hash;                  /* of the screen's pixels as read (screen-revision.h) */
};

void thumb_image_done(struct thumb_image *i);

/*
 * Read the root window of screen `screen` and scale it to fit box_w x
 * box_h (never enlarged), strip by strip as the strips arrive: MIT-SHM when
 * the server offers SHM 1.2 (fd passing), GetImage otherwise. -EOPNOTSUPP
 * when the root visual has a layout we do not read, -EIO when the server
 * fails a request, -ENOMEM.
 */
int thumb_grab_scaled(xcb_connection_t *c, int screen, unsigned box_w, unsigned box_h, struct thumb_image *ret);

/*
 * The same read of the screen with nothing scaled: only the hash of its
 * pixels, the one thumb_image.hash of a grab of the same screen holds
 * (screen-revision.h). What an "unchanged" costs: a read, no picture.
 */
int thumb_grab_hash(xcb_connection_t *c, int screen, uint64_t *ret_hash);

/*
 * The same, handing on the output rows as they complete: after each strip,
 * on_rows gets the rows [y0, y1) of the width x height thumbnail new since
 * its last call, one after the other at rows (width * 3 bytes a row), so
 * that they can be encoded while the server copies the next strips. They
 * are valid during the call only: the whole picture is never in memory
 * (ret->rgb is NULL). A first call with no rows (y0 == y1 == 0) comes
 * before the first strip is back, to set up with the size known. A
 * negative return stops the grab and is returned.
 */
typedef int (*thumb_rows_fn)(const uint8_t *rows, unsigned width, unsigned height, unsigned y0, unsigned y1,
                             void *userdata);
int thumb_grab_scaled_stream(xcb_connection_t *c, int screen, unsigned box_w, unsigned box_h, thumb_rows_fn on_rows,
                             void *userdata, struct thumb_image *ret);

/*
 * A second picture of the same grab: the same strips scaled by a second
 * scaler to fit box_w x box_h, whole in rgb. It costs a scaler's time, not
 * a second read of the screen.
 */
struct thumb_picture {
        unsigned box_w, box_h;          /* the box it fits (never enlarged) */
        uint8_t *rgb;                   /* set, owned by the caller (free()): packed RGB888, width * 3 bytes a row */
        unsigned width, height;         /* set */
};

/* thumb_grab_scaled_stream, and *also filled (also->rgb NULL on failure). */
int thumb_grab_scaled_also(xcb_connection_t *c, int screen, unsigned box_w, unsigned box_h, thumb_rows_fn on_rows,
                           void *userdata, struct thumb_picture *also, struct thumb_image *ret);
