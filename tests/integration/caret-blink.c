/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in for a text entry's caret (tests/integration/mcp.sh): a window
 * whose only drawing, once mapped and exposed, is a 2x16 caret shown and
 * hidden every 500 ms, as GTK's entries blink theirs. Runs until killed.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <xcb/xcb.h>

int main(void) {
        xcb_connection_t *c = xcb_connect(NULL, NULL);
        xcb_screen_t *s;
        xcb_window_t w;
        xcb_gcontext_t on, off;
        bool shown = false;

        if (xcb_connection_has_error(c))
                return 1;
        s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
        w = xcb_generate_id(c);
        xcb_create_window(c, XCB_COPY_FROM_PARENT, w, s->root, 40, 500, 300, 40, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                          s->root_visual, XCB_CW_BACK_PIXEL, (uint32_t[]) { s->white_pixel });
        on = xcb_generate_id(c);
        off = xcb_generate_id(c);
        xcb_create_gc(c, on, w, XCB_GC_FOREGROUND, (uint32_t[]) { s->black_pixel });
        xcb_create_gc(c, off, w, XCB_GC_FOREGROUND, (uint32_t[]) { s->white_pixel });
        xcb_map_window(c, w);
        xcb_flush(c);
        for (;;) {
                struct pollfd p = { .fd = xcb_get_file_descriptor(c), .events = POLLIN };
                xcb_generic_event_t *ev;

                /* The blink's period is the wait: woken early only by events, which are read and dropped. */
                if (poll(&p, 1, 500) == 0) {
                        shown = !shown;
                        xcb_poly_fill_rectangle(c, w, shown ? on : off, 1, (xcb_rectangle_t[]) { { 10, 12, 2, 16 } });
                        xcb_flush(c);
                }
                while ((ev = xcb_poll_for_event(c)))
                        free(ev);
                if (xcb_connection_has_error(c))
                        return 0;
        }
}
