/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <jpeglib.h>
#include <png.h>

#include "thumbnail.h"
#include "util.h"

/* ---- synthetic screens ------------------------------------------------------------------------ */

struct rgb {
        unsigned r, g, b;
};

/* A horizontal red ramp, a vertical green ramp, constant blue. */
static struct rgb gradient_at(unsigned x, unsigned y, unsigned w, unsigned h) {
        return (struct rgb) { x * 255 / (w - 1), y * 255 / (h - 1), 77 };
}

/* Store one pixel in any source layout. */
static void put_pixel(uint8_t *p, enum thumb_pixfmt f, struct rgb c) {
        unsigned v565 = (c.r >> 3) << 11 | (c.g >> 2) << 5 | c.b >> 3;

        switch (f) {
        case THUMB_BGRX8888:
                p[0] = (uint8_t) c.b, p[1] = (uint8_t) c.g, p[2] = (uint8_t) c.r, p[3] = 0xee;
                break;
        case THUMB_XRGB8888:
                p[0] = 0xee, p[1] = (uint8_t) c.r, p[2] = (uint8_t) c.g, p[3] = (uint8_t) c.b;
                break;
        case THUMB_RGBX8888:
                p[0] = (uint8_t) c.r, p[1] = (uint8_t) c.g, p[2] = (uint8_t) c.b, p[3] = 0xee;
                break;
        case THUMB_XBGR8888:
                p[0] = 0xee, p[1] = (uint8_t) c.b, p[2] = (uint8_t) c.g, p[3] = (uint8_t) c.r;
                break;
        case THUMB_RGB565_LE:
                p[0] = (uint8_t) v565, p[1] = (uint8_t) (v565 >> 8);
                break;
        case THUMB_RGB565_BE:
                p[0] = (uint8_t) (v565 >> 8), p[1] = (uint8_t) v565;
                break;
        default:
                abort();
        }
}

/* A w x h screen with rows padded to stride (junk in the padding), filled by fill(). */
static uint8_t *make_screen(enum thumb_pixfmt f, unsigned w, unsigned h, size_t stride,
                            struct rgb (*fill)(unsigned, unsigned, unsigned, unsigned)) {
        uint8_t *s = malloc(stride * h);

        if (!s)
                abort();
        memset(s, 0xa5, stride * h);
        for (unsigned y = 0; y < h; y++)
                for (unsigned x = 0; x < w; x++)
                        put_pixel(s + y * stride + (size_t) x * thumb_pixfmt_bytes(f), f, fill(x, y, w, h));
        return s;
}

static struct rgb pixel(const uint8_t *rgb, unsigned w, unsigned x, unsigned y) {
        const uint8_t *p = rgb + ((size_t) y * w + x) * 3;
        return (struct rgb) { p[0], p[1], p[2] };
}

static bool near(struct rgb a, struct rgb b, unsigned tol) {
        return (unsigned) abs((int) a.r - (int) b.r) <= tol && (unsigned) abs((int) a.g - (int) b.g) <= tol &&
               (unsigned) abs((int) a.b - (int) b.b) <= tol;
}

static void check_near(struct rgb got, struct rgb want, unsigned tol, const char *name) {
        if (!tap_ok(near(got, want, tol), "%s", name))
                printf("#   got (%u,%u,%u), want (%u,%u,%u) within %u\n", got.r, got.g, got.b, want.r, want.g, want.b,
                       tol);
}

/* ---- scaling ---------------------------------------------------------------------------------- */

static void test_gradient_1440x900(void) {
        _cleanup_free_ uint8_t *src = make_screen(THUMB_BGRX8888, 1440, 900, 1440 * 4, gradient_at);
        _cleanup_free_ uint8_t *dst = NULL;
        unsigned w, h, worst = 0;

        thumb_fit(1440, 900, 960, 600, &w, &h);
        TAP_EQ_INT(w, 960, "a 1440x900 screen fits a 960x600 box 960 pixels wide");
        TAP_EQ_INT(h, 600, "a 1440x900 screen fits a 960x600 box 600 pixels high (the aspect ratio is kept)");
        dst = malloc((size_t) w * h * 3);
        TAP_EQ_INT(thumb_scale(src, THUMB_BGRX8888, 1440, 900, 1440 * 4, dst, w, h), 0,
                   "scaling a 1440x900 BGRX screen to 960x600 succeeds");
        check_near(pixel(dst, w, 0, 0), (struct rgb) { 0, 0, 77 }, 1, "the top-left corner keeps its colour");
        check_near(pixel(dst, w, w - 1, 0), (struct rgb) { 255, 0, 77 }, 1, "the top-right corner keeps its colour");
        check_near(pixel(dst, w, 0, h - 1), (struct rgb) { 0, 255, 77 }, 1, "the bottom-left corner keeps its colour");
        check_near(pixel(dst, w, w - 1, h - 1), (struct rgb) { 255, 255, 77 }, 1,
                   "the bottom-right corner keeps its colour");

        /* Each output pixel is the mean of the area it covers: a ramp stays a ramp. */
        for (unsigned y = 0; y < h; y += 7)
                for (unsigned x = 0; x < w; x += 5) {
                        struct rgb got = pixel(dst, w, x, y);
                        double cx = (x + 0.5) * 1.5 - 0.5, cy = (y + 0.5) * 1.5 - 0.5;
                        struct rgb want = { (unsigned) (cx * 255 / 1439 + 0.5), (unsigned) (cy * 255 / 899 + 0.5), 77 };
                        unsigned d = (unsigned) abs((int) got.r - (int) want.r) + (unsigned) abs((int) got.g - (int) want.g);
                        if (d > worst)
                                worst = d;
                }
        if (!tap_ok(worst <= 2, "every scaled pixel is the mean of the source area it covers"))
                printf("#   worst deviation %u\n", worst);
}

static void test_no_upscale(void) {
        _cleanup_free_ uint8_t *src = make_screen(THUMB_BGRX8888, 100, 50, 400, gradient_at);
        _cleanup_free_ uint8_t *dst = malloc(100 * 50 * 3);
        unsigned w, h;
        bool same = true;

        thumb_fit(100, 50, 960, 600, &w, &h);
        tap_ok(w == 100 && h == 50, "a 100x50 screen in a 960x600 box is not upscaled (got %ux%u)", w, h);
        TAP_EQ_INT(thumb_scale(src, THUMB_BGRX8888, 100, 50, 400, dst, 100, 50), 0, "scaling to the same size succeeds");
        for (unsigned y = 0; y < 50; y++)
                for (unsigned x = 0; x < 100; x++)
                        same = same && near(pixel(dst, 100, x, y), gradient_at(x, y, 100, 50), 0);
        tap_ok(same, "scaling to the same size copies every pixel exactly");
        TAP_EQ_INT(thumb_scale(src, THUMB_BGRX8888, 100, 50, 400, dst, 101, 50), -EINVAL, "thumb_scale refuses to upscale");
        TAP_EQ_INT(thumb_scale(src, THUMB_BGRX8888, 100, 50, 399, dst, 50, 25), -EINVAL,
                   "thumb_scale refuses a stride shorter than a row");
}

/* Pushed a few rows at a time (as strips arrive from X), the result is the same. */
static void test_streaming(void) {
        const unsigned sw = 1366, sh = 768, dw = 403, dh = 227;
        const size_t stride = sw * 4 + 8;
        _cleanup_free_ uint8_t *src = make_screen(THUMB_XRGB8888, sw, sh, stride, gradient_at);
        _cleanup_free_ uint8_t *whole = malloc((size_t) dw * dh * 3), *strips = malloc((size_t) dw * dh * 3);
        struct thumb_scaler *s = NULL;
        unsigned y = 0, n = 1;
        int r = 0;

        TAP_EQ_INT(thumb_scale(src, THUMB_XRGB8888, sw, sh, stride, whole, dw, dh), 0, "scaling 1366x768 to 403x227 succeeds");
        TAP_EQ_INT(thumb_scaler_new(THUMB_XRGB8888, sw, sh, strips, dw, dh, &s), 0, "a streaming scaler is created");
        /* Strips of 1, 2, 3, ... rows: every boundary lands somewhere different. */
        for (; y < sh && r == 0; y += n, n++)
                r = thumb_scaler_push(s, src + y * stride, stride, y + n > sh ? sh - y : n);
        TAP_EQ_INT(r, 0, "every strip is accepted");
        TAP_EQ_INT(thumb_scaler_push(s, src, stride, 1), -EINVAL, "a row past the last source row is refused");
        tap_ok(memcmp(whole, strips, (size_t) dw * dh * 3) == 0, "scaling strip by strip gives the same pixels as at once");
        TAP_EQ_INT(thumb_scaler_rows_done(s), dh, "after the last source row every output row is done");
        thumb_scaler_free(s);
}

/* Rows as they complete, from a ring that holds what one push can complete, copied out after each push. */
static void test_ring(void) {
        const unsigned sw = 1440, sh = 900, dw = 960, dh = 600;
        _cleanup_free_ uint8_t *src = make_screen(THUMB_BGRX8888, sw, sh, sw * 4, gradient_at);
        _cleanup_free_ uint8_t *whole = malloc((size_t) dw * dh * 3), *out = calloc((size_t) dw * dh, 3), *ring = NULL;
        struct thumb_scaler *s = NULL;
        unsigned sent = 0, rows = 1, max_rows = 0;
        int r = 0;

        TAP_EQ_INT(thumb_scale(src, THUMB_BGRX8888, sw, sh, sw * 4, whole, dw, dh), 0, "scaling 1440x900 to 960x600 succeeds");
        /* The ring for the largest strip pushed below. */
        for (unsigned n = 1; n <= 23; n++)
                if (thumb_scaler_ring_rows(sh, dh, n) > max_rows)
                        max_rows = thumb_scaler_ring_rows(sh, dh, n);
        TAP_EQ_INT(thumb_scaler_ring_rows(sh, dh, 22), 15, "22 source rows of 900 complete at most 15 rows of 600");
        TAP_EQ_INT(thumb_scaler_ring_rows(3, 2, 2), 2, "2 source rows of 3 may complete both rows of 2");
        TAP_EQ_INT(thumb_scaler_ring_rows(5, 5, 4), 4, "at the same size each source row completes one output row");
        ring = malloc((size_t) dw * max_rows * 3);
        TAP_EQ_INT(thumb_scaler_new_ring(THUMB_BGRX8888, sw, sh, ring, 0, dw, dh, &s), -EINVAL, "a ring of no rows is refused");
        TAP_EQ_INT(thumb_scaler_new_ring(THUMB_BGRX8888, sw, sh, ring, dh + 1, dw, dh, &s), -EINVAL,
                   "a ring taller than the picture is refused");
        TAP_EQ_INT(thumb_scaler_new_ring(THUMB_BGRX8888, sw, sh, ring, max_rows, dw, dh, &s), 0, "a scaler into a ring is created");
        /* Strips of 1..23 rows, again and again: every boundary and every wrap of the ring lands somewhere else. */
        for (unsigned y = 0; y < sh && r == 0; y += rows, rows = rows % 23 + 1) {
                unsigned n = y + rows > sh ? sh - y : rows;

                r = thumb_scaler_push(s, src + (size_t) y * sw * 4, sw * 4, n);
                if (thumb_scaler_rows_done(s) - sent > thumb_scaler_ring_rows(sh, dh, n))
                        r = -E2BIG;
                for (; sent < thumb_scaler_rows_done(s); sent++)
                        memcpy(out + (size_t) sent * dw * 3, ring + (size_t) (sent % max_rows) * dw * 3, (size_t) dw * 3);
        }
        TAP_EQ_INT(r, 0, "every strip is accepted and completes no more rows than thumb_scaler_ring_rows says");
        TAP_EQ_INT(sent, dh, "every output row came out of the ring");
        tap_ok(memcmp(whole, out, (size_t) dw * dh * 3) == 0, "the rows out of the ring are the pixels of the whole picture");
        thumb_scaler_free(s);
}

/* Deterministic noise: every byte of every pixel independent, the worst case for a filter. */
static uint32_t noise_state;

static struct rgb noise_at(_unused_ unsigned x, _unused_ unsigned y, _unused_ unsigned w, _unused_ unsigned h) {
        struct rgb c;

        noise_state = noise_state * 1103515245u + 12345u;
        c.r = noise_state >> 24;
        noise_state = noise_state * 1103515245u + 12345u;
        c.g = noise_state >> 24;
        noise_state = noise_state * 1103515245u + 12345u;
        c.b = noise_state >> 24;
        return c;
}

/* How much of source pixel j, of n_src, falls inside output pixel i, of n_dst (0..1). */
static double overlap(unsigned i, unsigned j, unsigned n_src, unsigned n_dst) {
        double lo = (double) i * n_src / n_dst, hi = (double) (i + 1) * n_src / n_dst;
        double a = j > lo ? j : lo, b = j + 1.0 < hi ? j + 1.0 : hi;

        return b > a ? (b - a) * n_dst / n_src : 0;
}

/*
 * The plain box filter the scaler implements, in doubles, one output pixel
 * at a time: the mean of the source area it covers, each source pixel
 * weighted by the part of it inside. The vectorised scaler (8-bit weights,
 * two roundings) must stay within 2 levels of it on noise, and within
 * 1 level on average.
 */
static void check_reference(unsigned sw, unsigned sh, unsigned dw, unsigned dh) {
        _cleanup_free_ uint8_t *src = NULL, *dst = malloc((size_t) dw * dh * 3);
        unsigned worst = 0;
        double sum = 0;

        noise_state = sw * 31 + sh;
        src = make_screen(THUMB_BGRX8888, sw, sh, sw * 4, noise_at);
        if (!tap_ok(thumb_scale(src, THUMB_BGRX8888, sw, sh, sw * 4, dst, dw, dh) == 0, "scaling %ux%u to %ux%u succeeds",
                    sw, sh, dw, dh))
                return;
        for (unsigned y = 0; y < dh; y++)
                for (unsigned x = 0; x < dw; x++) {
                        unsigned j0 = (unsigned) ((uint64_t) y * sh / dh), i0 = (unsigned) ((uint64_t) x * sw / dw);
                        double want[3] = {};

                        for (unsigned j = j0; j < sh && (double) j < (double) (y + 1) * sh / dh; j++)
                                for (unsigned i = i0; i < sw && (double) i < (double) (x + 1) * sw / dw; i++) {
                                        const uint8_t *p = src + (size_t) j * sw * 4 + (size_t) i * 4;
                                        double wgt = overlap(y, j, sh, dh) * overlap(x, i, sw, dw);

                                        want[0] += wgt * p[2];
                                        want[1] += wgt * p[1];
                                        want[2] += wgt * p[0];
                                }
                        for (unsigned c = 0; c < 3; c++) {
                                double d = fabs(dst[((size_t) y * dw + x) * 3 + c] - want[c]);

                                sum += d;
                                if ((unsigned) (d + 0.5) > worst)
                                        worst = (unsigned) (d + 0.5);
                        }
                }
        if (!tap_ok(worst <= 2 && sum / ((double) dw * dh * 3) <= 1.0,
                    "%ux%u to %ux%u: every pixel within 2 levels of a plain box filter, within 1 on average", sw, sh, dw, dh))
                printf("#   worst %u, mean %.3f\n", worst, sum / ((double) dw * dh * 3));
}

static void test_reference(void) {
        check_reference(1440, 900, 960, 600);   /* the bench's case: 1.5 each way */
        check_reference(1366, 768, 403, 227);   /* uneven ratios, boundaries everywhere */
        check_reference(333, 217, 100, 65);
        check_reference(640, 480, 640, 480);    /* the same size: a copy */
        check_reference(1000, 10, 3, 1);        /* far beyond 256:1 vertically and horizontally */
}

static void check_fit(unsigned sw, unsigned sh, unsigned bw, unsigned bh, unsigned ww, unsigned wh) {
        unsigned w, h;

        thumb_fit(sw, sh, bw, bh, &w, &h);
        if (!tap_ok(w == ww && h == wh, "%ux%u fits a %ux%u box as %ux%u", sw, sh, bw, bh, ww, wh))
                printf("#   got %ux%u\n", w, h);
}

static void test_fit(void) {
        check_fit(1366, 768, 960, 600, 960, 540);      /* 539.7 rounds up */
        check_fit(1920, 1080, 960, 600, 960, 540);
        check_fit(1024, 768, 960, 600, 800, 600);      /* taller than the box: the height decides */
        check_fit(1440, 900, 320, 200, 320, 200);
        check_fit(800, 600, 960, 600, 800, 600);       /* already fits */
        check_fit(1001, 3, 960, 600, 960, 3);          /* 2.88 rounds to 3 */
        check_fit(3, 1000, 960, 600, 2, 600);          /* 1.8 rounds to 2 */
        check_fit(8192, 1, 10, 10, 10, 1);             /* never below one pixel */
        check_fit(1, 8192, 10, 10, 1, 10);
        check_fit(1441, 901, 960, 600, 960, 600);      /* 600.2 */
        check_fit(1439, 899, 1438, 898, 1437, 898);    /* one less each way: the height decides, 1437.4 */
}

static struct rgb flat(_unused_ unsigned x, _unused_ unsigned y, _unused_ unsigned w, _unused_ unsigned h) {
        /* Exactly representable in RGB565. */
        return (struct rgb) { 0xff, 0x82, 0x29 };
}

static void test_formats(void) {
        static const char *const names[] = {
                [THUMB_BGRX8888] = "BGRX", [THUMB_XRGB8888] = "XRGB", [THUMB_RGBX8888] = "RGBX",
                [THUMB_XBGR8888] = "XBGR", [THUMB_RGB565_LE] = "RGB565 little-endian",
                [THUMB_RGB565_BE] = "RGB565 big-endian",
        };

        for (unsigned f = 0; f < _THUMB_PIXFMT_MAX; f++) {
                unsigned bpp = thumb_pixfmt_bytes(f), sw = 333, sh = 217, dw, dh;
                size_t stride = sw * bpp + 12;
                _cleanup_free_ uint8_t *src = make_screen(f, sw, sh, stride, flat);
                _cleanup_free_ uint8_t *dst = NULL;
                bool same = true;

                thumb_fit(sw, sh, 100, 100, &dw, &dh);
                dst = malloc((size_t) dw * dh * 3);
                TAP_EQ_INT(thumb_scale(src, f, sw, sh, stride, dst, dw, dh), 0, "scaling %s 333x217 to %ux%u succeeds",
                           names[f], dw, dh);
                for (unsigned i = 0; i < dw * dh; i++)
                        same = same && near(pixel(dst, dw, i % dw, i / dw), flat(0, 0, 0, 0), 0);
                tap_ok(same, "a flat %s screen scaled by an odd ratio stays exactly its colour", names[f]);
        }

        TAP_EQ_INT(thumb_pixfmt_from_x(32, 24, false, 0xff0000, 0xff00, 0xff), THUMB_BGRX8888,
                   "Xvnc's depth 24 on a little-endian host is BGRX");
        TAP_EQ_INT(thumb_pixfmt_from_x(32, 32, false, 0xff0000, 0xff00, 0xff), THUMB_BGRX8888, "depth 32 is BGRX too");
        TAP_EQ_INT(thumb_pixfmt_from_x(32, 24, true, 0xff0000, 0xff00, 0xff), THUMB_XRGB8888,
                   "the same visual from a big-endian server is XRGB");
        TAP_EQ_INT(thumb_pixfmt_from_x(32, 24, false, 0xff, 0xff00, 0xff0000), THUMB_RGBX8888,
                   "a visual with red in the low byte is RGBX");
        TAP_EQ_INT(thumb_pixfmt_from_x(16, 16, false, 0xf800, 0x7e0, 0x1f), THUMB_RGB565_LE, "depth 16 is RGB565");
        TAP_EQ_INT(thumb_pixfmt_from_x(16, 15, false, 0x7c00, 0x3e0, 0x1f), -EOPNOTSUPP, "depth 15 is refused");
        TAP_EQ_INT(thumb_pixfmt_from_x(24, 24, false, 0xff0000, 0xff00, 0xff), -EOPNOTSUPP, "packed 24 bpp is refused");
        TAP_EQ_INT(thumb_pixfmt_from_x(8, 8, false, 0, 0, 0), -EOPNOTSUPP, "depth 8 is refused");
        TAP_EQ_INT(thumb_pixfmt_from_x(32, 30, false, 0x3ff00000, 0xffc00, 0x3ff), -EOPNOTSUPP,
                   "10-bit channels are refused");
}

/* ---- encoders --------------------------------------------------------------------------------- */

/* Eight flat 40x40 tiles: what a screen mostly is, and what JPEG keeps well. */
static struct rgb tiles(unsigned x, unsigned y, _unused_ unsigned w, _unused_ unsigned h) {
        static const struct rgb c[8] = {
                { 255, 255, 255 }, { 0, 0, 0 }, { 220, 40, 40 }, { 40, 200, 60 },
                { 30, 60, 220 }, { 240, 220, 30 }, { 128, 128, 128 }, { 20, 140, 160 },
        };
        return c[(x / 40 + (y / 40) * 4) % 8];
}

static uint8_t *make_rgb(unsigned w, unsigned h, struct rgb (*fill)(unsigned, unsigned, unsigned, unsigned)) {
        uint8_t *rgb = malloc((size_t) w * h * 3);

        for (unsigned y = 0; y < h; y++)
                for (unsigned x = 0; x < w; x++) {
                        struct rgb c = fill(x, y, w, h);
                        uint8_t *p = rgb + ((size_t) y * w + x) * 3;
                        p[0] = (uint8_t) c.r, p[1] = (uint8_t) c.g, p[2] = (uint8_t) c.b;
                }
        return rgb;
}

static void test_png(void) {
        const unsigned w = 161, h = 83;   /* odd: no row is a multiple of anything */
        _cleanup_free_ uint8_t *rgb = make_rgb(w, h, gradient_at), *png = NULL, *back = NULL;
        png_image img = { .version = PNG_IMAGE_VERSION };
        size_t size = 0;

        TAP_EQ_INT(thumb_encode_png(rgb, w, h, THUMB_PNG_LEVEL_DEFAULT, &png, &size), 0, "encoding a PNG succeeds");
        tap_ok(size > 8 && png && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "the PNG starts with the PNG signature");
        if (!tap_ok(png_image_begin_read_from_memory(&img, png, size), "libpng reads the PNG header back"))
                printf("#   %s\n", img.message);
        tap_ok(img.width == w && img.height == h, "the PNG is %ux%u (got %ux%u)", w, h, img.width, img.height);
        img.format = PNG_FORMAT_RGB;
        back = malloc(PNG_IMAGE_SIZE(img));
        tap_ok(back && png_image_finish_read(&img, NULL, back, 0, NULL), "libpng decodes the whole PNG");
        tap_ok(back && memcmp(back, rgb, (size_t) w * h * 3) == 0, "the PNG decodes to exactly the pixels encoded");
        png_image_free(&img);
        TAP_EQ_INT(thumb_encode_png(rgb, w, h, 10, &png, &size), -EINVAL, "a zlib level above 9 is refused");
}

struct jpeg_fail {
        struct jpeg_error_mgr mgr;
        jmp_buf jump;
};

static void jpeg_fail_exit(j_common_ptr c) {
        longjmp(((struct jpeg_fail *) c->err)->jump, 1);
}

static void test_jpeg(void) {
        const unsigned w = 320, h = 200;
        _cleanup_free_ uint8_t *rgb = make_rgb(w, h, tiles), *jpg = NULL;
        /* Allocated before setjmp, so it is still known after a longjmp. */
        _cleanup_free_ uint8_t *back = malloc((size_t) w * h * 3);
        struct jpeg_decompress_struct d = {};
        struct jpeg_fail err = {};
        size_t size = 0;
        unsigned worst = 0;
        bool subsampled = false;

        TAP_EQ_INT(thumb_encode_jpeg(rgb, w, h, THUMB_JPEG_QUALITY_DEFAULT, &jpg, &size), 0, "encoding a JPEG succeeds");
        tap_ok(size > 3 && jpg && jpg[0] == 0xff && jpg[1] == 0xd8 && jpg[2] == 0xff, "the JPEG starts with SOI");

        d.err = jpeg_std_error(&err.mgr);
        err.mgr.error_exit = jpeg_fail_exit;
        if (setjmp(err.jump)) {
                jpeg_destroy_decompress(&d);
                tap_ok(0, "libjpeg decodes the JPEG");
                return;
        }
        jpeg_create_decompress(&d);
        jpeg_mem_src(&d, jpg, (unsigned long) size);
        jpeg_read_header(&d, TRUE);
        subsampled = d.num_components == 3 && d.comp_info[0].h_samp_factor == 2 && d.comp_info[0].v_samp_factor == 2 &&
                     d.comp_info[1].h_samp_factor == 1 && d.comp_info[1].v_samp_factor == 1;
        d.out_color_space = JCS_RGB;
        jpeg_start_decompress(&d);
        if (d.output_width != w || d.output_height != h || d.output_components != 3) {
                tap_ok(0, "the JPEG is %ux%u RGB (got %ux%u, %d components)", w, h, d.output_width, d.output_height,
                       d.output_components);
                jpeg_destroy_decompress(&d);
                return;
        }
        while (d.output_scanline < d.output_height) {
                JSAMPROW row = back + (size_t) d.output_scanline * d.output_width * 3;
                jpeg_read_scanlines(&d, &row, 1);
        }
        jpeg_finish_decompress(&d);
        tap_ok(1, "libjpeg decodes the JPEG");
        tap_ok(d.output_width == w && d.output_height == h, "the JPEG is %ux%u (got %ux%u)", w, h, d.output_width,
               d.output_height);
        tap_ok(subsampled, "the JPEG is YCbCr 4:2:0");
        jpeg_destroy_decompress(&d);

        /* Tile centres, away from the edges where ringing and chroma blur live. */
        for (unsigned ty = 0; ty < h / 40; ty++)
                for (unsigned tx = 0; tx < w / 40; tx++) {
                        unsigned x = tx * 40 + 20, y = ty * 40 + 20;
                        struct rgb got = pixel(back, w, x, y), want = tiles(x, y, w, h);
                        unsigned dd = (unsigned) (abs((int) got.r - (int) want.r) + abs((int) got.g - (int) want.g) +
                                                  abs((int) got.b - (int) want.b));
                        if (dd > worst)
                                worst = dd;
                }
        if (!tap_ok(worst <= 24, "the JPEG decodes to approximately the colours encoded"))
                printf("#   worst summed deviation %u\n", worst);

        TAP_EQ_INT(thumb_encode_jpeg(rgb, w, h, 0, &jpg, &size), -EINVAL, "JPEG quality 0 is refused");
        TAP_EQ_INT(thumb_encode_jpeg(rgb, w, h, 101, &jpg, &size), -EINVAL, "JPEG quality 101 is refused");
}

/* The encoder fed rows as the scaler completes them writes the very bytes of a one-shot encode. */
static void test_jpeg_streaming(void) {
        const unsigned w = 403, h = 227;
        _cleanup_free_ uint8_t *rgb = make_rgb(w, h, tiles), *once = NULL, *fed = NULL, *early = NULL;
        struct thumb_jpeg *j = NULL;
        size_t once_size = 0, fed_size = 0, early_size = 0;
        unsigned y = 0, n = 1;
        int r = 0;

        TAP_EQ_INT(thumb_encode_jpeg(rgb, w, h, 60, &once, &once_size), 0, "a one-shot JPEG encodes");
        TAP_EQ_INT(thumb_jpeg_new(w, h, 60, &j), 0, "a streaming JPEG encoder is created");
        TAP_EQ_INT(thumb_jpeg_finish(j, &early, &early_size), -EINVAL, "finishing before the last row is refused");
        /* Pushes of 1, 2, 3, ... rows: none lines up with libjpeg's 16-row MCUs. */
        for (; y < h && r == 0; y += n, n++)
                r = thumb_jpeg_push(j, rgb + (size_t) y * w * 3, y + n > h ? h - y : n);
        TAP_EQ_INT(r, 0, "every push is accepted");
        TAP_EQ_INT(thumb_jpeg_push(j, rgb, 1), -EINVAL, "a row past the last is refused");
        TAP_EQ_INT(thumb_jpeg_finish(j, &fed, &fed_size), 0, "the streaming JPEG finishes");
        tap_ok(fed_size == once_size && memcmp(fed, once, once_size) == 0,
               "rows pushed a few at a time encode to the same bytes as at once");
        thumb_jpeg_free(j);
        TAP_EQ_INT(thumb_jpeg_new(w, h, 0, &j), -EINVAL, "a streaming encoder refuses quality 0");
        TAP_EQ_INT(thumb_jpeg_new(0, h, 60, &j), -EINVAL, "a streaming encoder refuses width 0");
        tap_ok(thumb_jpeg_free(NULL) == NULL, "freeing no encoder is fine");
}

/* ---- base64, data URLs ------------------------------------------------------------------------ */

static void check_base64(const char *in, const char *want) {
        _cleanup_free_ char *got = thumb_base64(in, strlen(in));
        TAP_EQ_STR(got, want, "base64 of \"%s\" is \"%s\" (RFC 4648)", in, want);
}

static void test_base64(void) {
        static const uint8_t bin[] = { 0xfb, 0xff, 0xbf, 0x00, 0x10, 0x83 };
        _cleanup_free_ char *b = thumb_base64(bin, sizeof bin);
        _cleanup_free_ char *png = thumb_data_url(THUMB_PNG, "foo", 3), *jpg = thumb_data_url(THUMB_JPEG, "", 0);

        check_base64("", "");
        check_base64("f", "Zg==");
        check_base64("fo", "Zm8=");
        check_base64("foo", "Zm9v");
        check_base64("foob", "Zm9vYg==");
        check_base64("fooba", "Zm9vYmE=");
        check_base64("foobar", "Zm9vYmFy");
        TAP_EQ_STR(b, "+/+/ABCD", "base64 uses + and / for the last two digits and encodes NUL bytes");
        TAP_EQ_STR(png, "data:image/png;base64,Zm9v", "a PNG data URL names image/png");
        TAP_EQ_STR(jpg, "data:image/jpeg;base64,", "a JPEG data URL names image/jpeg");
}

/* ---- option parsing --------------------------------------------------------------------------- */

static void check_size(const char *s, int want_r, unsigned ww, unsigned wh) {
        unsigned w = 0, h = 0;
        int r = thumb_parse_size(s, &w, &h);

        if (want_r == 0) {
                if (!tap_ok(r == 0 && w == ww && h == wh, "--size \"%s\" is %ux%u", s, ww, wh))
                        printf("#   got %d, %ux%u\n", r, w, h);
        } else if (!tap_ok(r == want_r && w == 0 && h == 0, "--size \"%s\" is refused (%d)", s, want_r))
                printf("#   got %d, %ux%u\n", r, w, h);
}

static void test_parse(void) {
        check_size("960x600", 0, 960, 600);
        check_size("1x1", 0, 1, 1);
        check_size("8192x8192", 0, 8192, 8192);
        check_size("0320x0200", 0, 320, 200);
        check_size("", -EINVAL, 0, 0);
        check_size("960", -EINVAL, 0, 0);
        check_size("960x", -EINVAL, 0, 0);
        check_size("x600", -EINVAL, 0, 0);
        check_size("960X600", -EINVAL, 0, 0);
        check_size("960x600x1", -EINVAL, 0, 0);
        check_size(" 960x600", -EINVAL, 0, 0);
        check_size("960 x600", -EINVAL, 0, 0);
        check_size("+960x600", -EINVAL, 0, 0);
        check_size("-1x600", -EINVAL, 0, 0);
        check_size("960x6e2", -EINVAL, 0, 0);
        check_size("0x600", -ERANGE, 0, 0);
        check_size("960x0", -ERANGE, 0, 0);
        check_size("8193x600", -ERANGE, 0, 0);
        check_size("960x99999999999999999999999", -ERANGE, 0, 0);
}

int main(void) {
        test_gradient_1440x900();
        test_no_upscale();
        test_streaming();
        test_ring();
        test_reference();
        test_fit();
        test_formats();
        test_png();
        test_jpeg();
        test_jpeg_streaming();
        test_base64();
        test_parse();
        return tap_done();
}
