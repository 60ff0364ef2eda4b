/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "screen-diff.h"

int screen_diff_box(const uint8_t *old_rgb, const uint8_t *new_rgb, unsigned width, unsigned height, unsigned margin,
                    unsigned ret_box[static 4]) {
        size_t stride = (size_t) width * 3;
        unsigned x0 = width, y0 = height, x1 = 0, y1 = 0;

        for (unsigned y = 0; y < height; y++) {
                const uint8_t *a = old_rgb + y * stride, *b = new_rgb + y * stride;
                unsigned first, last;

                /* Most rows are equal: one memcmp each, the pixels looked at only in the rows that differ. */
                if (memcmp(a, b, stride) == 0)
                        continue;
                for (first = 0; memcmp(a + first * 3, b + first * 3, 3) == 0; first++)
                        ;
                for (last = width - 1; memcmp(a + last * 3, b + last * 3, 3) == 0; last--)
                        ;
                if (y < y0)
                        y0 = y;
                y1 = y;
                if (first < x0)
                        x0 = first;
                if (last > x1)
                        x1 = last;
        }
        if (x0 == width)
                return 0;
        ret_box[0] = x0 > margin ? x0 - margin : 0;
        ret_box[1] = y0 > margin ? y0 - margin : 0;
        ret_box[2] = x1 + margin < width ? x1 + margin : width - 1;
        ret_box[3] = y1 + margin < height ? y1 + margin : height - 1;
        return 1;
}

int screen_crop(const uint8_t *rgb, unsigned width, unsigned height, const unsigned box[static 4], uint8_t **ret) {
        unsigned w, h;
        uint8_t *out;

        if (box[0] > box[2] || box[1] > box[3] || box[2] >= width || box[3] >= height)
                return -EINVAL;
        w = box[2] - box[0] + 1;
        h = box[3] - box[1] + 1;
        out = malloc((size_t) w * h * 3);
        if (!out)
                return -ENOMEM;
        for (unsigned y = 0; y < h; y++)
                memcpy(out + (size_t) y * w * 3, rgb + ((size_t) (box[1] + y) * width + box[0]) * 3, (size_t) w * 3);
        *ret = out;
        return 0;
}
