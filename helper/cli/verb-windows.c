/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk windows PROFILE and botdesk cursor PROFILE: what is on the screen,
 * read over the desktop's own X connection (the window manager's list:
 * agent/window-list.c).
 */
#include <xcb/xcb.h>

#include "cli.h"
#include "cli-desktop.h"
#include "verbs.h"
#include "json.h"
#include "lease.h"
#include "log.h"
#include "util.h"
#include "window-list.h"

/* PROFILE [--json] [--start], read by main.c's parser: EXIT_OK once the
 * desktop runs or was not asked to start, else an exit code, said. */
static int open_args(const struct cli_args *a) {
        return cli_start_on_demand(a->operand, a->start);
}

/* Gate, display, connection: the common opening of both verbs. */
static int open_screen(const char *profile, const char *what, bool json, int *ret_dirfd, struct lease *admitted,
                       xcb_connection_t **ret_c, xcb_screen_t **ret_screen) {
        _cleanup_free_ char *display = NULL, *xauthority = NULL;
        int n, r;

        r = cli_running_display(profile, ret_dirfd, &display, &xauthority);
        if (r != EXIT_OK)
                return r;
        r = cli_action_admit(*ret_dirfd, profile, what, json, admitted);
        if (r != EXIT_OK)
                return r;
        r = cli_connect_desktop(profile, display, xauthority, ret_c, &n);
        if (r != EXIT_OK)
                return r;
        for (xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(*ret_c)); it.rem; xcb_screen_next(&it), n--)
                if (n == 0) {
                        *ret_screen = it.data;
                        return EXIT_OK;
                }
        log_error("Display %s has no screen %d.", display, n);
        xcb_disconnect(*ret_c);
        return EXIT_FAILED;
}

int verb_windows(const struct cli_args *a) {
        _cleanup_close_ int dirfd = -EBADF;
        const char *profile = a->operand;
        xcb_connection_t *c;
        xcb_screen_t *s;
        xcb_window_t active = XCB_NONE;
        struct lease admitted;
        struct wm_window *w = NULL;
        size_t n = 0;
        bool json = a->json, wm;
        int r;

        r = open_args(a);
        if (r != EXIT_OK)
                return r;
        r = open_screen(profile, "windows", json, &dirfd, &admitted, &c, &s);
        if (r != EXIT_OK)
                return r;
        r = window_list_read(c, s->root, &w, &n, &active, &wm);
        if (r == -ENOMEM) {
                xcb_disconnect(c);
                return log_oom(), EXIT_FAILED;
        }
        r = xcb_connection_has_error(c);
        xcb_disconnect(c);
        if (!w || r) {
                window_list_free(w, n);
                log_error("Cannot read the windows of desktop %s%s.", profile, r ? ": the X connection broke" : ": out of memory");
                return EXIT_FAILED;
        }
        r = cli_action_done(dirfd, profile, "windows", &admitted, json);
        if (r == EXIT_OK) {
                activity_stamp(dirfd);
                window_list_print(profile, w, n, active, wm, admitted.epoch, json);
        }
        window_list_free(w, n);
        return r;
}

int verb_cursor(const struct cli_args *a) {
        _cleanup_close_ int dirfd = -EBADF;
        xcb_query_pointer_reply_t *p;
        struct lease admitted;
        const char *profile = a->operand;
        xcb_connection_t *c;
        xcb_screen_t *s;
        unsigned w, h;
        bool json = a->json;
        int r;

        r = open_args(a);
        if (r != EXIT_OK)
                return r;
        r = open_screen(profile, "cursor", json, &dirfd, &admitted, &c, &s);
        if (r != EXIT_OK)
                return r;
        w = s->width_in_pixels;
        h = s->height_in_pixels;
        p = xcb_query_pointer_reply(c, xcb_query_pointer(c, s->root), NULL);
        xcb_disconnect(c);
        if (!p) {
                log_error("Cannot read the pointer of desktop %s.", profile);
                return EXIT_FAILED;
        }
        r = cli_action_done(dirfd, profile, "cursor", &admitted, json);
        if (r == EXIT_OK) {
                activity_stamp(dirfd);
                if (json) {
                        struct json j;

                        json_init(&j, stdout);
                        json_object_begin(&j);
                        json_kv_string(&j, "profile", profile);
                        json_kv_int(&j, "x", p->root_x);
                        json_kv_int(&j, "y", p->root_y);
                        json_kv_int(&j, "screen_width", w);
                        json_kv_int(&j, "screen_height", h);
                        if (p->child != XCB_NONE)
                                json_kv_int(&j, "window", p->child);
                        else
                                json_kv_null(&j, "window");
                        json_kv_int(&j, "epoch", (long long) admitted.epoch);
                        json_object_end(&j);
                        putchar('\n');
                } else
                        printf("%d %d\n", p->root_x, p->root_y);
        }
        free(p);
        return r;
}
