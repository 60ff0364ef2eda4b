/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

#include "agent-frame.h"
#include "thumbnail.h"
#include "util.h"

/* The agent's picture at the default budget of a 1440x900 screen: red across, green down, blue in tiles. */
#define PW 1356u
#define PH 848u

static uint8_t *picture(void) {
        uint8_t *p = malloc((size_t) PW * PH * 3);

        for (unsigned y = 0; p && y < PH; y++)
                for (unsigned x = 0; x < PW; x++) {
                        uint8_t *q = p + ((size_t) y * PW + x) * 3;

                        q[0] = (uint8_t) (x * 255 / (PW - 1));
                        q[1] = (uint8_t) (y * 255 / (PH - 1));
                        q[2] = (uint8_t) (((x / 16 + y / 16) & 1) ? 230 : 20);
                }
        return p;
}

struct jpeg_fail {
        struct jpeg_error_mgr mgr;
        jmp_buf jump;
};

static void jpeg_fail_exit(j_common_ptr c) {
        longjmp(((struct jpeg_fail *) c->err)->jump, 1);
}

/* The JPEG decoded into back (w * h * 3), checked to be w x h RGB: 0, or -1 (said). */
static int decode(const uint8_t *jpg, size_t size, unsigned w, unsigned h, uint8_t *back) {
        struct jpeg_decompress_struct d = {};
        struct jpeg_fail err = {};

        d.err = jpeg_std_error(&err.mgr);
        err.mgr.error_exit = jpeg_fail_exit;
        if (setjmp(err.jump)) {
                jpeg_destroy_decompress(&d);
                tap_ok(0, "libjpeg decodes the frame");
                return -1;
        }
        jpeg_create_decompress(&d);
        jpeg_mem_src(&d, jpg, (unsigned long) size);
        jpeg_read_header(&d, TRUE);
        d.out_color_space = JCS_RGB;
        jpeg_start_decompress(&d);
        if (!tap_ok(d.output_width == w && d.output_height == h && d.output_components == 3,
                    "the frame is %ux%u RGB (got %ux%u)", w, h, d.output_width, d.output_height)) {
                jpeg_destroy_decompress(&d);
                return -1;
        }
        while (d.output_scanline < h) {
                JSAMPROW row = back + (size_t) d.output_scanline * w * 3;
                jpeg_read_scanlines(&d, &row, 1);
        }
        jpeg_finish_decompress(&d);
        jpeg_destroy_decompress(&d);
        return 0;
}

/* The frame is the picture scaled to frame_width by the thumbnail's scaler, whatever rows each push brings. */
static void test_frame_is_the_picture_scaled(void) {
        const unsigned fw = 640, fh = 400;
        _cleanup_free_ uint8_t *pic = picture(), *rgbx = malloc((size_t) PW * PH * 4), *want = malloc((size_t) fw * fh * 3),
                               *back = malloc((size_t) fw * fh * 3), *jpg = NULL;
        struct agent_frame *f = NULL;
        _cleanup_free_ uint8_t *ref = NULL;
        unsigned y = 0, n = 1;
        size_t size = 0, ref_size = 0;
        int r = 0;

        if (!pic || !rgbx || !want || !back) {
                tap_ok(0, "memory for the picture");
                return;
        }
        for (size_t i = 0; i < (size_t) PW * PH; i++) {
                memcpy(rgbx + 4 * i, pic + 3 * i, 3);
                rgbx[4 * i + 3] = 0;
        }
        TAP_EQ_INT(thumb_scale(rgbx, THUMB_RGBX8888, PW, PH, (size_t) PW * 4, want, fw, fh), 0,
                   "the reference: the picture scaled to 640x400 at once");
        TAP_EQ_INT(agent_frame_new(fw, PW, PH, &f), 0, "a frame 640 wide of a 1356x848 picture is set up");
        TAP_EQ_INT(agent_frame_finish(f, &jpg, &size), -EINVAL, "no frame before the picture's last row");
        /* Pushes of 1, 2, 3, ... rows, as the grab's strips complete them: chunk boundaries land everywhere. */
        for (; y < PH && r == 0; y += n, n++)
                r = agent_frame_push(f, pic + (size_t) y * PW * 3, y + n > PH ? PH - y : n);
        TAP_EQ_INT(r, 0, "every run of rows is taken");
        TAP_EQ_INT(agent_frame_push(f, pic, 1), -EINVAL, "a row past the picture's last is refused");
        TAP_EQ_INT(agent_frame_finish(f, &jpg, &size), 0, "the frame is encoded once every row was pushed");
        agent_frame_free(f);
        if (!jpg || decode(jpg, size, fw, fh, back) < 0)
                return;
        /* The same scaler and encoder as the frame process: byte for byte the JPEG of the reference. */
        TAP_EQ_INT(thumb_encode_jpeg(want, fw, fh, THUMB_JPEG_QUALITY_DEFAULT, &ref, &ref_size), 0,
                   "the reference is encoded at the frame process's quality");
        tap_ok(ref && size == ref_size && memcmp(jpg, ref, size) == 0,
               "the frame is the JPEG of the picture scaled to 640x400 (%zu bytes, the reference %zu)", size, ref_size);
}

static void test_sizes(void) {
        struct agent_frame *f = NULL;

        TAP_EQ_INT(agent_frame_new(1400, PW, PH, &f), -EOPNOTSUPP,
                   "a frame wider than the picture is left to the frame process");
        TAP_EQ_INT(agent_frame_new(0, PW, PH, &f), -EINVAL, "a frame width of 0 is refused");
        TAP_EQ_INT(agent_frame_new(640, 0, PH, &f), -EINVAL, "an empty picture is refused");
        TAP_EQ_INT(agent_frame_new(PW, PW, PH, &f), 0, "a frame as wide as the picture is the picture itself");
        agent_frame_free(f);
        tap_ok(agent_frame_free(NULL) == NULL, "freeing no frame is a no-op");
}

int main(void) {
        test_frame_is_the_picture_scaled();
        test_sizes();
        return tap_done();
}
