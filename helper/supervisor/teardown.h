/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "supervisor.h"

/*
 * Take the desktop down: nothing published first (so nobody picks up a dying
 * display), then every process killed through its cgroup (or group and
 * token), then our files. Returns once nothing of the desktop runs. A start
 * that did not finish (forget) forgets its display number and leaves its
 * reason in last-error; a stop of a ready desktop removes last-error.
 */
void teardown(struct supervisor *s, bool forget, const char *reason);

/* The X lock and socket our own server left, and only those. */
void remove_x_leftovers(struct supervisor *s);

/* One line in last-error, the reason `botdesk start` repeats. */
void write_last_error(struct supervisor *s, const char *msg);
