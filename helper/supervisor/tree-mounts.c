/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "tree-mounts.h"
#include "util.h"

#define X11_SOCKET_DIR "/tmp/.X11-unix"

static int bind_fd(int fd, const char *target) {
        char source[PROC_FD_PATH_MAX];

        proc_fd_path(fd, source);
        return mount(source, target, NULL, MS_BIND, NULL) < 0 ? negative_errno() : 0;
}

/* fd's dir shown at path: at once when path is that dir already, else on a tmpfs over path's parent. */
static int show_at(int fd, const char *path) {
        struct stat ours, theirs;
        char parent[PATH_MAX];
        const char *slash = strrchr(path, '/');

        if (fstat(fd, &ours) < 0)
                return negative_errno();
        if (stat(path, &theirs) >= 0 && theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino)
                return 0;
        if (!slash || slash == path || (size_t) (slash - path) >= sizeof parent)
                return -EINVAL;
        memcpy(parent, path, (size_t) (slash - path));
        parent[slash - path] = 0;
        if (mount("tmpfs", parent, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700,size=64k") < 0)
                return negative_errno();
        if (mkdir(path, 0700) < 0)
                return negative_errno();
        return bind_fd(fd, path);
}

int tree_mounts_apply(void *userdata) {
        const struct tree_mounts *m = userdata;
        int runtime_fd, state_fd, x11_fd, r;

        if (unshare(CLONE_NEWNS) < 0)
                return negative_errno();
        /* Nothing mounted here reaches the host, nor the host's later mounts us. */
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                return negative_errno();
        /* Ours opened before a tmpfs may cover them (and in the new namespace: see tree_mounts). The fds
         * close at exec. */
        runtime_fd = open(m->runtime, O_PATH | O_DIRECTORY | O_CLOEXEC);
        state_fd = open(m->state, O_PATH | O_DIRECTORY | O_CLOEXEC);
        x11_fd = open(m->x11, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (runtime_fd < 0 || state_fd < 0 || x11_fd < 0)
                return negative_errno();
        r = show_at(runtime_fd, m->tree_runtime);
        if (r >= 0)
                r = show_at(state_fd, m->tree_state);
        if (r >= 0)
                r = bind_fd(x11_fd, X11_SOCKET_DIR);
        return r;
}

int tree_mounts_enter(void *userdata) {
        const int *fd = userdata;

        return setns(*fd, CLONE_NEWNS) < 0 ? negative_errno() : 0;
}
