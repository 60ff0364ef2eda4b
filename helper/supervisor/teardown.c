/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adopt.h"
#include "cgroup.h"
#include "cgroup-wait.h"
#include "exec-record.h"
#include "record.h"
#include "hibernate.h"
#include "ns-spawn.h"
#include "snapshot.h"
#include "socket-util.h"
#include "token-kill.h"
#include "child.h"
#include "log.h"
#include "teardown.h"
#include "published-env.h"
#include "util.h"

static void kill_children_fallback(struct supervisor *s) {
        struct child *all[ELEMENTSOF(s->components) + 2];
        /* Its tree dies with the init; what carries its token elsewhere is a fork's (token-kill.h). */
        bool in_namespaces = s->ns_init_pid > 0;
        size_t n;

        n = child_all(s, all);
        /* A checkpointable desktop's namespaces end with their init: its reaping
         * comes once the kernel killed (and it reaped) everything in them. */
        if (s->ns_init_pid > 0 && kill(s->ns_init_pid, SIGKILL) >= 0 && waitpid(s->ns_init_pid, NULL, 0) >= 0) {
                s->ns_init_pid = 0;
                for (size_t i = 0; i < n; i++)
                        if (all[i]->ns_pid > 0)
                                all[i]->pid = all[i]->ns_pid = 0;
        }
        /* Each child leads its own process group. */
        for (size_t i = 0; i < n; i++)
                if (all[i]->pid > 0)
                        (void) kill(-all[i]->pid, SIGKILL);
        /* What botdesk exec ran, by its pid: it may have dropped our token. */
        (void) exec_record_kill_all(s->runtime_fd);
        /* What the bus activated, or what a launcher double-forked, left its
         * group: it still carries our token (of a desktop in namespaces, only
         * what runs in ours: what botdesk exec ran). */
        (void) kill_by_token(s->token, getuid(), in_namespaces);
        /* SIGKILL is delivered asynchronously: wait for our own children so
         * that none outlives us, not even as a zombie. */
        for (size_t i = 0; i < n; i++)
                if (all[i]->pid > 0 && waitpid(all[i]->pid, NULL, 0) >= 0)
                        all[i]->pid = 0;
}

/* A checkpointable desktop's init leaves the cgroup when it begins to exit, then waits in the kernel for
 * everything in its namespace to die before it is a zombie: the cgroup's emptiness does not say it is
 * reapable. Waited for here (bounded), so that it never outlives us. */
static void reap_ns_init(struct supervisor *s) {
        _cleanup_close_ int pidfd = -EBADF;

        if (s->ns_init_pid <= 0)
                return;
        (void) kill(s->ns_init_pid, SIGKILL);
        pidfd = (int) syscall(SYS_pidfd_open, s->ns_init_pid, 0);
        if (pidfd >= 0 && fd_wait_until(pidfd, POLLIN, now_usec() + STOP_TIMEOUT_USEC) < 0)
                log_warning("The desktop's init (pid %d) did not end within %llu s.", (int) s->ns_init_pid,
                            STOP_TIMEOUT_USEC / 1000000ULL);
        if (waitpid(s->ns_init_pid, NULL, pidfd >= 0 ? WNOHANG : 0) == s->ns_init_pid)
                s->ns_init_pid = 0;
}

static void reap_all(void) {
        /* Everything is SIGKILLed by now; collect the zombies (ours, and the
         * orphans the subreaper adopted) without waiting on anything alive. */
        for (;;) {
                siginfo_t si = {};
                if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
                        break;
        }
}

void remove_x_leftovers(struct supervisor *s) {
        char path[64], *text = NULL;
        unsigned long long pid;

        if (s->display < 0 || s->xserver.argv == NULL)
                return;
        /* Only what our server created: its lock names its pid. */
        snprintf(path, sizeof path, "/tmp/.X%d-lock", s->display);
        if (read_full_file(path, &text, NULL, 64) >= 0) {
                char *line = text + strspn(text, " ");
                line[strcspn(line, "\n")] = 0;
                if (parse_uint(line, INT32_MAX, &pid) >= 0 && (pid_t) pid == s->xserver_pid_last) {
                        (void) unlink(path);
                        snprintf(path, sizeof path, "/tmp/.X11-unix/X%d", s->display);
                        (void) unlink(path);
                }
        }
        free(text);
}

void write_last_error(struct supervisor *s, const char *msg) {
        _cleanup_free_ char *line = strdup_printf("%s\n", msg);

        if (line)
                (void) write_file_atomic_at(s->runtime_fd, "last-error", line, strlen(line), 0600);
}

void teardown(struct supervisor *s, bool forget, const char *reason) {
        s->state = DESKTOP_STOPPING;
        (void) unlinkat(s->runtime_fd, "env", 0);
        /* A start that failed is no longer one: the next may go while this one is torn down. */
        start_queue_leave(&s->ticket);
        s->idle_source = sd_event_source_disable_unref(s->idle_source);
        s->extend_source = sd_event_source_disable_unref(s->extend_source);
        s->x_source = sd_event_source_disable_unref(s->x_source);
        handback_done(&s->handback);
        viewer_gone_done(&s->viewer_gone);
        clipboard_owner_done(&s->clipboard);
        journal_frames_done(&s->frames);
        x11_disconnect(&s->x);

        if (s->cg_base) {
                const char *groups[] = { s->cg_apps, s->cg_session, s->cg_x11 };
                for (size_t i = 0; i < ELEMENTSOF(groups); i++)
                        (void) cgroup_kill(groups[i]);
                /* Moving ourselves out costs the kernel an RCU grace period
                 * (about 9 ms here): spent while the killed processes exit,
                 * not after. */
                if (s->own_base)
                        s->left_base = cgroup_attach(s->cg_parent, 0) >= 0;
                for (size_t i = 0; i < ELEMENTSOF(groups); i++) {
                        int r = cgroup_wait_empty(groups[i], STOP_TIMEOUT_USEC);
                        if (r < 0)
                                log_error_errno(r, "Processes of %s did not go away: %m", groups[i]);
                }
        } else
                kill_children_fallback(s);
        reap_ns_init(s);
        reap_all();
        remove_x_leftovers(s);

        (void) unlinkat(s->runtime_fd, RFB_SOCKET, 0);
        (void) unlinkat(s->runtime_fd, "bus", 0);
        (void) unlinkat(s->runtime_fd, PUBLISHED_TREE_ENV_FILE, 0);
        (void) unlinkat(s->runtime_fd, NS_INIT_SOCKET, 0);
        hibernate_done(s);
        (void) unlinkat(s->runtime_fd, HIBERNATE_SOCKET, 0);
        (void) unlinkat(s->runtime_fd, "activity", 0);
        (void) unlinkat(s->runtime_fd, "Xauthority", 0);
        (void) unlinkat(s->runtime_fd, HELPER_RECORD_FILE, 0);
        if (forget) {
                /* A failed start forgets its number: the next one picks afresh. */
                (void) unlinkat(s->runtime_fd, "display", 0);
                if (reason)
                        write_last_error(s, reason);
        } else
                (void) unlinkat(s->runtime_fd, "last-error", 0);

        if (s->cg_base && s->own_base) {
                /* Out of our own sub-tree so it can be removed (a write
                 * to cgroup.procs costs the grace period even when we are
                 * there already). */
                if (!s->left_base)
                        (void) cgroup_attach(s->cg_parent, 0);
                (void) cgroup_remove(s->cg_base);
        }
        adopt_remove_spare_paths(s, forget);
}
