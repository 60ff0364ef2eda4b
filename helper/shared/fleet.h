/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * How many more desktops this host can hold, limit by limit. One more
 * desktop costs what an idle Xfce desktop holds of its own, measured
 * beside others (shared pages are already paid): its private memory (USS)
 * and its tasks (threads). Measured on Debian 12, TigerVNC 1.12, Xfce 4.18,
 * 2026-12-02: 93 MB and 18 tasks in 8 processes (doc/sizing.md). The
 * budgets leave room for an agent's small programs; a headed browser costs
 * more and is the agent's, not the desktop's.
 */
#define FLEET_DESKTOP_MB 100
#define FLEET_DESKTOP_TASKS 32

enum fleet_limit {
        FLEET_MEMORY,   /* available memory above the start gate's floor */
        FLEET_INOTIFY,  /* fs.inotify.max_user_instances against the user's instances */
        FLEET_BAND,     /* free display numbers in the band */
        FLEET_TASKS,    /* pids.max, RLIMIT_NPROC, kernel.threads-max / pid_max */
        _FLEET_LIMIT_MAX,
};

struct fleet_inputs {
        long long memory_available_mb;  /* -1: unknown */
        long long memory_floor_mb;
        long long inotify_max;          /* -1: unknown */
        long long inotify_used;
        long long band_free;
        long long tasks_max;            /* the tightest task limit, -1: none found */
        long long tasks_used;           /* what counts against it */
};

struct fleet_capacity {
        long long more[_FLEET_LIMIT_MAX]; /* desktops before each limit, -1: unknown */
        long long more_total;             /* the smallest known of them, -1: none known */
        enum fleet_limit first;           /* the limit met first (valid when more_total >= 0) */
};

const char *fleet_limit_name(enum fleet_limit l);

/* Desktops that fit before each limit, and which one binds first. */
void fleet_capacity_compute(const struct fleet_inputs *in, struct fleet_capacity *ret);

/*
 * The tightest task limit over the processes of uid, from proc_root (a /proc)
 * and the caller's cgroup v2 (cgroup_mount + cgroup_path, "/a/b"; NULL when
 * none): the group's and each ancestor's pids.max against its pids.current; RLIMIT_NPROC nproc_max
 * (-1: none; not for root, whom it does not bind) against uid's threads;
 * kernel.threads-max and kernel.pid_max against all threads. *ret_source
 * names the limit ("pids.max of /user.slice/...", "RLIMIT_NPROC",
 * "kernel.threads-max", "kernel.pid_max"), a static or allocated string the
 * caller frees.
 */
int fleet_tasks_read(const char *proc_root, const char *cgroup_mount, const char *cgroup_path, uid_t uid,
                     long long nproc_max,
                     long long *ret_max, long long *ret_used, char **ret_source);
