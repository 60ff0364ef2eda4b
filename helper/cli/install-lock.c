/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One `botdesk install` at a time. A lock is only as private as its file:
 * flock() needs no more than a read-only descriptor, so a lock file another
 * user may open is a lock another user may hold for ever.
 */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "install-lock.h"
#include "profile.h"
#include "util.h"

int install_lock_take(const char *run_dir, char **ret_path) {
        _cleanup_free_ char *base = NULL, *path = NULL;
        _cleanup_close_ int fd = -EBADF, dfd = -EBADF;
        struct stat st;

        if (geteuid() == 0 && lstat(run_dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022)) {
                path = strdup_printf("%s/install.lock", run_dir);
                if (!path)
                        return -ENOMEM;
                fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
                /* Only root's file counts: one a user made could be held by that user for ever. */
                if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
                                ((st.st_mode & 077) && fchmod(fd, 0600) < 0)))
                        fd = safe_close(fd);
                if (fd < 0) {
                        free(path);
                        path = NULL;
                }
        }
        if (fd < 0) {
                dfd = paths_runtime_base_open(true, &base);
                if (dfd < 0)
                        return dfd;
                fd = openat(dfd, "install.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
                if (fd < 0)
                        return negative_errno();
                path = strdup_printf("%s/install.lock", base);
                if (!path)
                        return -ENOMEM;
        }
        *ret_path = TAKE_PTR(path);
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : negative_errno();
        return TAKE_FD(fd);
}

