/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The mount namespace a checkpointable desktop's tree is restored in when
 * the paths its processes hold are not the profile's own: a fork's tree
 * holds its parent's runtime and state dirs and its X socket's name. CRIU
 * binds each socket to the name it had and reopens each file by its path,
 * so the restore runs in a namespace of its own where those paths show the
 * profile's own dirs: the tree's runtime dir is our runtime dir, its state
 * dir ours, and /tmp/.X11-unix is RUNTIME/x11, where the restored X server's
 * socket lands (the helper names it to the host by a symlink of our display,
 * supervisor/resume.c). The dirs that held the tree's paths are covered by
 * a tmpfs first, so nothing of the host is made or changed for them, and
 * the tree sees no other profile's files. Every later dump runs in the same
 * namespace (CRIU then dumps no mounts of it).
 *
 * Both run between fork and exec (spawn_opts.child_setup): system calls on
 * what the caller opened, nothing allocated.
 */
struct tree_mounts {
        const char *tree_runtime;       /* the runtime dir as the tree knows it */
        const char *tree_state;         /* its state dir */
        /* Ours, shown there: by path, as a bind mount's source must be a
         * mount of the new namespace (the kernel refuses another's). */
        const char *runtime;
        const char *state;
        const char *x11;                /* RUNTIME/x11, shown at /tmp/.X11-unix */
};

/* A new mount namespace, private, with m's dirs shown where the tree knows them. */
int tree_mounts_apply(void *m);
/* Into the mount namespace *(const int *) fd (/proc/PID/ns/mnt of the tree's init). */
int tree_mounts_enter(void *fd);
