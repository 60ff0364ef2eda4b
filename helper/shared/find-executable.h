/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one PATH lookup of botdesk: spawn() execs a path (execve, never
 * execvp), so every program is looked up here, before anything runs.
 */

/* The PATH a login shell gets when none is set, as systemd uses. */
#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * find_executable() - the program name as a path: a name with a slash is
 * taken as given, a bare name is searched in path (colon-separated; NULL:
 * $PATH, or DEFAULT_PATH without one), first match wins.
 *
 * Rules: only a regular file executable by the real uid (who runs the child)
 * counts, so directories and non-executable files are passed over; empty and
 * relative PATH entries are ignored (they would resolve against the current
 * directory).
 *
 * Returns 0 with the path in *ret (malloc'd; ret may be NULL to only ask),
 * -ENOENT when there is no such program, -EINVAL for an empty name,
 * -ENOMEM.
 */
int find_executable(const char *name, const char *path, char **ret);
