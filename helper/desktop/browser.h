/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "config.h"

/*
 * The headed browser that the agent and the human share: one executable,
 * one user-data-dir, so both see the same logins and tabs.
 */

/* [browser] executable, then AGENT_BROWSER_EXECUTABLE_PATH, then chromium /
 * google-chrome in PATH. A headless-shell build is never chosen: it cannot
 * show a window. NULL when there is none. */
char *browser_find(const struct bd_config *c);

/* The user-data-dir: [browser] profile_dir, else STATE/browser-profile.
 * A profile_dir of ~ or ~/PATH is under home, a relative one under
 * state_dir. Returns -ENOENT when it needs home and home is NULL. */
int browser_profile_dir(const struct bd_config *c, const char *state_dir, const char *home, char **ret);

/* Where the dock's browser serves DevTools: RUNTIME/cdp.sock (published
 * as BOTDESK_CDP_SOCKET). */
char *browser_cdp_socket(const char *runtime_dir);

/* The full command line for the dock's launcher: the botdesk-browser
 * program at launcher, serving cdp_socket, running executable. as_root
 * adds --no-sandbox: Chromium refuses to start as root with its sandbox. */
int browser_argv(const char *launcher, const char *cdp_socket, const char *executable, const char *profile_dir,
                 unsigned disk_cache_mb, bool as_root, char ***ret);
