/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <xcb/xcb.h>

#include "screen-revision.h"

/*
 * Opening the running desktop of a profile for a verb that talks to its X
 * server (thumbnail, input, windows, cursor). Both return CLI exit codes and
 * have said what is wrong on stderr.
 */

/*
 * The runtime dir of a running desktop (opened into *ret_fd) and its
 * published DISPLAY and XAUTHORITY. Creates nothing: a profile without a
 * runtime dir is simply not running (EXIT_NOT_RUNNING). Nothing here talks
 * to X.
 */
int cli_running_display(const char *profile, int *ret_fd, char **ret_display, char **ret_xauthority);

/*
 * The run id of the desktop whose runtime dir is dirfd (screen-revision.h),
 * from its live helper's record: read once the X connection is made, so
 * that it names the run that connection reaches.
 */
int cli_desktop_run_id(const char *profile, int dirfd, char ret[static SCREEN_RUN_ID_LEN + 1]);

/* A connection to that display with the desktop's own cookie (never the caller's XAUTHORITY). */
int cli_connect_desktop(const char *profile, const char *display, const char *xauthority, xcb_connection_t **ret,
                        int *ret_screen);

/* The window manager's windows as `botdesk windows --json` prints them (one object, no newline), to f. 0, -ENOMEM, -EIO. */
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
/* name's atom on c, XCB_ATOM_NONE when the server does not answer. */
xcb_atom_t cli_intern_atom(xcb_connection_t *c, const char *name);

int cli_windows_titles(xcb_connection_t *c, xcb_window_t root, struct cli_window_title **ret, size_t *ret_n,
                       bool *ret_wm);
void cli_window_titles_free(struct cli_window_title *t, size_t n);
