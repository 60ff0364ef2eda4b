/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel reports a change of "populated" in cgroup.events as IN_MODIFY,
 * so one inotify watch is the natural wait for an empty cgroup. But inotify
 * instances are a per-user resource (fs.inotify.max_user_instances, 128 by
 * default) that running desktops use up: every Xfce desktop holds several
 * of its own. A stop must not depend on what scale exhausts, so without
 * inotify the wait pins each remaining process with a pidfd and reads
 * cgroup.events again whenever one of them exits.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/syscall.h>

#include "cgroup.h"
#include "cgroup-wait.h"
#include "util.h"

/* Processes watched at once; when more remain, the next round takes them. */
#define PIDFDS_MAX 256

static int populated(const char *cg) {
        int r = cgroup_populated(cg);

        return r == -ENOENT ? 0 : r;
}

static int ms_until(unsigned long long deadline) {
        unsigned long long now = now_usec();

        return now >= deadline ? 0 : (int) ((deadline - now + 999) / 1000);
}

static int wait_inotify(const char *cg, unsigned long long deadline, int ifd) {
        for (;;) {
                struct pollfd pfd = { .fd = ifd, .events = POLLIN };
                char buf[4096];
                int r;

                r = populated(cg);
                if (r <= 0)
                        return r;
                if (now_usec() >= deadline)
                        return -ETIMEDOUT;
                r = poll(&pfd, 1, ms_until(deadline));
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                while (read(ifd, buf, sizeof buf) > 0)
                        ;
                if (r > 0 && populated(cg) > 0)
                        /* Still populated: on kernels without cgroup.kill new
                         * forks may have escaped the last walk. */
                        (void) cgroup_kill(cg);
        }
}

static bool listed(const pid_t *pids, size_t n, pid_t pid) {
        for (size_t i = 0; i < n; i++)
                if (pids[i] == pid)
                        return true;
        return false;
}

struct pinned {
        int fd[PIDFDS_MAX];
        pid_t pid[PIDFDS_MAX];
        size_t n;
        int error;      /* the first error of a child cgroup's pinning */
};

static void pinned_release(struct pinned *p) {
        for (size_t i = 0; i < p->n; i++)
                safe_close(p->fd[i]);
        p->n = 0;
}

/*
 * Pin each process of cg and its descendants with a pidfd. A pid is kept
 * only when cgroup.procs still lists it once the pidfd holds it: a pid that
 * exited and was recycled in between belongs to someone else. Returns the
 * first error of pidfd_open other than "gone", or 0.
 */
static int pin_processes(const char *cg, struct pinned *p);

/* For cgroup_for_each_child: the child's processes too, until the table is full. */
static int pin_child(const char *sub, void *userdata) {
        struct pinned *p = userdata;
        int r = pin_processes(sub, p);

        if (r == -ENOMEM)
                return r;
        if (r < 0 && p->error == 0)
                p->error = r;
        return p->n >= PIDFDS_MAX;
}

static int pin_processes(const char *cg, struct pinned *p) {
        _cleanup_free_ pid_t *before = NULL, *after = NULL;
        size_t first = p->n, n_before = 0, n_after = 0;
        int ret = 0, r;

        r = cgroup_procs_read(cg, &before, &n_before);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (size_t i = 0; i < n_before && p->n < PIDFDS_MAX; i++) {
                int fd = (int) syscall(SYS_pidfd_open, before[i], 0);

                if (fd >= 0) {
                        p->fd[p->n] = fd;
                        p->pid[p->n++] = before[i];
                } else if (errno != ESRCH && ret == 0)
                        ret = negative_errno();
        }
        if (p->n > first) {
                r = cgroup_procs_read(cg, &after, &n_after);
                for (size_t i = first; i < p->n;) {
                        if (r >= 0 && listed(after, n_after, p->pid[i])) {
                                i++;
                                continue;
                        }
                        safe_close(p->fd[i]);
                        p->n--;
                        p->fd[i] = p->fd[p->n];
                        p->pid[i] = p->pid[p->n];
                }
        }

        if (p->n < PIDFDS_MAX && cgroup_for_each_child(cg, pin_child, p) == -ENOMEM)
                return -ENOMEM;
        return ret < 0 ? ret : p->error;
}

static int wait_pidfds(const char *cg, unsigned long long deadline) {
        unsigned empty_rounds = 0;

        for (;;) {
                struct pollfd pfd[PIDFDS_MAX];
                struct pinned pins = {};
                int r, pin_error;

                r = populated(cg);
                if (r <= 0)
                        return r;
                if (now_usec() >= deadline)
                        return -ETIMEDOUT;
                pin_error = pin_processes(cg, &pins);
                if (pin_error == -ENOMEM) {
                        pinned_release(&pins);
                        return pin_error;
                }
                if (pins.n == 0) {
                        int wait_ms;

                        if (pin_error < 0)
                                /* Populated, and not one process could be pinned. */
                                return pin_error;
                        /* Populated while no process is listed: the kernel
                         * updates the two apart, for the moment a process
                         * takes to leave. A bounded re-read, growing from
                         * 1 ms, is all that is left to wait on. */
                        wait_ms = 1 << (empty_rounds < 7 ? empty_rounds : 7);
                        empty_rounds++;
                        if (wait_ms > ms_until(deadline))
                                wait_ms = ms_until(deadline);
                        (void) poll(NULL, 0, wait_ms);
                        continue;
                }
                empty_rounds = 0;
                for (size_t i = 0; i < pins.n; i++)
                        pfd[i] = (struct pollfd) { .fd = pins.fd[i], .events = POLLIN };
                r = poll(pfd, pins.n, ms_until(deadline));
                if (r < 0 && errno != EINTR) {
                        r = negative_errno();
                        pinned_release(&pins);
                        return r;
                }
                pinned_release(&pins);
                if (r > 0 && populated(cg) > 0)
                        (void) cgroup_kill(cg);
        }
}

int cgroup_wait_empty_with(const char *cg, unsigned long long timeout_usec, int inotify_fd) {
        _cleanup_close_ int ifd = inotify_fd;
        _cleanup_free_ char *events = strdup_printf("%s/cgroup.events", cg);
        unsigned long long deadline = now_usec() + timeout_usec;
        int r;

        if (!events)
                return -ENOMEM;
        r = populated(cg);
        if (r <= 0)
                return r;
        if (ifd >= 0) {
                if (inotify_add_watch(ifd, events, IN_MODIFY) >= 0)
                        return wait_inotify(cg, deadline, ifd);
                if (errno == ENOENT)
                        return 0;
                /* ENOSPC (fs.inotify.max_user_watches used up) is the same
                 * scale problem as the instances: wait the other way. */
        }
        return wait_pidfds(cg, deadline);
}

int cgroup_wait_empty(const char *cg, unsigned long long timeout_usec) {
        int ifd, r;

        /* Usually empty already after a kill: closing an inotify fd that
         * holds a watch waits for an SRCU grace period (16 ms measured). */
        r = populated(cg);
        if (r <= 0)
                return r;
        ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        return cgroup_wait_empty_with(cg, timeout_usec, ifd < 0 ? negative_errno() : ifd);
}
