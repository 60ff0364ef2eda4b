/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The agent's actions on the screen, over the desktop's own X connection:
 *
 *   botdesk input PROFILE ACTION ... [--json]
 *   botdesk windows PROFILE [--json]
 *   botdesk cursor PROFILE [--json]
 *
 * argv[0] is the verb itself and argv[1..argc) everything after it (they
 * parse their own options, like thumbnail). Each returns the CLI exit code:
 * 0 done; 1 failed; 2 usage (nothing sent to the screen); 3 refused because
 * a human holds the lease, or void because a human took it while the action
 * ran (--json: {"suppressed": "human_has_control", ...}); 4 not running.
 */
int verb_input(int argc, char **argv);
int verb_windows(int argc, char **argv);
int verb_cursor(int argc, char **argv);
