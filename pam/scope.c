/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Emptying a logind session's scope at close, as root or as its owner. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/pidfd.h>
#include <sys/stat.h>


#include "cgroup.h"
#include "pid-signal.h"
#include "pam-botdesk.h"
#include "util.h"

/* The scope's cgroup path below the v2 mount ("/user.slice/user-UID.slice/session-ID.scope"). */
static char *scope_path(const char *id, uid_t uid) {
        return strdup_printf("/user.slice/user-%u.slice/session-%s.scope", (unsigned) uid, id);
}

struct pid_list {
        pid_t *pids;
        size_t n;
};

/* Append every pid of cg and below, never ourselves, to l. */
static int cgroup_pids(const char *cg, void *userdata) {
        struct pid_list *l = userdata;
        size_t first = l->n;
        int r;

        r = cgroup_procs_read(cg, &l->pids, &l->n);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (size_t i = first; i < l->n; i++)
                if (l->pids[i] == getpid()) {
                        l->pids[i] = l->pids[--l->n];
                        break;
                }
        r = cgroup_for_each_child(cg, cgroup_pids, l);
        return r == -ENOENT ? 0 : r;
}

/* Signal every process of cg and below, never ourselves. Returns how many were signalled. */
static int cgroup_signal_tree(const char *cg, int sig) {
        struct pid_list l = {};
        int k = 0, r;

        r = cgroup_pids(cg, &l);
        /* Each still in the scope once pinned by a pidfd: the pid was read
         * from cgroup.procs and may belong to someone else by now. */
        for (size_t i = 0; i < l.n; i++)
                if (pid_signal_checked(l.pids[i], sig, pid_check_in_cgroup, (void *) cg) > 0)
                        k++;
        free(l.pids);
        return r < 0 ? r : k;
}

/*
 * Wait until every process of cg but us has exited, up to timeout_usec. For
 * when we are inside cg ourselves, so that cgroup.events never says empty:
 * one pidfd per process (at most SCOPE_WAIT_PIDFDS_MAX at a time: the PAM
 * caller's fd limit is not ours to exhaust), and a fresh look at the cgroup
 * each time one exits. 0 when none is left, -ETIMEDOUT.
 */
int scope_wait_others(const char *cg, unsigned long long timeout_usec) {
        unsigned long long deadline = now_usec() + timeout_usec;

        for (;;) {
                _cleanup_free_ pid_t *pids = NULL;
                struct pollfd pfd[SCOPE_WAIT_PIDFDS_MAX];
                struct pid_list l = {};
                size_t n, k = 0, alive = 0;
                unsigned long long now;
                int r;

                r = cgroup_pids(cg, &l);
                pids = l.pids;
                n = l.n;
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n; i++) {
                        int fd;

                        /* Past the watched ones: alive until a later look says otherwise. */
                        if (k == SCOPE_WAIT_PIDFDS_MAX) {
                                alive++;
                                continue;
                        }
                        fd = pidfd_open(pids[i], 0);
                        if (fd >= 0)
                                pfd[k++] = (struct pollfd) { .fd = fd, .events = POLLIN };
                        else if (errno != ESRCH)
                                alive++; /* cannot watch it: count it as alive */
                }
                if (k == 0 && alive == 0)
                        return 0;

                now = now_usec();
                r = now < deadline ? poll(pfd, k, (int) ((deadline - now + 999) / 1000)) : 0;
                for (size_t i = 0; i < k; i++) {
                        if (!(pfd[i].revents & POLLIN))
                                alive++;
                        safe_close(pfd[i].fd);
                }
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                /* Everyone we saw has exited (even if still listed as a zombie). */
                if (alive == 0)
                        return 0;
                if (now_usec() >= deadline)
                        return -ETIMEDOUT;
        }
}

/*
 * SIGKILL to the whole scope at once (root only). Not the library's
 * cgroup_kill(), which kills only cgroups named as botdesk's own: this scope
 * is ours to kill because logind and the PAM handle say whose session it is.
 */
static int scope_kill(const char *cg) {
        _cleanup_free_ char *p = strdup_printf("%s/cgroup.kill", cg);
        _cleanup_close_ int fd = -EBADF;

        if (!p)
                return -ENOMEM;
        fd = open(p, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (write(fd, "1", 1) != 1)
                return negative_errno();
        return 0;
}

/*
 * Empty the scope of logind session id (owned by uid). graceful: SIGTERM and
 * up to GRACE_USEC to exit first. Then SIGKILL through the scope's
 * cgroup.kill (root only), else logind's KillSession (root or the owner),
 * else a signal to each process (the owner), and wait until the cgroup is
 * empty. Returns 0 when empty (or nothing is left to watch), -errno.
 * (cgroup_wait_empty() may also try cgroup_kill() on it, which the library
 * refuses for a scope: harmless, the wait stays a wait.)
 */
int session_reap(pam_handle_t *pamh, const struct args *a, const char *id, uid_t uid, bool graceful) {
        _cleanup_free_ char *mount = NULL, *rel = NULL, *cg = NULL, *self = NULL;
        struct stat st;
        bool inside;
        int r;

        if (!session_id_valid(id))
                return -EINVAL;
        rel = scope_path(id, uid);
        if (!rel)
                return -ENOMEM;
        r = cgroup_v2_mount(&mount);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                cg = strdup_printf("%s%s", mount, rel);
                if (!cg)
                        return -ENOMEM;
                if (stat(cg, &st) < 0 || !S_ISDIR(st.st_mode)) {
                        log_debug_pam(a, pamh, "No cgroup %s for session %s; relying on logind.", cg, id);
                        free(cg);
                        cg = NULL;
                }
        } else
                log_debug_pam(a, pamh, "No cgroup v2 hierarchy; relying on logind to kill session %s.", id);

        /* A PAM application that pam_systemd moved into the scope itself (login,
         * sshd) must not kill itself: then only the others are signalled. */
        inside = cgroup_path_of(0, &self) >= 0 &&
                 startswith(self, rel) && (self[strlen(rel)] == '\0' || self[strlen(rel)] == '/');
        if (inside) {
                /* systemd's sd-pam, which runs close, lives in the scope too. */
                log_debug_pam(a, pamh, "Running inside session %s's scope: signalling its other processes.", id);
                if (!cg)
                        return 0;
                if (graceful) {
                        (void) cgroup_signal_tree(cg, SIGTERM);
                        if (scope_wait_others(cg, GRACE_USEC) >= 0)
                                return 0;
                }
                /* A pid walk races with forks: a few rounds. */
                for (unsigned round = 0; round < 3; round++) {
                        (void) cgroup_signal_tree(cg, SIGKILL);
                        r = scope_wait_others(cg, KILL_WAIT_USEC / 3);
                        if (r >= 0)
                                return 0;
                }
                return log_errno_pam(pamh, LOG_WARNING, r, "Session %s still has processes in %s: %m", id, cg);
        }

        if (graceful) {
                log_debug_pam(a, pamh, "Sending SIGTERM to session %s.", id);
                if (logind_kill_session(pamh, a, id, SIGTERM) < 0 && cg)
                        (void) cgroup_signal_tree(cg, SIGTERM);
                /* Without a cgroup to watch, logind's SIGKILL below ends it at once. */
                if (cg && cgroup_wait_empty(cg, GRACE_USEC) >= 0)
                        return 0;
        }

        log_debug_pam(a, pamh, "Sending SIGKILL to session %s.", id);
        r = cg ? scope_kill(cg) : -ENOENT;
        if (r < 0 && cg) {
                errno = -r;
                log_debug_pam(a, pamh, "Cannot write %s/cgroup.kill (%m); asking logind.", cg);
        }
        if (r < 0 && logind_kill_session(pamh, a, id, SIGKILL) < 0 && cg)
                (void) cgroup_signal_tree(cg, SIGKILL);
        if (!cg)
                return 0;
        r = cgroup_wait_empty(cg, KILL_WAIT_USEC);
        if (r == -ETIMEDOUT) {
                /* Unprivileged and without logind: the pid walk races with forks; once more. */
                (void) cgroup_signal_tree(cg, SIGKILL);
                r = cgroup_wait_empty(cg, KILL_WAIT_USEC);
        }
        if (r < 0)
                return log_errno_pam(pamh, LOG_WARNING, r, "Session %s still has processes in %s: %m", id, cg);
        return 0;
}
