/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

#include "frame-diff.h"

struct decode_error {
        struct jpeg_error_mgr mgr;
        jmp_buf jump;
};

static void error_exit_cb(j_common_ptr c) {
        longjmp(((struct decode_error *) c->err)->jump, 1);
}

static void output_message_cb(j_common_ptr c) {
        (void) c;       /* a corrupt frame is the caller's to report */
}

int frame_jpeg_decode(const void *data, size_t size, uint8_t **ret_rgb, unsigned *ret_w, unsigned *ret_h) {
        struct jpeg_decompress_struct cinfo;
        struct decode_error err;
        uint8_t *volatile rgb = NULL;

        cinfo.err = jpeg_std_error(&err.mgr);
        err.mgr.error_exit = error_exit_cb;
        err.mgr.output_message = output_message_cb;
        if (setjmp(err.jump)) {
                jpeg_destroy_decompress(&cinfo);
                free(rgb);
                return -EINVAL;
        }
        jpeg_create_decompress(&cinfo);
        jpeg_mem_src(&cinfo, data, (unsigned long) size);
        if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK)
                longjmp(err.jump, 1);
        cinfo.out_color_space = JCS_RGB;
        jpeg_start_decompress(&cinfo);
        if (cinfo.output_components != 3 || cinfo.output_width == 0 || cinfo.output_height == 0 ||
            cinfo.output_width > 16384 || cinfo.output_height > 16384)
                longjmp(err.jump, 1);
        rgb = malloc((size_t) cinfo.output_width * cinfo.output_height * 3);
        if (!rgb) {
                jpeg_destroy_decompress(&cinfo);
                return -ENOMEM;
        }
        while (cinfo.output_scanline < cinfo.output_height) {
                JSAMPROW row = rgb + (size_t) cinfo.output_scanline * cinfo.output_width * 3;
                jpeg_read_scanlines(&cinfo, &row, 1);
        }
        *ret_w = cinfo.output_width;
        *ret_h = cinfo.output_height;
        jpeg_finish_decompress(&cinfo);
        jpeg_destroy_decompress(&cinfo);
        *ret_rgb = rgb;
        return 0;
}

double frame_diff_percent(const uint8_t *a, const uint8_t *b, unsigned w, unsigned h, unsigned threshold) {
        size_t n = (size_t) w * h, bad = 0;

        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++) {
                unsigned m = 0;

                for (unsigned c = 0; c < 3; c++) {
                        unsigned d = (unsigned) abs((int) a[3 * i + c] - (int) b[3 * i + c]);
                        if (d > m)
                                m = d;
                }
                bad += m > threshold;
        }
        return 100.0 * (double) bad / (double) n;
}
