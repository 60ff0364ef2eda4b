/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Waiting for a desktop that another `botdesk start` began, perhaps one
 * whose CLI was killed since: the helper is alive and has not published.
 * Its NOTIFY_SOCKET belongs to whoever spawned it, so this side watches the
 * runtime directory instead (the env file renamed into place, the helper
 * record written, the helper lock closed by a dying helper) and, once the
 * record names the helper, its exit through a pidfd.
 *
 * inotify instances are a per-user resource (fs.inotify.max_user_instances,
 * 128 by default) that running desktops use up, several per Xfce desktop. A
 * start must not fail for what scale exhausts, so without inotify (as in
 * cgroup-wait.c) the wait keeps the helper's pidfd for its exit and reads
 * the runtime directory again every REREAD_USEC: the fallback, bounded like
 * the watch by the deadline, never the way taken when a watch can be set.
 */
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "record.h"
#include "socket-util.h"
#include "launch.h"
#include "util.h"

/* Without inotify: how often the runtime directory is looked at again. */
#define REREAD_USEC (50 * 1000ULL)

/* Does something listen on this Unix socket ("@name": abstract)? A connect, nothing spoken. */
static bool socket_listens(int dirfd, const char *name) {
        _cleanup_close_ int fd = socket_connect_at(dirfd, name, SOCK_STREAM);

        /* Anything but "nobody there" cannot tell: not evidence of death. */
        return fd >= 0 || (fd != -ECONNREFUSED && fd != -ENOENT);
}

/*
 * A published desktop whose X server or session bus no longer listens is
 * being torn down (the helper has yet to notice the death): not ready, and
 * its helper's verdict follows in a moment. Killed servers close their
 * listening sockets before anything else of them is gone.
 */
static bool desktop_answers(int runtime_fd, const struct helper_record *rec) {
        char x[64];

        if (rec->display < 0)
                return true;
        snprintf(x, sizeof x, "@/tmp/.X11-unix/X%d", rec->display);
        if (!socket_listens(AT_FDCWD, x) && !socket_listens(AT_FDCWD, x + 1))
                return false;
        return faccessat(runtime_fd, "bus", F_OK, AT_SYMLINK_NOFOLLOW) < 0 || socket_listens(runtime_fd, "bus");
}

enum helper_phase helper_phase_at(int runtime_fd, struct helper_record *rec) {
        if (helper_record_read_at(runtime_fd, rec) >= 0 && helper_alive(runtime_fd, rec) > 0)
                return faccessat(runtime_fd, "env", F_OK, AT_SYMLINK_NOFOLLOW) == 0 && desktop_answers(runtime_fd, rec)
                               ? HELPER_READY
                               : HELPER_STARTING;
        helper_record_done(rec);
        /* A helper holds its lock from before it records itself (it reaps
         * what its predecessor left first) until it is gone. */
        return helper_lock_held(runtime_fd) > 0 ? HELPER_STARTING : HELPER_NONE;
}

/* A pidfd on the helper the record names, verified after it pins the process. */
static int pin_helper(const struct helper_record *rec) {
        _cleanup_close_ int fd = (int) syscall(SYS_pidfd_open, rec->pid, 0);
        unsigned long long st;

        if (fd < 0)
                return negative_errno();
        if (pid_starttime(rec->pid, &st) < 0 || st != rec->starttime)
                return -ESRCH;
        return TAKE_FD(fd);
}

int standalone_wait_starting_with(const char *profile, const struct bd_paths *p, int runtime_fd, int *lock,
                                  unsigned long long deadline, unsigned timeout_sec, bool progress, int inotify_fd,
                                  char **ret_error) {
        _cleanup_close_ int ifd = inotify_fd, pidfd = -EBADF;
        unsigned long long t0 = now_usec();
        pid_t pinned = 0;
        bool told = false;

        /* Watch first, then look: nothing that happens after the look is missed. */
        if (ifd >= 0 &&
            inotify_add_watch(ifd, p->runtime, IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE) < 0) {
                /* ENOSPC (fs.inotify.max_user_watches used up) is the same
                 * scale problem as the instances: wait the other way. */
                if (errno != ENOSPC && errno != ENOMEM) {
                        *ret_error = strdup_printf("Cannot watch %s: %s", p->runtime, strerror(errno));
                        return negative_errno();
                }
                ifd = safe_close(ifd);
        }
        /* Waiting here must not hold up a stop (which then ends this wait)
         * or other starts (which wait alongside). */
        *lock = safe_close(*lock);

        for (;;) {
                struct helper_record rec = {};
                struct pollfd pfd[2] = { { .fd = ifd, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
                enum helper_phase phase = helper_phase_at(runtime_fd, &rec);
                unsigned long long now, wait_usec;
                char buf[4096];
                int r;

                if (phase == HELPER_STARTING && rec.pid > 0 && rec.pid != pinned) {
                        safe_close(pidfd);
                        pidfd = pin_helper(&rec);
                        pinned = pidfd >= 0 ? rec.pid : 0;
                        pfd[1].fd = pidfd;
                        if (pidfd == -ESRCH) {
                                helper_record_done(&rec);
                                continue; /* gone meanwhile: look again */
                        }
                        /* Other errors (no fd left): the lock closing still
                         * tells, through the watch or the next re-read. */
                }
                if (progress && !told && phase == HELPER_STARTING) {
                        if (rec.pid > 0)
                                fprintf(stderr, "Desktop %s is already starting (botdesk-helper pid %d); waiting for it.\n",
                                        profile, (int) rec.pid);
                        else
                                fprintf(stderr, "Desktop %s is already starting; waiting for it.\n", profile);
                        told = true;
                }
                helper_record_done(&rec);
                if (phase == HELPER_READY)
                        return 0;
                if (phase == HELPER_NONE) {
                        /* The helper reports every failure, a stop included,
                         * in last-error before it exits. Nothing there: it
                         * was killed. */
                        *ret_error = standalone_last_error(runtime_fd);
                        return *ret_error ? -EIO : -ESRCH;
                }
                now = now_usec();
                if (now >= deadline) {
                        /* Not ours to stop: its own start_timeout ends it. */
                        *ret_error = strdup_printf("Desktop %s was still starting after %u s (waited %.1f s for the "
                                                   "start already under way); botdesk stop %s ends it",
                                                   profile, timeout_sec, (double) (now - t0) / 1e6, profile);
                        return -ETIMEDOUT;
                }
                wait_usec = deadline - now;
                if (ifd < 0 && wait_usec > REREAD_USEC)
                        wait_usec = REREAD_USEC;
                /* poll() skips an entry whose fd is negative. */
                r = poll(pfd, 2, (int) ((wait_usec + 999) / 1000));
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                while (ifd >= 0 && read(ifd, buf, sizeof buf) > 0)
                        ;
                if (pidfd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP))) {
                        /* Exited: the lock closes with it; look again. */
                        pidfd = safe_close(pidfd);
                        pinned = 0;
                }
        }
}

int standalone_wait_starting(const char *profile, const struct bd_paths *p, int runtime_fd, int *lock,
                             unsigned long long deadline, unsigned timeout_sec, bool progress, char **ret_error) {
        int ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

        return standalone_wait_starting_with(profile, p, runtime_fd, lock, deadline, timeout_sec, progress,
                                             ifd < 0 ? negative_errno() : ifd, ret_error);
}
