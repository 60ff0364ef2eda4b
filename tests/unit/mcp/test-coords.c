/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "coords.h"
#include "tap.h"

/* Every screen point of a grid, aimed at through the picture (the picture
 * pixel that shows it), lands within one screen pixel of it. */
static void grid(unsigned sw, unsigned sh, unsigned max_edge, double want_scale) {
        struct mcp_space s;
        unsigned worst = 0, n = 0, off = 0;

        mcp_space_fit(sw, sh, max_edge, 100000000u, &s);
        tap_ok(mcp_space_scale(&s) == want_scale, "%ux%u into a %u edge is at scale %.2f (%ux%u)", sw, sh, max_edge,
               want_scale, s.image_w, s.image_h);
        for (unsigned ty = 0; ty < sh; ty += 7)
                for (unsigned tx = 0; tx < sw; tx += 7) {
                        long long px = (long long) tx * s.image_w / s.screen_w, py = (long long) ty * s.image_h / s.screen_h;
                        unsigned x, y, dx, dy;

                        n++;
                        if (mcp_space_to_screen(&s, px, py, &x, &y) < 0) {
                                off++;
                                continue;
                        }
                        dx = x > tx ? x - tx : tx - x;
                        dy = y > ty ? y - ty : ty - y;
                        if (dx > worst)
                                worst = dx;
                        if (dy > worst)
                                worst = dy;
                }
        tap_ok(off == 0 && worst <= 1, "at scale %.2f, %u targets land within 1 screen pixel (worst %u, %u outside)",
               want_scale, n, worst, off);
}

int main(void) {
        struct mcp_space s;
        unsigned x, y;

        grid(1000, 750, 1568, 1.0);
        grid(1000, 750, 800, 0.8);
        grid(1000, 750, 500, 0.5);

        mcp_space_fit(1000, 750, 1568, 1150000, &s);
        tap_ok(mcp_space_to_screen(&s, 123, 456, &x, &y) == 0 && x == 123 && y == 456,
               "at scale 1 a picture pixel is the screen pixel itself");
        tap_ok(mcp_space_to_screen(&s, 1000, 0, &x, &y) == -ERANGE && mcp_space_to_screen(&s, -1, 0, &x, &y) == -ERANGE &&
               mcp_space_to_screen(&s, 0, 750, &x, &y) == -ERANGE,
               "a point outside the picture is -ERANGE");

        mcp_space_fit(1440, 900, MCP_SPACE_MAX_EDGE_DEFAULT, MCP_SPACE_MAX_PIXELS_DEFAULT, &s);
        tap_ok((unsigned long long) s.image_w * s.image_h <= MCP_SPACE_MAX_PIXELS_DEFAULT && s.image_w >= 1350,
               "1440x900 fits 1.15 megapixels, as large as it can (%ux%u)", s.image_w, s.image_h);
        tap_ok(s.image_h * 1440u / 900u - s.image_w <= 1 || s.image_w - s.image_h * 1440u / 900u <= 1,
               "... with its aspect kept");
        mcp_space_fit(3840, 2160, MCP_SPACE_MAX_EDGE_DEFAULT, MCP_SPACE_MAX_PIXELS_DEFAULT, &s);
        tap_ok(s.image_w <= 1568 && (unsigned long long) s.image_w * s.image_h <= 1150000,
               "a 4K screen fits both the edge and the area (%ux%u)", s.image_w, s.image_h);
        mcp_space_fit(768, 1024, 800, MCP_SPACE_MAX_PIXELS_DEFAULT, &s);
        TAP_EQ_INT(s.image_h, 800, "a portrait screen's long edge is its height");
        mcp_space_fit(640, 480, 1568, 1150000, &s);
        tap_ok(s.image_w == 640 && s.image_h == 480, "a small screen is never enlarged");
        mcp_space_fit(1000, 750, 500, 1150000, &s);
        mcp_space_from_screen(&s, 999, 749, &x, &y);
        tap_ok(x == 499 && y == 374, "a screen pixel maps to the picture pixel that shows it (cursor_position)");
        {
                struct mcp_space one = { 1024, 768, 1024, 768 };
                unsigned r[4] = {};

                tap_ok(mcp_space_rect_from_screen(&one, 0, 0, 1024, 29, r) && r[0] == 0 && r[2] == 1024 && r[3] == 29,
                       "at scale 1 a rectangle to the screen's edge keeps its size (%u %u %u %u)", r[0], r[1], r[2], r[3]);
                tap_ok(mcp_space_rect_from_screen(&s, 101, 51, 200, 100, r) && r[0] == 50 && r[1] == 25 && r[2] == 101 &&
                               r[3] == 51,
                       "at scale 0.5 it is the picture pixels that show it, rounded out (%u %u %u %u)", r[0], r[1], r[2],
                       r[3]);
                tap_ok(mcp_space_rect_from_screen(&one, -10, 700, 30, 100, r) && r[0] == 0 && r[2] == 20 && r[3] == 68,
                       "a rectangle partly off the screen is clipped to it");
                tap_ok(!mcp_space_rect_from_screen(&one, -2147483647LL - 1, -2147483647LL - 1, 1, 1, r),
                       "one wholly off the screen has no picture bounds");
        }

        return tap_done();
}
