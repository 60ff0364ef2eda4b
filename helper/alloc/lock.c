/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The allocation lock (alloc.h): where it lives, and the wait for it,
 * bounded and cancellable, that wakes when its holder closes it.
 */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include "alloc.h"
#include "util.h"

#define RUN_DIR "/run/botdesk"

/* /run/botdesk is trusted only when root made it: then no user can squat the lock. */
static bool run_dir_trusted(void) {
        struct stat st;

        if (lstat(RUN_DIR, &st) < 0)
                return false;
        return S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

const char *alloc_lock_path(const char *runtime_base, char *buf, size_t size) {
        int k;

        if (!buf || size == 0)
                return NULL;

        /* Root's lock only for root: a lock another uid can open is a lock
         * another uid can hold, and every start would wait on it. */
        if (geteuid() == 0 && run_dir_trusted())
                k = snprintf(buf, size, "%s/alloc.lock", RUN_DIR);
        else if (runtime_base)
                k = snprintf(buf, size, "%s/alloc.lock", runtime_base);
        else
                return NULL;

        if (k < 0 || (size_t) k >= size)
                return NULL;
        return buf;
}

/*
 * Wait for the lock on fd until deadline (CLOCK_MONOTONIC usec), or until
 * one of the signals in cancel (blocked by the caller) is pending: then
 * -ECANCELED, the signal left for the caller's own handling. flock()
 * release has no event of its own, but a holder that closes its fd (every
 * botdesk process does; so does exit) makes an IN_CLOSE on the file: that
 * is the wake-up. A holder that unlocks with LOCK_UN and keeps the fd open
 * makes none, so the wait also re-tries at RETRY_USEC, bounded by the
 * deadline either way.
 */
#define RETRY_USEC (250 * 1000ULL)

static int lock_wait(int fd, unsigned long long deadline, const sigset_t *cancel) {
        _cleanup_close_ int ino = -EBADF, sfd = -EBADF;

        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        /* Without inotify (its limits are per user) the re-try still runs. */
        if (ino >= 0 && inotify_add_watch_fd(ino, fd, IN_CLOSE_WRITE | IN_CLOSE_NOWRITE) < 0)
                ino = safe_close(ino);
        /* Readable while one is pending; never read here, so not consumed. */
        if (cancel) {
                sfd = signalfd(-1, cancel, SFD_CLOEXEC | SFD_NONBLOCK);
                if (sfd < 0)
                        return negative_errno();
        }

        for (;;) {
                struct pollfd pfd[2];
                unsigned long long now, wait;
                nfds_t n = 0;
                char buf[4096];

                if (flock(fd, LOCK_EX | LOCK_NB) >= 0)
                        return 0;
                if (errno != EWOULDBLOCK && errno != EINTR)
                        return negative_errno();
                now = now_usec();
                if (now >= deadline)
                        return -ETIMEDOUT;
                wait = deadline - now < RETRY_USEC ? deadline - now : RETRY_USEC;
                if (ino >= 0)
                        pfd[n++] = (struct pollfd) { .fd = ino, .events = POLLIN };
                if (sfd >= 0)
                        pfd[n++] = (struct pollfd) { .fd = sfd, .events = POLLIN };
                if (poll(pfd, n, (int) ((wait + 999) / 1000)) < 0 && errno != EINTR)
                        return negative_errno();
                if (sfd >= 0 && (pfd[n - 1].revents & POLLIN))
                        return -ECANCELED;
                while (ino >= 0 && read(ino, buf, sizeof buf) > 0)
                        ; /* drained: the next wake-up is a new close */
        }
}

/* Replace path by a new empty 0600 file: fds anyone opened on the old one lock nothing any more. */
static int lock_file_renew(const char *path) {
        _cleanup_free_ char *dir = strndup(path, (size_t) (strrchr(path, '/') - path));
        _cleanup_close_ int dfd = -EBADF;

        if (!dir)
                return -ENOMEM;
        dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        return write_file_atomic_at(dfd, strrchr(path, '/') + 1, "", 0, 0600);
}

#define LOCK_OPEN_ATTEMPTS 4

int alloc_lock_take(const char *runtime_base, unsigned long long timeout_usec, const sigset_t *cancel) {
        unsigned long long deadline = now_usec() + timeout_usec;
        char path[PATH_MAX];
        bool shared;
        int r;

        if (!alloc_lock_path(runtime_base, path, sizeof(path)))
                return runtime_base ? -ENAMETOOLONG : -EINVAL;
        shared = !!startswith(path, RUN_DIR "/");

        for (unsigned attempt = 0; attempt < LOCK_OPEN_ATTEMPTS; attempt++) {
                _cleanup_close_ int fd = -EBADF;
                struct stat st, now;

                /* O_NONBLOCK only so that a FIFO in its place cannot hang
                 * us; flock() does not care. Both locks are their owner's alone. */
                fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
                if (fd < 0)
                        return negative_errno();
                if (fstat(fd, &st) < 0)
                        return negative_errno();
                if (!S_ISREG(st.st_mode))
                        return -EPERM;
                if (st.st_uid != (shared ? 0 : getuid()))
                        return -EPERM;
                if (st.st_mode & 077) {
                        /* An older install made root's lock 0644: anyone may
                         * hold an fd on it, and so hold the lock for ever. A
                         * new file leaves those fds locking a dead one. */
                        r = lock_file_renew(path);
                        if (r < 0)
                                return r;
                        continue;
                }

                /* PAM may call us with stdio closed: keep the lock fd off 0-2. */
                r = fd_move_above_stdio(fd);
                if (r < 0)
                        return r;
                fd = r;

                r = lock_wait(fd, deadline, cancel);
                if (r < 0)
                        return r;
                /* Locked, but maybe a file that was renewed meanwhile: only
                 * the one the path names now counts. */
                if (lstat(path, &now) < 0) {
                        if (errno != ENOENT)
                                return negative_errno();
                        continue;
                }
                if (now.st_dev == st.st_dev && now.st_ino == st.st_ino)
                        return TAKE_FD(fd);
        }
        return -EBUSY;
}
