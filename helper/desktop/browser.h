/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "config.h"

/*
 * The headed browser that the agent and the human share: one executable,
 * one user-data-dir, so both see the same logins and tabs.
 */

/* [browser] executable, then AGENT_BROWSER_EXECUTABLE_PATH, then chromium /
 * google-chrome in PATH, then Playwright's Chromium (browser_find_playwright()
 * in $PLAYWRIGHT_BROWSERS_PATH, else in home's ~/.cache/ms-playwright): on
 * a host whose only browser came with Playwright, the dock has that one. A
 * headless-shell build is never chosen: it cannot show a window. NULL when
 * there is none. */
char *browser_find(const struct bd_config *c, const char *home);

/* The newest Chromium that Playwright downloaded into dir: chromium-REVISION/chrome-linux64/chrome (or
 * chrome-linux/chrome, its older layout), the highest REVISION that is executable; NULL when there is none. */
char *browser_find_playwright(const char *dir);

/* The user-data-dir: [browser] profile_dir, else pinned (the gateway's
 * AGENT_BROWSER_PROFILE, so that its agent and the desktop's human share
 * one browser identity), else STATE/browser-profile. ~ and ~/PATH are
 * under home (the user's). A relative one is under [browser] home (the
 * gateway's, configured) when it is set; else a relative profile_dir is
 * under state_dir and a relative pin under home. Returns -ENOENT when it
 * needs home and home is NULL. */
int browser_profile_dir(const struct bd_config *c, const char *pinned, const char *state_dir, const char *home,
                        char **ret);

/* Where the dock's browser serves DevTools: RUNTIME/cdp.sock (published
 * as BOTDESK_CDP_SOCKET). */
char *browser_cdp_socket(const char *runtime_dir);

/* The full command line for the dock's launcher: the botdesk-browser
 * program at launcher, serving cdp_socket, running executable. as_root
 * adds --no-sandbox: Chromium refuses to start as root with its sandbox. */
int browser_argv(const char *launcher, const char *cdp_socket, const char *executable, const char *profile_dir,
                 unsigned disk_cache_mb, bool as_root, char ***ret);
