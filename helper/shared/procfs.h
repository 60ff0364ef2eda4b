/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What /proc says about a process. */

#include <stdbool.h>
#include <sys/types.h>

struct proc_stat {
        char state;                     /* R, S, D, Z, X ... */
        unsigned long long starttime;   /* clock ticks after boot: with the pid, who a process is */
        unsigned long long flags;       /* PF_*: PF_EXITING (0x4) once it has begun to exit */
};

/* The fields of a /proc/PID/stat text that botdesk uses. */
int proc_stat_parse(const char *text, struct proc_stat *ret);

/* The start time of a live (not zombie) pid; -ESRCH for a zombie. */
int pid_starttime(pid_t pid, unsigned long long *ret);

/* The name of pid's program as the kernel keeps it (/proc/PID/comm, at most 15 bytes), a new string. */
int pid_comm(pid_t pid, char **ret);

/* Which namespace of kind ("pid", "mnt", ...) pid is in: the inode of /proc/PID/ns/KIND. 0, or -errno. */
int pid_namespace(pid_t pid, const char *kind, ino_t *ret);

/* Is pid alive (exists and is not a zombie) according to proc_root (NULL: /proc)? */
bool pid_alive(const char *proc_root, pid_t pid);

/*
 * Does pid's environment (/proc/PID/environ, as it was at exec) hold the
 * entry "KEY=VALUE" exactly? 1 yes, 0 no, -errno when it cannot be read
 * (-ESRCH gone, -EACCES another user's).
 */
int pid_environ_has(pid_t pid, const char *entry);

/* The pid of the process pidfd refers to, as our /proc sees it (its
 * fdinfo's Pid:); -ESRCH once it has been reaped, -EREMOTE when it is
 * outside our PID namespace. */
int pidfd_get_pid(int pidfd, pid_t *ret);
