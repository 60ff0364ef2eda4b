/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * Signalling a process found by its pid (in cgroup.procs, in /proc) without
 * racing with pid reuse: a pidfd pins the process first, then the caller's
 * check runs against /proc/PID, then the signal goes through the pidfd. If
 * the process we looked at exits and its pid is reused at any point after
 * the pidfd was opened, the pidfd still names the dead process and the
 * signal fails (ESRCH); if that happened before, the check sees the new
 * process and refuses it. Either way only the process checked is signalled.
 * Without pidfds (ENOSYS) the check and kill() run unpinned.
 */

typedef bool (*pid_check_t)(pid_t pid, void *userdata);

/* 1 signalled, 0 not (gone, or the check refused it), -errno. */
int pid_signal_checked(pid_t pid, int sig, pid_check_t check, void *userdata);

/* A check: is pid's cgroup (v2, from /proc/PID/cgroup) cg (absolute,
 * strictly below the mount: the root holds everyone and is never meant) or
 * one of its descendants? userdata: const char *cg. */
bool pid_check_in_cgroup(pid_t pid, void *userdata);
