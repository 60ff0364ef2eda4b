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
 * signals no pid 1 that it listens: the helper gives it -displayfd.) A SIGTERM is passed on to the
 * whole namespace, and the init exits once nothing is left in it. When the
 * helper closes fd 3 the namespace is killed: it must not outlive the
 * helper that owns it (with cgroups the helper's teardown kills it too).
 *
 * No sleeping, no polling: one poll() on the request socket and a signalfd.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns-spawn.h"
#include "spawn.h"
#include "util.h"

static bool terminating;

static void report(const struct ns_event *ev) {
        int r = ns_event_send(NS_INIT_EVENT_FD, ev);

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

static void serve_request(void) {
        _cleanup_(ns_spawn_request_done) struct ns_spawn_request req = {};
        _cleanup_close_ int pidfd = -EBADF;
        pid_t pid = 0;
        int r;

        r = ns_spawn_request_recv(NS_INIT_REQUEST_FD, &req);
        if (r == -EPIPE) {
                /* The helper has gone: so does its desktop. */
                (void) kill(-1, SIGKILL);
                _exit(0);
        }
        if (r == -EAGAIN)
                return;
        if (r >= 0) {
                r = spawn(&req.opts, &pid);
                if (r >= 0) {
                        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
                        if (pidfd < 0)
                                pidfd = -EBADF; /* before Linux 5.3: the pid alone */
                }
        } else
                fprintf(stderr, "botdesk-ns-init: a request the helper sent is not one: %s\n", strerror(-r));
        r = ns_spawn_answer_send(NS_INIT_REQUEST_FD, r < 0 ? r : 0, pid, pidfd);
        if (r < 0)
                fprintf(stderr, "botdesk-ns-init: cannot answer the helper: %s\n", strerror(-r));
}

static void on_signal(int sigfd) {
        struct signalfd_siginfo ssi;

        if (read(sigfd, &ssi, sizeof ssi) != sizeof ssi)
                return;
        switch (ssi.ssi_signo) {
        case SIGCHLD:
                break;
        default: /* SIGTERM, SIGINT, SIGHUP: the namespace ends */
                terminating = true;
                (void) kill(-1, SIGTERM);
                break;
        }
        if (reap_all() && terminating)
                _exit(0);
}

static bool is_socket(int fd) {
        struct stat st;

        return fstat(fd, &st) >= 0 && S_ISSOCK(st.st_mode);
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
        if (getpid() != 1 || !is_socket(NS_INIT_REQUEST_FD) || !is_socket(NS_INIT_EVENT_FD)) {
                fprintf(stderr, "botdesk-ns-init: not the pid 1 of a namespace with the helper's sockets on fds 3 "
                                "and 4; botdesk-helper starts it.\n");
                return 2;
        }

        sigemptyset(&mask);
        for (size_t i = 0; i < ELEMENTSOF(handled); i++)
                sigaddset(&mask, handled[i]);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
            (sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
                fprintf(stderr, "botdesk-ns-init: cannot set up its signals: %m\n");
                return 1;
        }

        for (;;) {
                struct pollfd p[] = {
                        { .fd = NS_INIT_REQUEST_FD, .events = POLLIN },
                        { .fd = sigfd, .events = POLLIN },
                };

                if (poll(p, ELEMENTSOF(p), -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        fprintf(stderr, "botdesk-ns-init: poll: %m\n");
                        (void) kill(-1, SIGKILL);
                        return 1;
                }
                if (p[1].revents)
                        on_signal(sigfd);
                if (p[0].revents)
                        serve_request();
        }
}
