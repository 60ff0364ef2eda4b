/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "config.h"

/*
 * CRIU for a checkpointable desktop: the program ([session] criu: on PATH,
 * or a path), its version checked (4.1 or later: older ones fail on the
 * kernels botdesk runs on, doc/snapshots.md), and its dump and restore run
 * with a deadline, in the desktop's cgroup (what a restore brings back is
 * born there). Errors come back as a sentence to show.
 */

/* The CRIU to use and its version ("4.2.1"): 0, or -errno with *ret_error. */
int checkpoint_criu(const struct bd_config *c, char **ret_path, char **ret_version, char **ret_error);

#define CHECKPOINT_PIDFILE "restore.pid"

struct tree_mounts;

/* A named snapshot's session files: the dirs of from (as the tree sees it) copied into to (made there),
 * while the tree stands still for its dump, by us as CRIU's action script (snapshot-files.h). */
struct checkpoint_files {
        const char *from;
        const char *to;
        const char *runtime;    /* the tree's runtime dir: its snapshot_runtime_dirs copied too */
};

/* Dump the tree of root (its namespaces' pid 1) into the dir dir_fd, which
 * it then kills, unless leave_running; with files, their copy too. CRIU
 * runs in root's mount namespace. 0, or -errno with *ret_error (CRIU's
 * cause, or its action script's failure). */
int checkpoint_dump(const char *criu, pid_t root, int dir_fd, const char *cgroup, bool leave_running,
                    const struct checkpoint_files *files, unsigned long long timeout_usec, char **ret_error);
/* Restore the tree dumped into dir_fd, in a mount namespace made by mounts
 * (tree-mounts.h) unless that is NULL; its root's pid in *ret_root (a child
 * of ours once CRIU exits, as we are a subreaper). */
int checkpoint_restore(const char *criu, int dir_fd, const char *cgroup, const struct tree_mounts *mounts,
                       unsigned long long timeout_usec, pid_t *ret_root, char **ret_error);
