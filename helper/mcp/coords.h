/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/*
 * The agent's one coordinate space. What the agent sees is the screen
 * scaled to fit a budget (long edge and pixel count: the limits of the
 * model that reads the picture); every coordinate it sends is a pixel of
 * that picture, and mcp_space_to_screen() is the only place where one
 * becomes a screen pixel. Pure: no X, no I/O.
 */

#define MCP_SPACE_MAX_EDGE_DEFAULT 1568u
#define MCP_SPACE_MAX_PIXELS_DEFAULT 1150000u

struct mcp_space {
        unsigned screen_w, screen_h;
        unsigned image_w, image_h;
};

/*
 * The largest picture of a screen_w x screen_h screen, aspect kept, never
 * enlarged, whose long edge is at most max_edge and whose area is at most
 * max_pixels (each at least 1).
 */
void mcp_space_fit(unsigned screen_w, unsigned screen_h, unsigned max_edge, unsigned max_pixels, struct mcp_space *ret);

/* image_w / screen_w: 1.0 when the picture is the screen itself. */
double mcp_space_scale(const struct mcp_space *s);

/*
 * Picture pixel (x, y) as a screen pixel: the centre of the part of the
 * screen that picture pixel shows, so that a point the agent picks on the
 * picture lands within half a picture pixel (scale 0.5: one screen pixel)
 * of the point it saw. 0, or -ERANGE when (x, y) is outside the picture.
 */
int mcp_space_to_screen(const struct mcp_space *s, long long x, long long y, unsigned *ret_x, unsigned *ret_y);

/* A screen pixel as the picture pixel that shows it (cursor_position). */
void mcp_space_from_screen(const struct mcp_space *s, unsigned x, unsigned y, unsigned *ret_x, unsigned *ret_y);

/*
 * A rectangle of the screen (accessibility bounds) as the picture's pixels
 * that show it, clipped to the screen, rounded out: x, y, width, height in
 * ret. False (ret untouched) when none of it is on the screen.
 */
bool mcp_space_rect_from_screen(const struct mcp_space *s, long long x, long long y, long long w, long long h,
                                unsigned ret[4]);
