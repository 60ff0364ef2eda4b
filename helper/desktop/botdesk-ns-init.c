/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-ns-init: the pid 1 of a checkpointable desktop's PID and IPC
 * namespaces ([session] checkpointable = yes). botdesk-helper starts it with
 * clone(CLONE_NEWPID | CLONE_NEWIPC) and then has every child of the desktop
 * started by it (ns-spawn.h), so that the whole tree descends from one
 * process in namespaces of its own: what a checkpoint of the desktop dumps.
 *
 * It starts what fd 3 asks for, reaps every process of the namespace
 * (orphans come to pid 1) and reports each end on fd 4. (An X server
 * signals no pid 1 that it listens: the helper gives it -displayfd.) A
 * SIGTERM is passed on to the whole namespace, and the init exits once
 * nothing is left in it. When the helper closes fd 3 the namespace is
 * killed: it must not outlive the helper that owns it (with cgroups the
 * helper's teardown kills it too), unless the helper detached it first for
 * a checkpoint; then it waits on fd 5 for the next helper (the same one, or
 * the one that restored it), keeping the ends it reaps meanwhile.
 *
 * No sleeping, no polling: one poll() on its sockets and a signalfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns-spawn.h"
#include "socket-util.h"
#include "spawn.h"
#include "util.h"

/* Ends reaped while detached, reported to the next helper. A desktop has
 * about twenty processes; beyond this many the oldest are dropped (the
 * helper then finds its child gone in /proc). */
#define PENDING_MAX 64

static bool terminating, attached = true;
static int listen_fd = -EBADF;
static struct ns_event pending[PENDING_MAX];
static size_t n_pending;

static void report(const struct ns_event *ev) {
        int r;

        if (!attached) {
                if (n_pending == PENDING_MAX)
                        memmove(pending, pending + 1, --n_pending * sizeof *pending);
                pending[n_pending++] = *ev;
                return;
        }
        r = ns_event_send(NS_INIT_EVENT_FD, ev);
        if (r < 0 && r != -EPIPE)
                fprintf(stderr, "botdesk-ns-init: cannot report to the helper: %s\n", strerror(-r));
}

/* Every child that ended, orphans too; true when none is left. */
static bool reap_all(void) {
        for (;;) {
                siginfo_t si = {};

                if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0)
                        return errno == ECHILD;
                if (si.si_pid == 0)
                        return false;
                report(&(struct ns_event) { .type = NS_EVENT_EXITED, .pid = si.si_pid, .code = si.si_code,
                                            .status = si.si_status });
        }
}

static void detach(void) {
        int r = ns_detach_answer_send(NS_INIT_REQUEST_FD);

        if (r < 0)
                fprintf(stderr, "botdesk-ns-init: cannot answer the detach: %s\n", strerror(-r));
        (void) close(NS_INIT_REQUEST_FD);
        (void) close(NS_INIT_EVENT_FD);
        attached = false;
}

static void serve_request(void) {
        _cleanup_(ns_spawn_request_done) struct ns_spawn_request req = {};
        _cleanup_close_ int pidfd = -EBADF;
        pid_t pid = 0;
        int r;

        r = ns_spawn_request_recv(NS_INIT_REQUEST_FD, &req);
        if (r == -EPIPE) {
                /* The helper has gone without a detach: so does its desktop. */
                (void) kill(-1, SIGKILL);
                _exit(0);
        }
        if (r == -EAGAIN)
                return;
        if (r == NS_REQUEST_DETACH) {
                if (listen_fd >= 0)
                        return detach();
                r = -EOPNOTSUPP; /* no fd 5: no helper could come back */
        } else if (r == NS_REQUEST_SPAWN) {
                r = spawn(&req.opts, &pid);
                if (r >= 0) {
                        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
                        if (pidfd < 0)
                                pidfd = -EBADF; /* before Linux 5.3: the pid alone */
                }
        } else if (r == -EBADMSG)
                fprintf(stderr, "botdesk-ns-init: a request the helper sent is not one: %s\n", strerror(-r));
        else {
                /* The socket itself is broken: no helper can reach us any more. */
                fprintf(stderr, "botdesk-ns-init: cannot read the helper's requests: %s\n", strerror(-r));
                (void) kill(-1, SIGKILL);
                _exit(1);
        }
        r = ns_spawn_answer_send(NS_INIT_REQUEST_FD, r < 0 ? r : 0, pid, pidfd);
        if (r < 0)
                fprintf(stderr, "botdesk-ns-init: cannot answer the helper: %s\n", strerror(-r));
}

/* fd moved above 3, 4 and 5, where the next dup2() cannot land on it. */
static int fd_above_targets(int fd) {
        int moved;

        if (fd < 0 || fd > NS_INIT_LISTEN_FD)
                return fd;
        moved = fcntl(fd, F_DUPFD_CLOEXEC, NS_INIT_LISTEN_FD + 1);
        safe_close(fd);
        return moved < 0 ? -errno : moved;
}

/* A helper connects to fd 5 and hands over its two sockets. */
static void serve_reattach(void) {
        _cleanup_close_ int conn = fd_above_targets(accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC));
        int request_fd = -EBADF, event_fd = -EBADF, r;

        if (conn < 0)
                return;
        r = fd_wait_until(conn, POLLIN, now_usec() + 5 * 1000000ULL);
        if (r >= 0)
                r = ns_reattach_recv(conn, &request_fd, &event_fd);
        if (r < 0) {
                fprintf(stderr, "botdesk-ns-init: a connection brought no helper's sockets: %s\n", strerror(-r));
                return;
        }
        request_fd = fd_above_targets(request_fd);
        event_fd = fd_above_targets(event_fd);
        if (request_fd < 0 || event_fd < 0 || dup2(request_fd, NS_INIT_REQUEST_FD) < 0 ||
            dup2(event_fd, NS_INIT_EVENT_FD) < 0) {
                fprintf(stderr, "botdesk-ns-init: cannot take the helper's sockets: %m\n");
                (void) close(NS_INIT_REQUEST_FD);
                (void) close(NS_INIT_EVENT_FD);
        } else {
                attached = true;
                for (size_t i = 0; i < n_pending; i++)
                        report(&pending[i]);
                n_pending = 0;
        }
        safe_close(request_fd);
        safe_close(event_fd);
}

static void on_signal(int sigfd) {
        struct signalfd_siginfo ssi;

        if (read(sigfd, &ssi, sizeof ssi) != sizeof ssi)
                return;
        if (ssi.ssi_signo != SIGCHLD) {
                /* SIGTERM, SIGINT, SIGHUP: the namespace ends */
                terminating = true;
                (void) kill(-1, SIGTERM);
        }
        if (reap_all() && terminating)
                _exit(0);
}

static bool is_socket(int fd, bool listening) {
        struct stat st;
        int v = 0;
        socklen_t l = sizeof v;

        if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
                return false;
        return !listening || (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l) >= 0 && v);
}

int main(int argc, char **argv) {
        static const int handled[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP };
        sigset_t mask;
        int sigfd;

        if (argc > 1) {
                bool help = streq(argv[1], "--help") || streq(argv[1], "-h");

                fprintf(help ? stdout : stderr,
                        "Usage: botdesk-ns-init\n"
                        "The pid 1 of a checkpointable desktop's namespaces; botdesk-helper starts it.\n");
                return help ? 0 : 2;
        }
        if (getpid() != 1 || !is_socket(NS_INIT_REQUEST_FD, false) || !is_socket(NS_INIT_EVENT_FD, false)) {
                fprintf(stderr, "botdesk-ns-init: not the pid 1 of a namespace with the helper's sockets on fds 3 "
                                "and 4; botdesk-helper starts it.\n");
                return 2;
        }
        if (is_socket(NS_INIT_LISTEN_FD, true))
                listen_fd = NS_INIT_LISTEN_FD;

        sigemptyset(&mask);
        for (size_t i = 0; i < ELEMENTSOF(handled); i++)
                sigaddset(&mask, handled[i]);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
            (sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
                fprintf(stderr, "botdesk-ns-init: cannot set up its signals: %m\n");
                return 1;
        }

        for (;;) {
                /* Attached: the helper's requests; detached: the next helper. */
                struct pollfd p[] = {
                        { .fd = sigfd, .events = POLLIN },
                        { .fd = attached ? NS_INIT_REQUEST_FD : listen_fd, .events = POLLIN },
                };

                if (poll(p, ELEMENTSOF(p), -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        fprintf(stderr, "botdesk-ns-init: poll: %m\n");
                        (void) kill(-1, SIGKILL);
                        return 1;
                }
                if (p[0].revents)
                        on_signal(sigfd);
                if (p[1].revents)
                        attached ? serve_request() : serve_reattach();
        }
}
