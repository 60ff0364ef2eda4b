/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "coords.h"

/* a * b / c rounded to nearest, in 64 bits: screens are at most 65535 pixels each way. */
static unsigned long long muldiv_round(unsigned long long a, unsigned long long b, unsigned long long c) {
        return (a * b + c / 2) / c;
}

void mcp_space_fit(unsigned screen_w, unsigned screen_h, unsigned max_edge, unsigned max_pixels, struct mcp_space *ret) {
        unsigned long long w, h;
        bool wide = screen_w >= screen_h;

        if (screen_w == 0)
                screen_w = 1;
        if (screen_h == 0)
                screen_h = 1;
        if (max_edge == 0)
                max_edge = 1;
        if (max_pixels == 0)
                max_pixels = 1;
        /* The long edge first, the other from it; then, integer only (no
         * rounding of a square root to argue about), narrower until the
         * area fits too. */
        if (wide) {
                w = screen_w < max_edge ? screen_w : max_edge;
                h = muldiv_round(screen_h, w, screen_w);
        } else {
                h = screen_h < max_edge ? screen_h : max_edge;
                w = muldiv_round(screen_w, h, screen_h);
        }
        while (w * h > max_pixels && w > 1 && h > 1) {
                if (wide) {
                        w--;
                        h = muldiv_round(screen_h, w, screen_w);
                } else {
                        h--;
                        w = muldiv_round(screen_w, h, screen_h);
                }
        }
        *ret = (struct mcp_space) {
                .screen_w = screen_w,
                .screen_h = screen_h,
                .image_w = w ? (unsigned) w : 1,
                .image_h = h ? (unsigned) h : 1,
        };
}

double mcp_space_scale(const struct mcp_space *s) {
        return (double) s->image_w / (double) s->screen_w;
}

int mcp_space_to_screen(const struct mcp_space *s, long long x, long long y, unsigned *ret_x, unsigned *ret_y) {
        if (x < 0 || y < 0 || x >= s->image_w || y >= s->image_h)
                return -ERANGE;
        /* Picture pixel x shows screen [x * W / w, (x + 1) * W / w): its
         * centre is (2x + 1) * W / 2w, which at scale 1 is x itself. */
        *ret_x = (unsigned) (((unsigned long long) (2 * x + 1) * s->screen_w) / (2ull * s->image_w));
        *ret_y = (unsigned) (((unsigned long long) (2 * y + 1) * s->screen_h) / (2ull * s->image_h));
        return 0;
}

void mcp_space_from_screen(const struct mcp_space *s, unsigned x, unsigned y, unsigned *ret_x, unsigned *ret_y) {
        unsigned long long px = (unsigned long long) x * s->image_w / s->screen_w;
        unsigned long long py = (unsigned long long) y * s->image_h / s->screen_h;

        *ret_x = px < s->image_w ? (unsigned) px : s->image_w - 1;
        *ret_y = py < s->image_h ? (unsigned) py : s->image_h - 1;
}

bool mcp_space_rect_from_screen(const struct mcp_space *s, long long x, long long y, long long w, long long h,
                                unsigned ret[4]) {
        long long x0 = x, y0 = y, x1 = x + w, y1 = y + h;
        unsigned long long px0, py0, px1, py1;

        /* Clipped to the screen: what the picture shows of it. */
        x0 = x0 < 0 ? 0 : x0 > s->screen_w ? s->screen_w : x0;
        y0 = y0 < 0 ? 0 : y0 > s->screen_h ? s->screen_h : y0;
        x1 = x1 < x0 ? x0 : x1 > s->screen_w ? s->screen_w : x1;
        y1 = y1 < y0 ? y0 : y1 > s->screen_h ? s->screen_h : y1;
        if (x1 == x0 || y1 == y0)
                return false;
        /* The first picture pixel that shows any of it, and the last (rounded out). */
        px0 = (unsigned long long) x0 * s->image_w / s->screen_w;
        py0 = (unsigned long long) y0 * s->image_h / s->screen_h;
        px1 = ((unsigned long long) x1 * s->image_w + s->screen_w - 1) / s->screen_w;
        py1 = ((unsigned long long) y1 * s->image_h + s->screen_h - 1) / s->screen_h;
        ret[0] = (unsigned) px0, ret[1] = (unsigned) py0;
        ret[2] = (unsigned) (px1 - px0), ret[3] = (unsigned) (py1 - py0);
        return true;
}
