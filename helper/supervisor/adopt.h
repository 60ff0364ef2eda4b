/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "supervisor.h"

/*
 * A warm spare becomes a profile's desktop (shared/adoption.h has the
 * exchange). What moves, in this order, each step undone if a later one
 * before the first move fails:
 *   - checks: the spare is ready, the profile is valid, its configuration
 *     is the spare's (a profile with settings of its own starts cold), no
 *     helper holds it, and it has no session state yet or one that is
 *     still what a fresh session makes of the skeleton (adopt-state.h);
 *   - a new cookie, made by the X server (SECURITY), into the profile's
 *     Xauthority: the profile's X clients never use the spare's;
 *   - the session state dir (xdg/) into the profile's state dir (in one
 *     exchange with the profile's, when it had one: the same content);
 *   - the helper lock, the RFB and bus sockets (bound sockets keep working
 *     under their new name), the display number and the log into the
 *     profile's runtime dir;
 *   - the record and the env, rewritten with the profile's paths;
 *   - the spare's runtime dir and xdg/ left as symlinks to the profile's,
 *     for the session's processes, which were started with the spare's
 *     paths in their environment; removed when the desktop stops.
 */

/* A ready spare: listen on RUNTIME/adopt.sock. */
int adopt_listen(struct supervisor *s);
void adopt_done(struct supervisor *s);

/* At the end of the stop: the spare's paths that lead to the profile's
 * (after an adoption), or a spare's own dirs (one never adopted; the
 * runtime dir, with last-error and helper.log, stays when it failed). */
void adopt_remove_spare_paths(struct supervisor *s, bool failed);

/* A standalone spare that failed once ready: run `$BOTDESK_CLI pool fill`
 * for its replacement (shared/adoption.h), in a process of its own. */
void adopt_spawn_replacement(struct supervisor *s);
