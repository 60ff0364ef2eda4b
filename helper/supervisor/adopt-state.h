/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* The session state dir below a profile's (or a spare's) state dir. */
#define SESSION_STATE_DIR "xdg"

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

/*
 * A profile's own record that its state was still a fresh session's: a
 * desktop whose session state was fresh when it started writes, once its
 * session has settled (session-settle.h), a manifest of its state dir
 * (each file's SHA-256 and size, each dir, in order). Xfce writes its own
 * settings in an order that varies from one run to the next (the
 * keyboard shortcuts' providers, measured), so a profile that ran and
 * changed nothing may differ from a spare byte for byte; it still equals
 * its own manifest, which is what the next start checks. Anything written
 * after the manifest, by the user or by an application, makes the state
 * the profile's own. The manifest lives in the state dir, so it moves
 * with it, and is itself never compared.
 */
#define SESSION_FRESH_MANIFEST ".botdesk-fresh"

/* Write the manifest of the tree below xdg_fd (atomically). */
int session_state_manifest_write(int xdg_fd);
/* 1 when the tree below xdg_fd is what its manifest says, 0 when it is not or there is none. */
int session_state_manifest_matches(int xdg_fd);
