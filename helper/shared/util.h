/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Small helpers every file of botdesk uses: cleanup attributes for memory and
 * file descriptors, explicit ownership transfer, and a few string helpers.
 * Functions in botdesk return 0 (or a positive value) on success and -errno on
 * failure; only the edges (CLI, helper main, PAM entry points) turn an error
 * into words.
 */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

static inline const char *startswith(const char *s, const char *prefix) {
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

/* The operand "-": standard input or output, as for cat(1). */
static inline bool word_is_stdio(const char *w) {
        return w && streq(w, "-");
}

static inline const char *strnull(const char *s) {
        return s ?: "(null)";
}

static inline const char *strempty(const char *s) {
        return s ?: "";
}

/* Hand ownership out of a cleanup-owned variable. */
#define TAKE_PTR(p)                                \
        ({                                         \
                __typeof__(p) _taken_ = (p);       \
                (p) = NULL;                        \
                _taken_;                           \
        })
#define TAKE_FD(fd)                                \
        ({                                         \
                int _taken_fd_ = (fd);             \
                (fd) = -EBADF;                     \
                _taken_fd_;                        \
        })

/*
 * Room for one more element in array, of which n are in use and cap
 * allocated: the allocation doubles when full (first elements to begin
 * with), so that appending stays linear. 0, or -ENOMEM with array, n and
 * cap as they were.
 */
#define ARRAY_GROW(array, n, cap, first)                                                     \
        ({                                                                                   \
                int _grow_r_ = 0;                                                            \
                if ((n) >= (cap)) {                                                          \
                        size_t _grow_cap_ = (cap) ? (cap) * 2 : (first);                     \
                        __typeof__(array) _grow_a_ = reallocarray((array), _grow_cap_,       \
                                                                  sizeof *(array));          \
                        if (_grow_a_) {                                                      \
                                (array) = _grow_a_;                                          \
                                (cap) = _grow_cap_;                                          \
                        } else                                                               \
                                _grow_r_ = -ENOMEM;                                          \
                }                                                                            \
                _grow_r_;                                                                    \
        })

/* Destructors accept "nothing" and return "nothing", so `x = freep(x)` reads well. */
static inline int safe_close(int fd) {
        if (fd >= 0) {
                int saved = errno;
                close(fd);
                errno = saved;
        }
        return -EBADF;
}

static inline void freep(void *p) {
        free(*(void **) p);
}
static inline void closep(int *fd) {
        safe_close(*fd);
}
static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}
static inline void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}
static inline void strv_freep(char ***l) {
        strv_free(*l);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

/* errno as a negative return value, never 0 even if errno was clobbered. */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

/*
 * strscpy() - copy the string src into dst, which holds size bytes, always
 * NUL-terminated when size > 0.
 *
 * Returns the length copied (without the NUL), or -ENOBUFS when src does not
 * fit: dst then holds as much of it as fits (nothing when size is 0), and
 * the caller decides, never the copy, whether a cut string is acceptable.
 */
ssize_t strscpy(char *dst, size_t size, const char *src);

/* asprintf that returns NULL on failure instead of an undefined pointer. */
char *strdup_printf(const char *fmt, ...) _printf_(1, 2);

/* What a parser says of bad input: *ret the formatted problem and -EINVAL, or *ret NULL and -ENOMEM. */
int problemf(char **ret, const char *fmt, ...) _printf_(2, 3);
/* The same with a va_list. */
char *strdup_vprintf(const char *fmt, va_list ap) _printf_(1, 0);

/* Read a whole small file (at most max bytes) into a NUL-terminated buffer. */
/* Write all of data, through EINTR and short writes. */
int write_all(int fd, const void *data, size_t size);

/* "/proc/self/fd/FD": the path of what fd is open on, for what takes a path only (a bind mount's source, a
 * program's argument when the fd is passed on at the same number). The one place such a path is made. */
#define PROC_FD_PATH_MAX (sizeof "/proc/self/fd/" + 12)
void proc_fd_path(int fd, char path[static PROC_FD_PATH_MAX]);

/*
 * An inotify watch (inotify_add_watch(2) on inotify_fd) of the inode fd
 * is open on, through /proc/self/fd: whatever its path is called now.
 * Returns the watch descriptor, or -errno.
 */
int inotify_add_watch_fd(int inotify_fd, int fd, uint32_t mask);
/* A new inotify fd (non-blocking, close-on-exec) with that one watch of fd: the fd, or -errno. */
int inotify_watching(int fd, uint32_t mask);

/* n bytes of data as 2n lower-case hex digits and a NUL in ret (2n + 1 bytes). */
void hex_encode(const void *data, size_t n, char *ret);

/* O_NONBLOCK set on fd (nonblock) or cleared, its other status flags kept: 0, or -errno. */
int fd_nonblock(int fd, bool nonblock);

/* The inode fd is open on (an O_PATH fd, say) opened anew with flags (O_CLOEXEC added): the new fd, or -errno. */
int fd_reopen(int fd, int flags);

/* The path fd is open on, as the kernel names it now (new string in *ret). 0, or -errno. */
int fd_get_path(int fd, char **ret);

/* mkdir -p: the parents 0755 (subject to umask), the leaf leaf_mode; an
 * existing leaf must be a directory (or a symlink to one). */
int mkdir_parents(const char *path, mode_t leaf_mode);

/* The directory that holds path (O_RDONLY | O_DIRECTORY | O_CLOEXEC): an
 * fd, or -errno. */
int dir_open_parent(const char *path);

/* rm -r of parent_fd/name without following a symlink anywhere: a symlink is
 * removed, never what it points to. 0, also when name did not exist. */
int remove_tree_at(int parent_fd, const char *name);

/* Read what fits of a small file from fd into buf; the length, or -EFBIG if it does not fit. */
ssize_t read_small(int fd, char *buf, size_t size);
int read_full_file(const char *path, char **ret, size_t *ret_size, size_t max);
/* All of fd, NUL-terminated (not counted in *ret_size), at most max bytes (-EFBIG past them). */
int read_full_fd(int fd, char **ret, size_t *ret_size, size_t max);
/* A state file in a verified directory: opened with flags (O_RDONLY, or
 * O_WRONLY|O_APPEND|O_CREAT with mode...) and O_NOFOLLOW|O_NONBLOCK, and
 * anything but a regular file refused (-ELOOP, -EISDIR, -EBADFD). The fd,
 * with its stat in *ret_st (may be NULL). */
int open_regular_at(int dirfd, const char *name, int flags, mode_t mode, struct stat *ret_st);
/* The same, read whole. */
int read_full_file_at(int dirfd, const char *name, char **ret, size_t *ret_size, size_t max);

/* A new file beside dir/name, to be renamed over it once written: opened
 * with flags, O_CREAT|O_EXCL and mode, its random name (".#NAME.HEX") in
 * ret_tmp. The fd, or -errno. */
int open_temporary_at(int dirfd, const char *name, int flags, mode_t mode, char ret_tmp[static NAME_MAX + 1]);

/* Write data to dir/name atomically: a temporary name in the same directory,
 * fsync-free (volatile files), then rename. Mode applies to the new file. */
int write_file_atomic_at(int dirfd, const char *name, const void *data, size_t size, mode_t mode);

/* Parse an unsigned decimal number with no sign, no spaces, no junk. */
int parse_uint(const char *s, unsigned long long max, unsigned long long *ret);
/* The same with an optional leading '-' (no '+'): a number in [-max, max]. */
int parse_int(const char *s, long long max, long long *ret);

/* Monotonic and wall clock in microseconds. */
unsigned long long now_usec(void);
unsigned long long realtime_usec(void);
/*
 * usec since the epoch as "YYYY-MM-DDTHH:MM:SSZ", or with millis
 * "YYYY-MM-DDTHH:MM:SS.mmmZ", in ret; returns ret. Not gmtime_r() and
 * strftime(): glibc's read /etc/localtime (tzset) once per process, for a
 * time in UTC, and the journal stamps every agent action.
 */
#define UTC_TIME_MAX 32
char *utc_time_format(unsigned long long usec, bool millis, char ret[static UTC_TIME_MAX]);
/* CLOCK_REALTIME_COARSE, the clock file times come from: a file written
 * after this moment never looks older than it. */
unsigned long long realtime_coarse_usec(void);
unsigned long long timespec_usec(const struct timespec *ts);
/* The reverse: usec microseconds as a timespec (a span, or a time on a clock). */
struct timespec usec_timespec(unsigned long long usec);

/* Move fd above 2 if it is 0..2 (callers may start with stdio closed). */
int fd_move_above_stdio(int fd);

/* A DIR for the directory fd, which it owns from then on (closed on failure
 * too); -errno. */
int dir_from_fd(int fd, DIR **ret);
/* A DIR for path under dirfd (O_DIRECTORY, O_CLOEXEC; "." for dirfd itself
 * with an offset of its own); -errno. */
int dir_open_at(int dirfd, const char *path, DIR **ret);

/* A pipe, both ends O_CLOEXEC, into *ret_read and *ret_write (untouched on failure); -errno. */
int pipe_cloexec(int *ret_read, int *ret_write);

/* strv helpers */
size_t strv_length(char *const *l);
int strv_push(char ***l, char *value); /* takes ownership of value, even on failure */
char *strv_env_get(char *const *env, const char *key);
/* Set or replace the entry "KEY=VALUE" in an environment strv: env_put takes
 * ownership of entry (NULL: -ENOMEM), even on failure. */
int strv_env_put(char ***env, char *entry);
int env_set(char ***env, const char *key, const char *value);
/* A copy of env with key=value set in it, into *ret. */
int env_copy_set(char *const *env, const char *key, const char *value, char ***ret);

/* Open (creating it 0600 if need be) dirfd/name and take an exclusive
 * flock on it: the fd, or -errno. wait: as long as it takes; else -EBUSY
 * when someone holds it. */
int lock_file_at(int dirfd, const char *name, bool wait);
