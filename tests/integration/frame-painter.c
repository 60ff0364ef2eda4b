/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * frame-painter [GAP_MS...]: the tests' own X client for the adaptive
 * settle (settle-adaptive.sh). It maps one window (0,0 600x400) and, at
 * each button press, fills it at once and then once more after each gap,
 * each time with a colour of its own: a picture taken before the last
 * frame differs from one taken after it. Plain X requests, flushed at once: no toolkit's
 * frame clock decides when a frame reaches the server. Prints "ready" once
 * mapped and "frame N" as it sends each.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <xcb/xcb.h>

static long long now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void paint(xcb_connection_t *c, xcb_window_t w, xcb_gcontext_t gc, unsigned k) {
        /* A 24-bit TrueColor visual: the pixel is the colour. */
        uint32_t pixel = ((k * 53u) % 256u) << 16 | ((k * 97u) % 256u) << 8 | ((k * 151u) % 256u);
        xcb_rectangle_t all = { 0, 0, 600, 400 };

        xcb_change_gc(c, gc, XCB_GC_FOREGROUND, &pixel);
        xcb_poly_fill_rectangle(c, w, gc, 1, &all);
        xcb_flush(c);
}

int main(int argc, char **argv) {
        unsigned gaps[16], n_gaps = (unsigned) argc - 1, n = 0, clicks = 0;
        long long next = -1;
        xcb_connection_t *c;
        xcb_screen_t *screen;
        xcb_window_t w;
        xcb_gcontext_t gc;
        uint32_t values[2];
        char *end;

        if (n_gaps > 16) {
                fprintf(stderr, "usage: frame-painter [GAP_MS...] (at most 16)\n");
                return 2;
        }
        for (unsigned i = 0; i < n_gaps; i++) {
                errno = 0;
                gaps[i] = (unsigned) strtoul(argv[i + 1], &end, 10);
                if (errno || *end || end == argv[i + 1] || gaps[i] > 60000) {
                        fprintf(stderr, "frame-painter: a gap is milliseconds, not %s\n", argv[i + 1]);
                        return 2;
                }
        }
        c = xcb_connect(NULL, NULL);
        if (xcb_connection_has_error(c)) {
                fprintf(stderr, "frame-painter: cannot connect to the X server\n");
                return 1;
        }
        screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
        w = xcb_generate_id(c);
        values[0] = screen->black_pixel;
        values[1] = XCB_EVENT_MASK_BUTTON_PRESS | XCB_EVENT_MASK_EXPOSURE;
        xcb_create_window(c, XCB_COPY_FROM_PARENT, w, screen->root, 0, 0, 600, 400, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                          screen->root_visual, XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
        gc = xcb_generate_id(c);
        xcb_create_gc(c, gc, w, 0, NULL);
        xcb_map_window(c, w);
        xcb_flush(c);

        for (;;) {
                struct pollfd p = { .fd = xcb_get_file_descriptor(c), .events = POLLIN };
                xcb_generic_event_t *ev;
                long long t = now_ms();

                if (next >= 0 && t >= next) {
                        paint(c, w, gc, clicks * 7 + ++n);
                        printf("frame %u\n", n);
                        fflush(stdout);
                        next = n <= n_gaps ? next + gaps[n - 1] : -1;
                }
                while ((ev = xcb_poll_for_event(c))) {
                        uint8_t type = ev->response_type & 0x7f;

                        if (type == XCB_EXPOSE && n == 0 && clicks == 0) {
                                paint(c, w, gc, 0);
                                printf("ready\n");
                                fflush(stdout);
                        } else if (type == XCB_BUTTON_PRESS) {
                                clicks++;
                                n = 0;
                                next = now_ms();
                        }
                        free(ev);
                }
                if (xcb_connection_has_error(c))
                        return 0;
                if (next >= 0 && now_ms() >= next)
                        continue;
                if (poll(&p, 1, next >= 0 ? (int) (next - now_ms()) : -1) < 0 && errno != EINTR)
                        return 1;
        }
}
