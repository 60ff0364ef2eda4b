/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* File descriptors: kept above stdio, reopened, named, watched, piped. (util.h) */
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "util.h"

int fd_move_above_stdio(int fd) {
        int copy;

        if (fd < 0 || fd > 2)
                return fd;
        copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (copy < 0)
                return negative_errno();
        close(fd);
        return copy;
}

int pipe_cloexec(int *ret_read, int *ret_write) {
        int fds[2];

        if (pipe2(fds, O_CLOEXEC) < 0)
                return negative_errno();
        *ret_read = fds[0];
        *ret_write = fds[1];
        return 0;
}

/* The one place a /proc/self/fd path of an fd is made (tests/unit/test-layout.sh). */
void proc_fd_path(int fd, char path[static PROC_FD_PATH_MAX]) {
        snprintf(path, PROC_FD_PATH_MAX, "/proc/self/fd/%d", fd);
}

int inotify_add_watch_fd(int inotify_fd, int fd, uint32_t mask) {
        char path[PROC_FD_PATH_MAX];
        int wd;

        proc_fd_path(fd, path);
        wd = inotify_add_watch(inotify_fd, path, mask);
        return wd < 0 ? negative_errno() : wd;
}

int inotify_watching(int fd, uint32_t mask) {
        _cleanup_close_ int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        int r;

        if (ino < 0)
                return negative_errno();
        r = inotify_add_watch_fd(ino, fd, mask);
        return r < 0 ? r : TAKE_FD(ino);
}

int fd_nonblock(int fd, bool nonblock) {
        int flags = fcntl(fd, F_GETFL);

        if (flags < 0)
                return negative_errno();
        if (!!(flags & O_NONBLOCK) == nonblock)
                return 0;
        return fcntl(fd, F_SETFL, nonblock ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) < 0 ? negative_errno() : 0;
}

int fd_reopen(int fd, int flags) {
        char path[PROC_FD_PATH_MAX];
        int r;

        proc_fd_path(fd, path);
        r = open(path, flags | O_CLOEXEC);
        return r < 0 ? negative_errno() : r;
}

int fd_get_path(int fd, char **ret) {
        char path[PROC_FD_PATH_MAX], target[PATH_MAX];
        ssize_t n;

        proc_fd_path(fd, path);
        n = readlink(path, target, sizeof target - 1);
        if (n < 0)
                return negative_errno();
        if (n == 0)
                return -EIO;
        target[n] = 0;
        *ret = strdup(target);
        return *ret ? 0 : -ENOMEM;
}
