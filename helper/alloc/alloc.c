/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Display allocation. Everything here errs on the side of "in use": a number
 * wrongly believed free makes an X server fail to start (or worse, a desktop
 * attach to someone else's display), while a number wrongly believed taken
 * only costs one step further in the band.
 */

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "alloc.h"
#include "procfs.h"
#include "util.h"

#define X11_UNIX_DIR ".X11-unix"

/* X writes "%10d\n"; anything much longer is not a pid file. */
#define PID_FILE_MAX 64

const struct alloc_env alloc_env_default = {
        .lock_dir = "/tmp",
        .proc_net_unix = "/proc/net/unix",
        .reservation_dir = "/run/botdesk/reservations",
        .proc_root = "/proc",
};

enum pid_file_state {
        PID_FILE_ABSENT,
        PID_FILE_LIVE,     /* names a live process */
        PID_FILE_DEAD,     /* names a dead process, or is garbage */
        PID_FILE_FOREIGN,  /* symlink, not a regular file, unreadable: never touched */
};

struct alloc_scan {
        const struct alloc_env *env;
        int lock_dfd;
        int res_dfd;       /* -EBADF when there is no reservation dir */
        int claim_dfd;     /* -EBADF when there is no claim dir */
        unsigned *bound;   /* displays with a bound X socket */
        size_t n_bound;
};

static void scan_done(struct alloc_scan *s) {
        s->lock_dfd = safe_close(s->lock_dfd);
        s->res_dfd = safe_close(s->res_dfd);
        s->claim_dfd = safe_close(s->claim_dfd);
        free(s->bound);
        s->bound = NULL;
        s->n_bound = 0;
}

/*
 * The pid text of an X lock file or a reservation: leading spaces (X right-
 * aligns it in ten columns), digits, at most one trailing newline. Nothing
 * else, no NUL, no sign, no zero.
 */
static int parse_pid_text(const char *s, size_t len, pid_t *ret) {
        char digits[16];
        unsigned long long v;
        size_t i = 0, start;
        int r;

        while (i < len && s[i] == ' ')
                i++;
        start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
                i++;
        if (i == start || i - start >= sizeof(digits))
                return -EINVAL;
        memcpy(digits, s + start, i - start);
        digits[i - start] = '\0';

        if (i < len && s[i] == '\n')
                i++;
        if (i != len)
                return -EINVAL;

        r = parse_uint(digits, INT_MAX, &v);
        if (r < 0)
                return r;
        if (v == 0)
                return -EINVAL;

        *ret = (pid_t) v;
        return 0;
}

/*
 * Look at a pid file (X lock or reservation) without following symlinks or
 * blocking on a FIFO somebody put in its place. On PID_FILE_DEAD, *ret_st
 * identifies the file that was read, so that it can be removed only if it is
 * still the same one.
 */
static int pid_file_inspect(int dfd, const char *name, const char *proc_root,
                            bool *ret_garbage, struct stat *ret_st) {
        _cleanup_close_ int fd = -EBADF;
        char buf[PID_FILE_MAX];
        struct stat st;
        ssize_t len;
        pid_t pid;

        if (ret_garbage)
                *ret_garbage = false;

        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
                switch (errno) {
                case ENOENT:
                        return PID_FILE_ABSENT;
                case ENOMEM:
                case EMFILE:
                case ENFILE:
                case EINTR:
                        return negative_errno();
                default:
                        /* ELOOP (a symlink), EACCES, ENXIO (a socket), ...:
                         * something we do not understand holds the name. */
                        return PID_FILE_FOREIGN;
                }
        }

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return PID_FILE_FOREIGN;

        len = read_small(fd, buf, sizeof(buf));
        if (len < 0 && len != -EFBIG)
                return PID_FILE_FOREIGN;

        if (ret_st)
                *ret_st = st;

        if (len < 0 || parse_pid_text(buf, (size_t) len, &pid) < 0) {
                if (ret_garbage)
                        *ret_garbage = true;
                return PID_FILE_DEAD;
        }

        return pid_alive(proc_root, pid) ? PID_FILE_LIVE : PID_FILE_DEAD;
}

/* Remove dfd/name only if it is still the file described by st. */
static int unlink_if_same(int dfd, const char *name, const struct stat *st) {
        struct stat now;

        if (fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
                return 0; /* replaced meanwhile: it is somebody else's now */
        if (unlinkat(dfd, name, 0) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        return 1;
}

static int bound_add(unsigned **list, size_t *n, size_t *allocated, unsigned display) {
        if (ARRAY_GROW(*list, *n, *allocated, 16) < 0)
                return -ENOMEM;
        (*list)[(*n)++] = display;
        return 0;
}

/* "X20" -> 20; "X020", "X20a", "X" -> no. Only the canonical spelling X uses. */
static bool parse_x_socket_name(const char *path, size_t len, unsigned *ret) {
        static const char *const prefixes[] = { "@/tmp/.X11-unix/X", "/tmp/.X11-unix/X" };
        char digits[16];
        unsigned long long v;

        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++) {
                size_t pl = strlen(prefixes[i]), dl;

                if (len <= pl || strncmp(path, prefixes[i], pl) != 0)
                        continue;
                dl = len - pl;
                if (dl >= sizeof(digits) || (dl > 1 && path[pl] == '0'))
                        return false;
                memcpy(digits, path + pl, dl);
                digits[dl] = '\0';
                if (parse_uint(digits, UINT_MAX, &v) < 0)
                        return false;
                *ret = (unsigned) v;
                return true;
        }
        return false;
}

/*
 * Collect every display whose X socket appears in /proc/net/unix. Lines are
 * "Num RefCount Protocol Flags Type St Inode Path"; the path (eighth field)
 * is absent for unnamed sockets. Any socket with exactly that name counts,
 * listening or not: a connected one means a server is there too.
 */
static int unix_table_load(const char *path, unsigned **ret, size_t *ret_n) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        _cleanup_free_ unsigned *list = NULL;
        size_t n = 0, allocated = 0, line_size = 0;
        ssize_t k;

        f = fopen(path, "re");
        if (!f)
                return negative_errno();

        errno = 0;
        while ((k = getline(&line, &line_size, f)) >= 0) {
                const char *p = line, *field = NULL;
                size_t field_len = 0;
                unsigned display;

                for (unsigned i = 0; i < 8; i++) {
                        while (*p == ' ' || *p == '\t')
                                p++;
                        field = p;
                        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
                                p++;
                        field_len = (size_t) (p - field);
                        if (field_len == 0)
                                break;
                }
                if (field_len == 0)
                        continue;

                if (parse_x_socket_name(field, field_len, &display)) {
                        int r = bound_add(&list, &n, &allocated, display);
                        if (r < 0)
                                return r;
                }
                errno = 0;
        }
        if (ferror(f))
                return errno > 0 ? -errno : -EIO;

        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

static int scan_open(const struct alloc_env *env, struct alloc_scan *s) {
        int r;

        *s = (struct alloc_scan) {
                .env = env,
                .lock_dfd = -EBADF,
                .res_dfd = -EBADF,
                .claim_dfd = -EBADF,
        };

        if (!env->lock_dir || !env->proc_net_unix)
                return -EINVAL;

        s->lock_dfd = open(env->lock_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (s->lock_dfd < 0)
                return negative_errno();

        if (env->reservation_dir) {
                s->res_dfd = open(env->reservation_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
                /* No reservation dir: no host-wide tier is installed here. */
                if (s->res_dfd < 0 && errno != ENOENT)
                        return negative_errno();
        }

        if (env->claim_dir) {
                s->claim_dfd = open(env->claim_dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                /* None yet: no start has claimed anything. */
                if (s->claim_dfd < 0 && errno != ENOENT)
                        return negative_errno();
        }

        r = unix_table_load(env->proc_net_unix, &s->bound, &s->n_bound);
        if (r < 0)
                return r;

        return 0;
}

static bool scan_socket_bound(const struct alloc_scan *s, unsigned n) {
        for (size_t i = 0; i < s->n_bound; i++)
                if (s->bound[i] == n)
                        return true;
        return false;
}

static int scan_lock_state(const struct alloc_scan *s, unsigned n, struct stat *ret_st) {
        char name[32];

        snprintf(name, sizeof(name), ".X%u-lock", n);
        return pid_file_inspect(s->lock_dfd, name, s->env->proc_root, NULL, ret_st);
}

/*
 * A reservation holds n when its file names a live pid, or holds anything
 * that is not a pid at all (the logind tier's own markers).
 */
static int scan_reservation_state(const struct alloc_scan *s, unsigned n, struct stat *ret_st) {
        char name[16];
        bool garbage;
        int r;

        if (s->res_dfd < 0)
                return PID_FILE_ABSENT;

        snprintf(name, sizeof(name), "%u", n);
        r = pid_file_inspect(s->res_dfd, name, s->env->proc_root, &garbage, ret_st);
        if (r == PID_FILE_DEAD && garbage)
                return PID_FILE_FOREIGN;
        return r;
}

/* A claim holds n while it names a live pid; garbage or a dead pid is stale, a symlink or the like foreign. */
static int scan_claim_state(const struct alloc_scan *s, unsigned n, struct stat *ret_st) {
        char name[16];

        if (s->claim_dfd < 0)
                return PID_FILE_ABSENT;
        snprintf(name, sizeof(name), "%u", n);
        return pid_file_inspect(s->claim_dfd, name, s->env->proc_root, NULL, ret_st);
}

static int scan_in_use(const struct alloc_scan *s, unsigned n) {
        int r;

        r = scan_lock_state(s, n, NULL);
        if (r < 0)
                return r;
        if (r == PID_FILE_LIVE || r == PID_FILE_FOREIGN)
                return 1;

        /* A server whose lock file was reaped from /tmp still owns its number. */
        if (scan_socket_bound(s, n))
                return 1;

        r = scan_reservation_state(s, n, NULL);
        if (r < 0)
                return r;
        if (r == PID_FILE_LIVE || r == PID_FILE_FOREIGN)
                return 1;

        r = scan_claim_state(s, n, NULL);
        if (r < 0)
                return r;
        if (r == PID_FILE_LIVE || r == PID_FILE_FOREIGN)
                return 1;

        return 0;
}

static int scan_remove_stale_lock(const struct alloc_scan *s, unsigned n) {
        _cleanup_close_ int sock_dfd = -EBADF;
        char lock_name[32], sock_name[16];
        struct stat st;
        int r;

        r = scan_lock_state(s, n, &st);
        if (r < 0)
                return r;
        if (r != PID_FILE_DEAD)
                return 0;

        /* The pid says dead, but the socket says a server is there (e.g. one
         * in another pid namespace): leave its files alone. */
        if (scan_socket_bound(s, n))
                return 0;

        snprintf(lock_name, sizeof(lock_name), ".X%u-lock", n);
        r = unlink_if_same(s->lock_dfd, lock_name, &st);
        if (r <= 0)
                return r;

        /* The dead server's socket file would not stop a new server (X unlinks
         * it before bind), but leaving it confuses clients and reapers. Best
         * effort: in a sticky /tmp/.X11-unix only its owner may remove it. */
        sock_dfd = openat(s->lock_dfd, X11_UNIX_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sock_dfd >= 0) {
                snprintf(sock_name, sizeof(sock_name), "X%u", n);
                if (fstatat(sock_dfd, sock_name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISSOCK(st.st_mode))
                        (void) unlink_if_same(sock_dfd, sock_name, &st);
        }

        return 1;
}

/* A reservation whose pid died with its holder is dropped, best effort. */
static void scan_remove_dead_reservation(const struct alloc_scan *s, unsigned n) {
        char name[16];
        struct stat st;

        if (scan_reservation_state(s, n, &st) != PID_FILE_DEAD)
                return;
        snprintf(name, sizeof(name), "%u", n);
        (void) unlink_if_same(s->res_dfd, name, &st);
}

/* A claim whose start died before it dropped it, dropped. */
static void scan_remove_dead_claim(const struct alloc_scan *s, unsigned n) {
        char name[16];
        struct stat st;

        if (scan_claim_state(s, n, &st) != PID_FILE_DEAD)
                return;
        snprintf(name, sizeof(name), "%u", n);
        (void) unlink_if_same(s->claim_dfd, name, &st);
}

int display_in_use(const struct alloc_env *env, unsigned n) {
        _cleanup_(scan_done) struct alloc_scan s = { .lock_dfd = -EBADF, .res_dfd = -EBADF, .claim_dfd = -EBADF };
        int r;

        r = scan_open(env ?: &alloc_env_default, &s);
        if (r < 0)
                return r;
        return scan_in_use(&s, n);
}

int display_reserved(const struct alloc_env *env, unsigned n) {
        _cleanup_(scan_done) struct alloc_scan s = { .lock_dfd = -EBADF, .res_dfd = -EBADF, .claim_dfd = -EBADF };
        int r;

        r = scan_open(env ?: &alloc_env_default, &s);
        if (r < 0)
                return r;
        r = scan_reservation_state(&s, n, NULL);
        if (r < 0)
                return r;
        return r == PID_FILE_LIVE || r == PID_FILE_FOREIGN;
}

int display_remove_stale_lock(const struct alloc_env *env, unsigned n) {
        _cleanup_(scan_done) struct alloc_scan s = { .lock_dfd = -EBADF, .res_dfd = -EBADF, .claim_dfd = -EBADF };
        int r;

        r = scan_open(env ?: &alloc_env_default, &s);
        if (r < 0)
                return r;
        return scan_remove_stale_lock(&s, n);
}

static bool in_list(const unsigned *l, size_t n, unsigned v) {
        for (size_t i = 0; i < n; i++)
                if (l[i] == v)
                        return true;
        return false;
}

/* 1 when n may be handed out, 0 when not, -errno when the host cannot be read. */
static int scan_try(const struct alloc_scan *s, unsigned n) {
        int r;

        /* A stale lock we may not remove (another user's, in sticky /tmp)
         * would make the X server refuse n too: treat it as taken. */
        r = scan_remove_stale_lock(s, n);
        if (r < 0)
                return 0;

        r = scan_in_use(s, n);
        if (r < 0)
                return r;
        if (r > 0)
                return 0;

        scan_remove_dead_reservation(s, n);
        scan_remove_dead_claim(s, n);
        return 1;
}

int display_pick(const struct alloc_env *env, unsigned min, unsigned max, int preferred,
                 const unsigned *skip, size_t n_skip) {
        _cleanup_(scan_done) struct alloc_scan s = { .lock_dfd = -EBADF, .res_dfd = -EBADF, .claim_dfd = -EBADF };
        int r;

        if (min > max || max > INT_MAX)
                return -EINVAL;
        if (n_skip > 0 && !skip)
                return -EINVAL;

        r = scan_open(env ?: &alloc_env_default, &s);
        if (r < 0)
                return r;

        if (preferred >= 0 && (unsigned) preferred >= min && (unsigned) preferred <= max &&
            !in_list(skip, n_skip, (unsigned) preferred)) {
                r = scan_try(&s, (unsigned) preferred);
                if (r < 0)
                        return r;
                if (r > 0)
                        return preferred;
        }

        for (unsigned n = min;; n++) {
                if (!in_list(skip, n_skip, n) && (preferred < 0 || n != (unsigned) preferred)) {
                        r = scan_try(&s, n);
                        if (r < 0)
                                return r;
                        if (r > 0)
                                return (int) n;
                }
                if (n == max)
                        break;
        }

        return -EBUSY;
}

const char *alloc_claim_dir(const char *runtime_base, char *buf, size_t size) {
        char lock[PATH_MAX];
        int k;

        if (!alloc_lock_path(runtime_base, lock, sizeof(lock)) || !buf || size == 0)
                return NULL;
        k = snprintf(buf, size, "%.*s/display-claims", (int) (strrchr(lock, '/') - lock), lock);
        if (k < 0 || (size_t) k >= size)
                return NULL;
        return buf;
}

int alloc_claim_dir_open(const char *path) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        if (mkdir(path, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOTDIR || errno == ELOOP ? -EPERM : negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (st.st_uid != geteuid() || (st.st_mode & 077))
                return -EPERM;
        return TAKE_FD(fd);
}

int display_claim(const struct alloc_env *env, unsigned n, pid_t pid) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char name[16], tmp[NAME_MAX + 1], text[24];
        int k, r;

        if (!env || !env->claim_dir || pid <= 0)
                return -EINVAL;
        dfd = alloc_claim_dir_open(env->claim_dir);
        if (dfd < 0)
                return dfd;
        snprintf(name, sizeof(name), "%u", n);
        k = snprintf(text, sizeof(text), "%d\n", (int) pid);
        /* Written under another name, then linked: no reader ever sees it half made. */
        fd = open_temporary_at(dfd, name, O_WRONLY, 0600, tmp);
        if (fd < 0)
                return fd;
        r = write_all(fd, text, (size_t) k);
        if (r >= 0 && linkat(dfd, tmp, dfd, name, 0) < 0)
                r = negative_errno();
        (void) unlinkat(dfd, tmp, 0);
        return r < 0 ? r : 0;
}

int display_unclaim(const struct alloc_env *env, unsigned n, pid_t pid) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char name[16], buf[PID_FILE_MAX];
        struct stat st;
        ssize_t len;
        pid_t named;

        if (!env || !env->claim_dir)
                return -EINVAL;
        dfd = open(env->claim_dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        snprintf(name, sizeof(name), "%u", n);
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        len = read_small(fd, buf, sizeof(buf));
        if (!S_ISREG(st.st_mode) || len < 0 || parse_pid_text(buf, (size_t) len, &named) < 0 || named != pid)
                return 0;
        return unlink_if_same(dfd, name, &st);
}

int display_lock_set_pid(const struct alloc_env *env, unsigned n, pid_t expected, pid_t pid) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        char name[32], tmp[NAME_MAX + 1], line[16];
        unsigned long long v;
        int r;

        env = env ?: &alloc_env_default;
        snprintf(name, sizeof name, ".X%u-lock", n);
        dfd = open(env->lock_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        r = read_full_file_at(dfd, name, &text, NULL, 64);
        if (expected < 0) {
                if (r != -ENOENT)
                        return r < 0 ? r : -EEXIST;
        } else {
                if (r < 0)
                        return r;
                text[strcspn(text, "\n")] = 0;
                if (parse_uint(text + strspn(text, " "), INT32_MAX, &v) < 0 || (pid_t) v != expected)
                        return 0; /* not the lock it was: someone else's now */
        }
        /* The X server's own format: ten columns and a newline, read-only. */
        snprintf(line, sizeof line, "%10d\n", (int) pid);
        fd = open_temporary_at(dfd, name, O_WRONLY, 0444, tmp);
        if (fd < 0)
                return fd;
        if (write(fd, line, strlen(line)) != (ssize_t) strlen(line) || renameat(dfd, tmp, dfd, name) < 0) {
                r = negative_errno();
                (void) unlinkat(dfd, tmp, 0);
                return r;
        }
        return 1;
}
