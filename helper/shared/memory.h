/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * The memory gate. Available memory is the smaller of /proc/meminfo's
 * MemAvailable and the headroom of the calling process's memory cgroup:
 * v2: memory.max - (memory.current - inactive_file from memory.stat);
 * v1: memory.limit_in_bytes - (memory.usage_in_bytes - total_inactive_file);
 * "max" (v2) or a limit >= 2^62 (v1) means no limit. Walks up the cgroup
 * tree and takes the tightest ancestor.
 */

struct memory_env {
        const char *proc_root;    /* "/proc" */
        const char *cgroup_root;  /* NULL = find mounts from /proc/self/mountinfo */
        const char *cgroup_v2;    /* path of the v2 mount (fixture), NULL if none */
        const char *cgroup_v1;    /* path of the v1 memory controller mount, NULL if none */
        const char *self_cgroup_v2; /* cgroup path of the process in v2 ("/a/b"), NULL = read /proc/self/cgroup */
        const char *self_cgroup_v1; /* same for the v1 memory controller */
};

struct memory_info {
        uint64_t available_mb;  /* the smaller of the two */
        uint64_t limit_mb;      /* the cgroup limit, or MemTotal when none */
        uint64_t meminfo_available_mb;
        int64_t cgroup_headroom_mb; /* -1 when no cgroup limit */
};

int memory_read(const struct memory_env *env, struct memory_info *ret);

enum memory_verdict {
        MEMORY_OK,
        MEMORY_LOW,     /* below floor + floor/3: start with a warning */
        MEMORY_BLOCKED, /* below floor: refuse */
};

enum memory_verdict memory_judge(uint64_t available_mb, unsigned min_free_mb);

/* "Not enough free memory for a desktop: A MB available of L MB, F MB needed (min_free_memory_mb)" */
char *memory_blocker_message(const struct memory_info *m, unsigned min_free_mb);

/*
 * The tight-memory warning a start and `status` pass on to the caller:
 * "Memory is tight: A MB available, F MB is the floor (min_free_memory_mb);
 * the desktop may be slow, and starts are refused below the floor".
 * Only in the band below floor + floor/3 (MEMORY_LOW), and below the floor
 * too when running is set (a running desktop is never blocked, but still
 * short). Returns 0 and *ret = NULL outside that band, -ENOMEM.
 */
int memory_warning(const struct memory_info *m, unsigned min_free_mb, bool running, char **ret);
