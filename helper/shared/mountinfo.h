/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/*
 * The one reader of /proc/PID/mountinfo and /proc/PID/cgroup: the cgroup
 * code and the memory gate both find their hierarchies here, with
 * mountinfo's \ooo escapes decoded and the mount's root (a container sees
 * "/docker/ID" mounted as its cgroup root) taken into account.
 */

struct cgroup_mount {
        char *path;     /* where the hierarchy is mounted */
        char *root;     /* which cgroup of the hierarchy appears at path ("/" usually) */
};

void cgroup_mount_done(struct cgroup_mount *m);
int cgroup_mount_set(struct cgroup_mount *m, const char *path, const char *root);

/* The first cgroup2 mount and the first v1 mount carrying the memory
 * controller, from proc_root (NULL: /proc)/self/mountinfo. A missing
 * mountinfo means no cgroup is visible (0, nothing set). */
int mountinfo_cgroup_mounts(const char *proc_root, struct cgroup_mount *v2, struct cgroup_mount *v1);

/* From proc_root/PID/cgroup (pid 0: self): the v2 path ("0::/path") and
 * the v1 memory controller's ("N:a,memory,b:/path"). A NULL ret_* is not
 * looked for; one not found stays NULL. */
int proc_cgroup_paths(const char *proc_root, pid_t pid, char **ret_v2, char **ret_v1);

/* A cgroup path as /proc/PID/cgroup names it, relative to a mount whose
 * root is mount_root; "/" for a path outside the mount (cgroup namespaces
 * print "/.." for those) or one with "..". */
char *cgroup_relative(const char *self, const char *mount_root);
