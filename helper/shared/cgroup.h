/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * cgroup v2 sub-trees owned by one desktop. Paths named "cg" below are
 * absolute file system paths of cgroup directories (mount + cgroup path).
 * The v2 mount is read from /proc/self/mountinfo: /sys/fs/cgroup on a pure v2
 * host, /sys/fs/cgroup/unified on a hybrid one, absent on v1-only hosts.
 */

int cgroup_v2_mount(char **ret);

/* The v2 cgroup path ("/a/b") of pid (0 = self) from /proc/PID/cgroup,
 * relative to the v2 mount (so that mount + path is its directory). */
int cgroup_path_of(pid_t pid, char **ret);

/* The same, reading proc_root (NULL: /proc) instead: for fixtures. */
struct cgroup_mount;
int cgroup_v2_mount_at(const char *proc_root, struct cgroup_mount *ret);
int cgroup_path_of_at(const char *proc_root, pid_t pid, char **ret);

/* Is the cgroup path ("/a/b/botdesk@x.service") the cgroup of unit itself? */
bool cgroup_is_unit_of(const char *path, const char *unit);

/* Append the pids listed in cg/cgroup.procs (this level only) to *pids;
 * -EBADMSG for a line that is not a pid. */
int cgroup_procs_read(const char *cg, pid_t **pids, size_t *n);

/* Call fn for each child cgroup dir of cg, until it returns nonzero: a
 * negative value is returned, a positive one stops the walk with 0.
 * -errno when cg cannot be listed. */
int cgroup_for_each_child(const char *cg, int (*fn)(const char *sub, void *userdata), void *userdata);

/*
 * May botdesk kill this cgroup? Only a directory strictly below the v2 mount
 * whose own name is botdesk's: "botdesk-UID-PROFILE" (standalone) or
 * "botdesk@PROFILE.service" (a unit). Recorded paths are read back from
 * files, so they are checked before anything is signalled.
 */
bool cgroup_is_botdesk(const char *cg);

/* Is the calling process in cg or below it? (Also true when it cannot tell.) */
bool cgroup_contains_self(const char *cg);

/* mkdir, EEXIST is fine. */
int cgroup_create(const char *cg);

/* Move pid (0 = the caller) into cg. */
int cgroup_attach(const char *cg, pid_t pid);

/* 1 when cg or a descendant has a live process, 0 when empty, -errno. */
int cgroup_populated(const char *cg);

/* Kill every process of cg and its descendants with SIGKILL (cgroup.kill,
 * falling back to signalling each pid of cgroup.procs where cgroup.kill is
 * missing). */
int cgroup_kill(const char *cg);

/* Block until cg is empty or timeout (-ETIMEDOUT): inotify on cgroup.events,
 * or pidfds of its processes where inotify is used up (cgroup-wait.h). */
int cgroup_wait_empty(const char *cg, unsigned long long timeout_usec);

/* Remove cg and every descendant directory, deepest first. ENOENT is fine. */
int cgroup_remove(const char *cg);

/* Kill, wait until empty, remove. */
int cgroup_destroy(const char *cg, unsigned long long timeout_usec);
