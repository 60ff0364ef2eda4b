/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Paths under an untrusted directory, resolved by the kernel (beneath.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "beneath.h"
#include "util.h"

#define RESOLVE_CONFINED (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

const char *beneath_path_problem(const char *path, size_t len) {
        if (!path || len == 0)
                return "the path is empty";
        if (strnlen(path, len) != len)
                return "the path contains a NUL byte";
        if (path[0] == '/')
                return "the path is absolute: give it relative to the desktop's home";
        if (len >= PATH_MAX)
                return "the path is too long";
        return NULL;
}

static bool force_walk;

void beneath_force_walk(bool on) {
        force_walk = on;
}

static int openat2_confined(int rootfd, const char *path, int flags) {
        /* openat2() refuses any flag O_PATH ignores, as open() does not. */
        struct open_how how = {
                .flags = (uint64_t) (flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY)),
                .resolve = RESOLVE_CONFINED,
        };
        long fd;

        if (beneath_path_problem(path, strlen(path)))
                return -EINVAL;
        if (force_walk)
                return beneath_walk_open(rootfd, path, flags);
        fd = syscall(SYS_openat2, rootfd, path, &how, sizeof how);
        if (fd < 0 && errno == ENOSYS)
                return beneath_walk_open(rootfd, path, flags);
        if (fd < 0)
                /* EAGAIN: a rename raced the lookup; the caller may try again, as for any other change of the tree. */
                return negative_errno();
        return (int) fd;
}

int beneath_open_dir(int rootfd, const char *path) {
        if (!path || !*path)
                path = ".";
        return openat2_confined(rootfd, path, O_RDONLY | O_DIRECTORY);
}

static int file_type_error(mode_t mode) {
        if (S_ISREG(mode))
                return 0;
        return S_ISDIR(mode) ? -EISDIR : -ENODEV;
}

int beneath_open_read(int rootfd, const char *path, uint64_t max, uint64_t *ret_size) {
        _cleanup_close_ int pathfd = -EBADF, fd = -EBADF;
        struct stat st;
        int r;

        /* O_PATH first: opening a FIFO for reading would block, and opening
         * a device may do something. A symlink at the end is followed as
         * every other component is, beneath root. Only a regular file is
         * then opened for real, the inode already looked at. */
        pathfd = openat2_confined(rootfd, path, O_PATH);
        if (pathfd < 0)
                return pathfd;
        if (fstat(pathfd, &st) < 0)
                return negative_errno();
        r = file_type_error(st.st_mode);
        if (r < 0)
                return r;
        if ((uint64_t) st.st_size > max)
                return -EFBIG;
        fd = fd_reopen(pathfd, O_RDONLY | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return fd;
        *ret_size = (uint64_t) st.st_size;
        return TAKE_FD(fd);
}

int beneath_is_dir(int rootfd, const char *path) {
        _cleanup_close_ int fd = openat2_confined(rootfd, path, O_PATH);
        struct stat st;

        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        return S_ISDIR(st.st_mode);
}

/* path's directory, opened beneath root, and its last component in leaf: a
 * name a file can have (not "", "." or "..": those name directories). */
static int open_parent(int rootfd, const char *path, char leaf[static NAME_MAX + 1]) {
        _cleanup_free_ char *parent = NULL;
        const char *slash, *name;

        if (beneath_path_problem(path, strlen(path)))
                return -EINVAL;
        slash = strrchr(path, '/');
        name = slash ? slash + 1 : path;
        if (!*name || streq(name, ".") || streq(name, ".."))
                return -EISDIR;
        if (strlen(name) > NAME_MAX)
                return -ENAMETOOLONG;
        strcpy(leaf, name);
        parent = slash ? strndup(path, (size_t) (slash - path)) : strdup(".");
        if (!parent)
                return -ENOMEM;
        return beneath_open_dir(rootfd, *parent ? parent : ".");
}

int beneath_create(int rootfd, const char *path, bool replace, mode_t mode, struct beneath_file *ret) {
        _cleanup_close_ int dirfd = -EBADF;
        struct beneath_file f = { .dirfd = -EBADF, .fd = -EBADF, .replace = replace };
        struct stat st;
        uint64_t rnd;

        dirfd = open_parent(rootfd, path, f.leaf);
        if (dirfd < 0)
                return dirfd;
        if (fstatat(dirfd, f.leaf, &st, AT_SYMLINK_NOFOLLOW) >= 0) {
                if (!replace)
                        return -EEXIST;
                if (!S_ISLNK(st.st_mode) && file_type_error(st.st_mode) < 0)
                        return file_type_error(st.st_mode);
        } else if (errno != ENOENT)
                return negative_errno();
        if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd)
                return -EIO;
        /* A dot name, so a listing of the directory does not offer it while it grows. */
        snprintf(f.tmp, sizeof f.tmp, ".botdesk-%016llx.part", (unsigned long long) rnd);
        f.fd = openat(dirfd, f.tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, mode);
        if (f.fd < 0)
                return negative_errno();
        if (fchmod(f.fd, mode) < 0) {
                int e = negative_errno();
                (void) unlinkat(dirfd, f.tmp, 0);
                close(f.fd);
                return e;
        }
        f.dirfd = TAKE_FD(dirfd);
        *ret = f;
        return 0;
}

int beneath_commit(struct beneath_file *f) {
        int r;

        if (fsync(f->fd) < 0)
                return negative_errno();
        /* Without replace, never over a file that appeared since the check. */
        r = renameat2(f->dirfd, f->tmp, f->dirfd, f->leaf, f->replace ? 0 : RENAME_NOREPLACE);
        if (r < 0)
                return negative_errno();
        f->tmp[0] = '\0';
        return 0;
}

void beneath_file_done(struct beneath_file *f) {
        if (f->dirfd >= 0 && f->tmp[0])
                (void) unlinkat(f->dirfd, f->tmp, 0);
        f->fd = safe_close(f->fd);
        f->dirfd = safe_close(f->dirfd);
        f->tmp[0] = '\0';
}

int beneath_remove(int rootfd, const char *path) {
        _cleanup_close_ int dirfd = -EBADF;
        char leaf[NAME_MAX + 1];
        struct stat st;

        dirfd = open_parent(rootfd, path, leaf);
        if (dirfd < 0)
                return dirfd;
        if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return negative_errno();
        if (!S_ISLNK(st.st_mode) && file_type_error(st.st_mode) < 0)
                return file_type_error(st.st_mode);
        if (unlinkat(dirfd, leaf, 0) < 0)
                return negative_errno();
        return 0;
}
