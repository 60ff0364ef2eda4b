/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What /proc says about a process. */

#include <stdbool.h>
#include <sys/types.h>

struct proc_stat {
        char state;                     /* R, S, D, Z, X ... */
        unsigned long long starttime;   /* clock ticks after boot: with the pid, who a process is */
};

/* The fields of a /proc/PID/stat text that botdesk uses. */
int proc_stat_parse(const char *text, struct proc_stat *ret);

/* The start time of a live (not zombie) pid; -ESRCH for a zombie. */
int pid_starttime(pid_t pid, unsigned long long *ret);

/* Is pid alive (exists and is not a zombie) according to proc_root (NULL: /proc)? */
bool pid_alive(const char *proc_root, pid_t pid);
