/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/*
 * The commands `botdesk exec` ran where no cgroup holds a desktop's
 * processes (standalone without a writable cgroup): each is recorded in
 * the runtime dir by its pid and start time, so that the desktop's stop
 * finds it even when it dropped the environment that carries the
 * desktop's token (env -i) or wrote over it (a browser's process title).
 * A record names one process only: a pid reused since is never signalled.
 */

#define EXEC_RECORD_DIR "exec"

/* Record pid (with its start time) under runtime_fd: 0 or -errno. */
int exec_record_add(int runtime_fd, pid_t pid);

/*
 * SIGKILL every recorded process that is still the one recorded, and the
 * process group it leads if it leads one; remove the records. The number
 * of processes signalled, or -errno (-ENOENT: none was ever recorded).
 */
int exec_record_kill_all(int runtime_fd);
