/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The dock's launchers (xfce4-panel launcher plugins 10-13 of the skeleton):
 * on the first start of a profile, each gets its desktop file when its
 * program is installed, and is removed from the dock when it is not (an
 * empty launcher would still show a generic icon).
 */

/* Quote one argument for a desktop entry's Exec key (Desktop Entry
 * Specification, "The Exec key"), including the string-value escaping of
 * backslashes and the doubling of '%'. Returns malloc'd text. */
char *desktop_exec_quote(const char *arg);

/* Join argv into an Exec value with desktop_exec_quote. */
char *desktop_exec_line(char *const *argv);

/*
 * Seed the launchers below config_home from applications_dir. browser_argv
 * (may be NULL: no browser) is the headed browser's full command line. A
 * launcher whose program is not installed, or whose desktop file is missing
 * from applications_dir (said), is dropped from the dock.
 */
int launchers_seed(const char *config_home, const char *applications_dir, char *const *browser_argv);

/*
 * On later starts: rewrite the dock's browser entry botdesk wrote (its
 * X-Botdesk-Launcher marker, or an older botdesk's entry, which may carry
 * --remote-debugging-port), so that it follows a new browser, renamed
 * paths and the sandbox rule; an entry the user wrote is left alone. When
 * the dock was seeded without a browser (no launcher-11 directory), a
 * browser installed since gets its entry and its place in the dock.
 */
int launchers_refresh_browser(const char *config_home, char *const *browser_argv);
