/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <xcb/xcb.h>

/* One window of the window manager's client list, described (ok: its
 * properties and geometry were read; a window gone meanwhile is not). */
struct wm_window {
        xcb_window_t id;
        char *title, *instance, *class;
        int x, y;
        unsigned width, height;
        bool ok;
};

/* The client list and its windows described: *ret_w (n of them, some maybe
 * not ok; free with window_list_free()), the active window, and whether a window
 * manager publishes the list. 0, or -ENOMEM. */
int window_list_read(xcb_connection_t *c, xcb_window_t root, struct wm_window **ret_w, size_t *ret_n,
                     xcb_window_t *ret_active, bool *ret_wm);
void window_list_free(struct wm_window *w, size_t n);

/* As `botdesk windows` prints them on stdout: a line each, or (json) one object and a newline. */
void window_list_print(const char *profile, const struct wm_window *w, size_t n, xcb_window_t active, bool wm,
                       unsigned long long epoch, bool json);

/* The window manager's windows as `botdesk windows --json` prints them (one object, no newline), to f.
 * 0, -ENOMEM, -EIO. */
int cli_windows_json(xcb_connection_t *c, xcb_window_t root, const char *profile, unsigned long long epoch, FILE *f);

/* One client of the window manager's list: its id and title (NULL: none). */
struct cli_window_title {
        xcb_window_t id;
        char *title;
};

/* The client list (_NET_CLIENT_LIST) as `botdesk windows` reads it, each
 * window still there with its title, into *ret (n of them; free with
 * cli_window_titles_free()); *ret_wm whether a window manager publishes the
 * list. 0, -ENOMEM, -EIO. */
int cli_windows_titles(xcb_connection_t *c, xcb_window_t root, struct cli_window_title **ret, size_t *ret_n,
                       bool *ret_wm);
void cli_window_titles_free(struct cli_window_title *t, size_t n);
