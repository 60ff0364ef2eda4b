/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * The last-resort way to find a desktop's processes where no cgroup holds
 * them: every process of the desktop carries BOTDESK_TOKEN=token in its
 * environment (see record.h), so a walk of /proc finds them.
 */

/*
 * Kill every process of uid whose environment holds BOTDESK_TOKEN=token
 * (never ourselves). With own_pid_namespace, only those in our own PID
 * namespace: a checkpointable desktop's tree dies with its namespaces'
 * init, and its forks' trees carry the token they were dumped with (a
 * process's environment is its memory, which a restore keeps).
 */
int kill_by_token(const char *token, uid_t uid, bool own_pid_namespace);
