/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading and writing whole files and small ones, atomically where it matters. (util.h) */
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "util.h"

int read_full_fd(int fd, char **ret, size_t *ret_size, size_t max) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, allocated = 0;

        for (;;) {
                ssize_t n;

                if (allocated - size < 2) {
                        size_t want = allocated ? allocated * 2 : 4096;
                        char *p;

                        if (want > max + 2)
                                want = max + 2;
                        if (want <= allocated)
                                return -EFBIG;
                        p = realloc(buf, want);
                        if (!p)
                                return -ENOMEM;
                        buf = p;
                        allocated = want;
                }
                n = read(fd, buf + size, allocated - size - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                size += (size_t) n;
                if (size > max)
                        return -EFBIG;
        }
        if (!buf) {
                buf = malloc(1);
                if (!buf)
                        return -ENOMEM;
        }
        buf[size] = 0;
        *ret = TAKE_PTR(buf);
        if (ret_size)
                *ret_size = size;
        return 0;
}

int read_full_file(const char *path, char **ret, size_t *ret_size, size_t max) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return negative_errno();
        return read_full_fd(fd, ret, ret_size, max);
}

int open_regular_at(int dirfd, const char *name, int flags, mode_t mode, struct stat *ret_st) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        /* A state file: never through a symlink, and a FIFO (or device) put
         * in its place must neither block the open nor be read. */
        fd = openat(dirfd, name, flags | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, mode);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
        if (ret_st)
                *ret_st = st;
        return TAKE_FD(fd);
}

int read_full_file_at(int dirfd, const char *name, char **ret, size_t *ret_size, size_t max) {
        _cleanup_close_ int fd = open_regular_at(dirfd, name, O_RDONLY, 0, NULL);

        if (fd < 0)
                return fd;
        return read_full_fd(fd, ret, ret_size, max);
}

int write_all(int fd, const void *data, size_t size) {
        const char *p = data;

        while (size > 0) {
                ssize_t n = write(fd, p, size);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

int open_temporary_at(int dirfd, const char *name, int flags, mode_t mode, char ret_tmp[static NAME_MAX + 1]) {
        uint64_t rnd;
        int fd;

        /* A random temporary name beside the target: a reader sees either the
         * old file or the complete new one, never a torn one. */
        if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd)
                return -EIO;
        if (snprintf(ret_tmp, NAME_MAX + 1, ".#%.200s.%016llx", name, (unsigned long long) rnd) >= NAME_MAX + 1)
                return -ENAMETOOLONG;
        fd = openat(dirfd, ret_tmp, flags | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        return fd < 0 ? negative_errno() : fd;
}

int write_file_atomic_at(int dirfd, const char *name, const void *data, size_t size, mode_t mode) {
        char tmp[NAME_MAX + 1];
        int fd, r;

        fd = open_temporary_at(dirfd, name, O_WRONLY, mode, tmp);
        if (fd < 0)
                return fd;
        r = write_all(fd, data, size);
        if (r >= 0 && fchmod(fd, mode) < 0)
                r = negative_errno();
        if (close(fd) < 0 && r >= 0)
                r = negative_errno();
        if (r >= 0 && renameat(dirfd, tmp, dirfd, name) < 0)
                r = negative_errno();
        if (r < 0)
                (void) unlinkat(dirfd, tmp, 0);
        return r;
}

int lock_file_at(int dirfd, const char *name, bool wait) {
        /* O_NONBLOCK: a FIFO in its place must not hang us (flock ignores it). */
        _cleanup_close_ int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
                                        0600);

        if (fd < 0)
                return negative_errno();
        while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
                if (!wait && errno == EWOULDBLOCK)
                        return -EBUSY;
                if (errno != EINTR)
                        return negative_errno();
        }
        return TAKE_FD(fd);
}

/* Read a small file from an fd; returns the length, or -EFBIG if it does not fit. */
ssize_t read_small(int fd, char *buf, size_t size) {
        size_t len = 0;

        for (;;) {
                ssize_t k;

                if (len >= size)
                        return -EFBIG;
                k = read(fd, buf + len, size - len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        return (ssize_t) len;
                len += (size_t) k;
        }
}
