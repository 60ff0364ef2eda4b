/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/*
 * Verbs of the CLI that live outside botdesk.c. Each returns the CLI exit
 * code (0 ok, 1 failed, 2 usage, 3 refused, 4 not running) and has already
 * said why on stderr, in one line.
 */

/*
 * --start of env, exec and input, and [session] auto_start = yes: when the
 * desktop of profile is not running (or not yet published), start it as
 * `botdesk start` does, with its checks, memory gate and placement. flag
 * is --start; without it the profile's auto_start decides. EXIT_OK when the
 * desktop runs or nothing asked for a start (the verb then says it is not
 * running), else start's exit code (3 for a refusal), said on stderr.
 */
int cli_start_on_demand(const char *profile, bool flag);

/*
 * botdesk install [-y] [--timeout S] [--password-stdin] [--quiet]
 * Installs what is missing with the package manager (apt-get, dnf, pacman)
 * and sudo found on the system PATH ([install] system_path), never the
 * caller's; one install at a time. 0 done or nothing to do; 1 failed, timed
 * out (timeout seconds, 0 = 900; the process group is killed), cancelled
 * (no password), or no package manager; 2 usage (no --yes off a terminal);
 * 3 another install runs, or no sudo for a non-root caller.
 */
int verb_install(bool yes, bool quiet, unsigned timeout, bool password_stdin);

/*
 * botdesk lease PROFILE [show|take|release|request|wait] [--viewer ID] [--reason TEXT] [--timeout S] [--json]
 * action NULL means show. take, release and request need viewer (else 2).
 * A take by the holder and a release by someone who does not hold the
 * lease change nothing and exit 0, saying so. request records a pending
 * request for control (reason optional). wait returns 0 once the agent
 * holds control, 3 after timeout seconds (0: none). Prints the lease (JSON:
 * holder, viewer_hash, since, epoch, reason, pending; never a raw viewer id).
 */
int verb_lease(const char *profile, const char *action, const char *viewer, const char *reason, unsigned timeout,
               bool json);

/*
 * botdesk rfb PROFILE [--viewer ID]
 * Bridges stdin/stdout to the desktop's RFB socket until either side ends
 * (0); input reaches the screen only while this viewer holds the lease
 * (never without --viewer). 4 when the desktop is not running, 1 when the
 * client sends something the filter refuses.
 */
int verb_rfb(const char *profile, const char *viewer);

/*
 * botdesk watch [PROFILE] [--json] [--until ready|stopped|agent]
 * One line (JSON object with --json) per change of status or lease of
 * PROFILE, or of every profile of the user (new ones included), the first
 * line of each its current state. Runs until killed, or with --until
 * (PROFILE only) until that state is reached (0). 2 for bad usage.
 */
int verb_watch(const char *profile, bool json, const char *until);
