/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "drag-walk.h"

static void pace(const struct drag_ops *ops, void *userdata) {
        if (ops->pace)
                ops->pace(userdata);
}

void drag_walk(const unsigned (*path)[2], size_t n, unsigned steps, const struct drag_ops *ops, void *userdata) {
        ops->move(userdata, path[0][0], path[0][1]);
        ops->button(userdata, true);
        pace(ops, userdata);
        for (size_t i = 1; i < n; i++) {
                long long x0 = path[i - 1][0], y0 = path[i - 1][1], x1 = path[i][0], y1 = path[i][1];

                for (unsigned s = 1; s <= steps; s++) {
                        ops->move(userdata, (unsigned) (x0 + (x1 - x0) * s / steps),
                                  (unsigned) (y0 + (y1 - y0) * s / steps));
                        /* The drag begins: the toolkit's threshold passed, its grab and drag window made. */
                        if (i == 1 && s == 1)
                                pace(ops, userdata);
                }
                /* At the point: the target has answered the pointer's arrival before it moves on or drops. */
                pace(ops, userdata);
        }
        ops->button(userdata, false);
}
