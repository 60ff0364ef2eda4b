/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What changed between two pictures (screen-diff.h): equal pictures have
 * no box; one pixel, or several apart, give the smallest box holding them,
 * widened by the margin within the picture; a change in the first or last
 * column or row is found; a crop is the box's pixels, and a box outside
 * the picture is refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#include "screen-diff.h"

#define W 40
#define H 30

static void set(uint8_t *rgb, unsigned x, unsigned y, uint8_t v) {
        rgb[((size_t) y * W + x) * 3 + 1] = v;
}

static int box_is(const unsigned b[4], unsigned x0, unsigned y0, unsigned x1, unsigned y1) {
        return b[0] == x0 && b[1] == y0 && b[2] == x1 && b[3] == y1;
}

int main(void) {
        static uint8_t a[W * H * 3], b[W * H * 3];
        unsigned box[4] = {};
        uint8_t *crop = NULL;

        for (size_t i = 0; i < sizeof a; i++)
                a[i] = (uint8_t) (i * 13);
        memcpy(b, a, sizeof a);
        TAP_EQ_INT(screen_diff_box(a, b, W, H, 0, box), 0, "equal pictures: no box");

        set(b, 10, 7, 0xff ^ a[(7 * W + 10) * 3 + 1]);
        TAP_EQ_INT(screen_diff_box(a, b, W, H, 0, box), 1, "one pixel changed: a box");
        TAP_EQ_INT(box_is(box, 10, 7, 10, 7), 1, "... of that pixel alone (%u,%u %u,%u)", box[0], box[1], box[2], box[3]);
        TAP_EQ_INT(screen_diff_box(a, b, W, H, 4, box), 1, "with a margin of 4");
        TAP_EQ_INT(box_is(box, 6, 3, 14, 11), 1, "... widened by 4 each side (%u,%u %u,%u)", box[0], box[1], box[2], box[3]);

        set(b, 25, 20, 0xff ^ a[(20 * W + 25) * 3 + 1]);
        TAP_EQ_INT(screen_diff_box(a, b, W, H, 0, box), 1, "two pixels apart");
        TAP_EQ_INT(box_is(box, 10, 7, 25, 20), 1, "... the smallest box holding both (%u,%u %u,%u)", box[0], box[1],
                   box[2], box[3]);

        memcpy(b, a, sizeof a);
        set(b, 0, 0, 0xff ^ a[1]);
        set(b, W - 1, H - 1, 0xff ^ a[((H - 1) * W + W - 1) * 3 + 1]);
        TAP_EQ_INT(screen_diff_box(a, b, W, H, 8, box), 1, "the first and the last pixel changed");
        TAP_EQ_INT(box_is(box, 0, 0, W - 1, H - 1), 1, "... the whole picture, the margin kept within it (%u,%u %u,%u)",
                   box[0], box[1], box[2], box[3]);

        memcpy(b, a, sizeof a);
        b[(5 * W + 39) * 3 + 2] ^= 1;
        TAP_EQ_INT(screen_diff_box(a, b, W, H, 0, box), 1, "one bit of the last column's blue");
        TAP_EQ_INT(box_is(box, 39, 5, 39, 5), 1, "... found (%u,%u %u,%u)", box[0], box[1], box[2], box[3]);

        {
                const unsigned cut[4] = { 3, 2, 6, 4 };
                int ok = 1;

                TAP_EQ_INT(screen_crop(a, W, H, cut, &crop), 0, "a crop of 4x3 pixels");
                for (unsigned y = 0; crop && y < 3; y++)
                        ok &= memcmp(crop + y * 4 * 3, a + ((2 + y) * W + 3) * 3, 4 * 3) == 0;
                TAP_EQ_INT(ok, 1, "... is the box's pixels, row by row");
                free(crop);
        }
        {
                const unsigned outside[4] = { 0, 0, W, 1 }, reversed[4] = { 5, 5, 4, 6 };

                crop = NULL;
                TAP_EQ_INT(screen_crop(a, W, H, outside, &crop), -EINVAL, "a box past the picture is refused");
                TAP_EQ_INT(screen_crop(a, W, H, reversed, &crop), -EINVAL, "a box with its corners reversed is refused");
                TAP_EQ_INT(crop == NULL, 1, "... and nothing is made");
        }
        return tap_done();
}
