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

/* name's atom on c, XCB_ATOM_NONE when the server does not answer. */
xcb_atom_t cli_intern_atom(xcb_connection_t *c, const char *name);
