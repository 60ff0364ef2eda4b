/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Directories: made with their parents, opened, removed with what is in them. (util.h) */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "util.h"

int dir_from_fd(int fd, DIR **ret) {
        DIR *d = fdopendir(fd);

        if (!d) {
                int r = negative_errno();

                safe_close(fd);
                return r;
        }
        *ret = d;
        return 0;
}

int dir_open_at(int dirfd, const char *path, DIR **ret) {
        int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return negative_errno();
        return dir_from_fd(fd, ret);
}

int mkdir_parents(const char *path, mode_t leaf_mode) {
        _cleanup_free_ char *p = strdup(path);
        struct stat st;

        if (!p)
                return -ENOMEM;
        for (char *s = p + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                *s = '/';
        }
        if (mkdir(p, leaf_mode) >= 0)
                return 0;
        if (errno != EEXIST)
                return negative_errno();
        /* A symlinked dir (to another disk) is the user's business; a file is not a dir. */
        if (stat(p, &st) < 0)
                return negative_errno();
        return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int dir_open_parent(const char *path) {
        _cleanup_free_ char *parent = strdup(path);
        char *slash = parent ? strrchr(parent, '/') : NULL;
        int fd;

        if (!parent)
                return -ENOMEM;
        if (!slash)
                return -EINVAL;
        *slash = 0;
        fd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

int remove_tree_at(int parent_fd, const char *name) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int fd, r;

        if (unlinkat(parent_fd, name, 0) >= 0 || errno == ENOENT)
                return 0;
        if (errno != EISDIR && errno != EPERM)
                return negative_errno();
        fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        r = dir_from_fd(fd, &d);
        if (r < 0)
                return r;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        r = remove_tree_at(dirfd(d), de->d_name);
                        if (r < 0)
                                return r;
                }
        return unlinkat(parent_fd, name, AT_REMOVEDIR) < 0 ? negative_errno() : 0;
}
