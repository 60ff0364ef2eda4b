/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/*
 * Whether a profile's session state (STATE/xdg) is what a fresh session
 * makes of the skeleton, by comparison with a ready spare's: the same
 * entries, the same kinds, the same bytes in each file, once the
 * profile's own dirs in its files (the dock's browser launcher names
 * them) are read as the spare's. xdg/cache is not compared: a cache may
 * be dropped. Anything else, a wallpaper set, a panel moved, makes the
 * profile's state its own, and the profile then starts cold.
 */

/* Each with a trailing '/', so that a profile's dir is never found inside a longer name. */
struct state_names {
        const char *profile_runtime, *spare_runtime;  /* RUNTIME/ */
        const char *profile_state, *spare_state;      /* STATE/ */
};

/* 1 when the trees below profile_xdg_fd and spare_xdg_fd are the same in
 * that sense, 0 when not, -errno when they cannot be read. */
int session_state_same(int profile_xdg_fd, int spare_xdg_fd, const struct state_names *n);
