/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

char *strdup_vprintf(const char *fmt, va_list ap) {
        char *s;

        return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

ssize_t strscpy(char *dst, size_t size, const char *src) {
        size_t l;

        if (size == 0)
                return -ENOBUFS;
        l = strnlen(src, size);
        if (l == size) {
                memcpy(dst, src, size - 1);
                dst[size - 1] = 0;
                return -ENOBUFS;
        }
        memcpy(dst, src, l + 1);
        return (ssize_t) l;
}

int problemf(char **ret, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        *ret = strdup_vprintf(fmt, ap);
        va_end(ap);
        return *ret ? -EINVAL : -ENOMEM;
}

char *strdup_printf(const char *fmt, ...) {
        va_list ap;
        char *s;

        va_start(ap, fmt);
        s = strdup_vprintf(fmt, ap);
        va_end(ap);
        return s;
}

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

int parse_uint(const char *s, unsigned long long max, unsigned long long *ret) {
        unsigned long long v = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                if (v > (ULLONG_MAX - (unsigned) (*p - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (unsigned) (*p - '0');
        }
        if (v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_int(const char *s, long long max, long long *ret) {
        bool negative = s && s[0] == '-';
        unsigned long long v;
        int r;

        if (max < 0)
                return -EINVAL;
        r = parse_uint(s ? s + negative : NULL, (unsigned long long) max, &v);
        if (r < 0)
                return r;
        *ret = negative ? -(long long) v : (long long) v;
        return 0;
}

unsigned long long timespec_usec(const struct timespec *ts) {
        return (unsigned long long) ts->tv_sec * 1000000ULL + (unsigned long long) ts->tv_nsec / 1000ULL;
}

struct timespec usec_timespec(unsigned long long usec) {
        return (struct timespec) { .tv_sec = (time_t) (usec / 1000000ULL), .tv_nsec = (long) (usec % 1000000ULL) * 1000L };
}

static unsigned long long clock_usec(clockid_t id) {
        struct timespec ts;

        clock_gettime(id, &ts);
        return timespec_usec(&ts);
}

unsigned long long now_usec(void) {
        return clock_usec(CLOCK_MONOTONIC);
}

unsigned long long realtime_usec(void) {
        return clock_usec(CLOCK_REALTIME);
}

unsigned long long realtime_coarse_usec(void) {
        return clock_usec(CLOCK_REALTIME_COARSE);
}

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

int pipe_cloexec(int *ret_read, int *ret_write) {
        int fds[2];

        if (pipe2(fds, O_CLOEXEC) < 0)
                return negative_errno();
        *ret_read = fds[0];
        *ret_write = fds[1];
        return 0;
}

size_t strv_length(char *const *l) {
        size_t n = 0;

        if (l)
                while (l[n])
                        n++;
        return n;
}

int strv_push(char ***l, char *value) {
        size_t n = strv_length(*l);
        char **p;

        if (!value)
                return -ENOMEM;
        p = realloc(*l, sizeof(char *) * (n + 2));
        if (!p) {
                free(value);
                return -ENOMEM;
        }
        p[n] = value;
        p[n + 1] = NULL;
        *l = p;
        return 0;
}

char *strv_env_get(char *const *env, const char *key) {
        size_t l = strlen(key);

        for (char *const *i = env; i && *i; i++)
                if (strncmp(*i, key, l) == 0 && (*i)[l] == '=')
                        return *i + l + 1;
        return NULL;
}

int strv_env_put(char ***env, char *entry) {
        size_t kl;

        if (!entry)
                return -ENOMEM;
        kl = strcspn(entry, "=");
        for (char **i = *env; i && *i; i++)
                if (strncmp(*i, entry, kl + 1) == 0) {
                        free(*i);
                        *i = entry;
                        return 0;
                }
        return strv_push(env, entry);
}

int env_set(char ***env, const char *key, const char *value) {
        return strv_env_put(env, strdup_printf("%s=%s", key, value));
}

int env_copy_set(char *const *env, const char *key, const char *value, char ***ret) {
        _cleanup_strv_free_ char **copy = NULL;
        int r;

        for (char *const *e = env; e && *e; e++)
                if ((r = strv_push(&copy, strdup(*e))) < 0)
                        return r;
        r = env_set(&copy, key, value);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(copy);
        return 0;
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

/* The one place a /proc/self/fd path of an fd is made (tests/unit/test-layout.sh). */
static void proc_fd_path(int fd, char path[static sizeof "/proc/self/fd/" + 12]) {
        snprintf(path, sizeof "/proc/self/fd/" + 12, "/proc/self/fd/%d", fd);
}

int inotify_add_watch_fd(int inotify_fd, int fd, uint32_t mask) {
        char path[sizeof "/proc/self/fd/" + 12];
        int wd;

        proc_fd_path(fd, path);
        wd = inotify_add_watch(inotify_fd, path, mask);
        return wd < 0 ? negative_errno() : wd;
}

int fd_reopen(int fd, int flags) {
        char path[sizeof "/proc/self/fd/" + 12];
        int r;

        proc_fd_path(fd, path);
        r = open(path, flags | O_CLOEXEC);
        return r < 0 ? negative_errno() : r;
}

int fd_get_path(int fd, char **ret) {
        char path[sizeof "/proc/self/fd/" + 12], target[PATH_MAX];
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

void hex_encode(const void *data, size_t n, char *ret) {
        static const char digits[] = "0123456789abcdef";
        const uint8_t *d = data;

        for (size_t i = 0; i < n; i++) {
                ret[2 * i] = digits[d[i] >> 4];
                ret[2 * i + 1] = digits[d[i] & 15];
        }
        ret[2 * n] = 0;
}
