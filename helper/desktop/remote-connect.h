/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "remote-target.h"

/*
 * A connection to what `remote =` names (remote-target.h): a TCP socket to
 * its address, connected before deadline (CLOCK_MONOTONIC usec); or the
 * stdio of its command (/bin/sh -c COMMAND, with the caller's environment:
 * the user's own tool, such as ssh with its keys), one end of a socketpair,
 * the child in its own session and killed should we die. Either way a
 * non-blocking fd, O_CLOEXEC. 0 with *ret_fd and *ret_pid (0 for a
 * socket; else the child, for remote_child_end()), or -errno with what
 * failed in *ret_problem.
 */
int remote_connect(const struct remote_target *t, unsigned long long deadline, int *ret_fd, pid_t *ret_pid,
                   const char **ret_problem);

/* The command's child, if any: its session sent SIGTERM, SIGKILL after a second, and reaped (the caller
 * closes its stdio first). */
void remote_child_end(pid_t pid);
