/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote-connect.h"
#include "spawn.h"
#include "socket-util.h"
#include "util.h"

static int fail(const char **ret_problem, const char *problem, int r) {
        *ret_problem = problem;
        return r;
}

static int connect_address(const struct remote_target *t, unsigned long long deadline, int *ret_fd,
                           const char **ret_problem) {
        _cleanup_close_ int fd = socket(t->address.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        int err = 0;
        socklen_t len = sizeof err;

        if (fd < 0)
                return fail(ret_problem, "cannot make a socket", negative_errno());
        if (connect(fd, (const struct sockaddr *) &t->address, t->address_len) < 0) {
                if (errno != EINPROGRESS)
                        return fail(ret_problem, "the server refused the connection", negative_errno());
                int r = fd_wait_until(fd, POLLOUT, deadline);

                if (r == -ETIMEDOUT)
                        return fail(ret_problem, "the server did not answer in time", r);
                if (r < 0)
                        return fail(ret_problem, "cannot wait for the connection", r);
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                        return fail(ret_problem, "cannot connect", negative_errno());
                if (err)
                        return fail(ret_problem, err == ECONNREFUSED ? "the server refused the connection"
                                                                     : "cannot connect to the server", -err);
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int connect_exec(const struct remote_target *t, int *ret_fd, pid_t *ret_pid, const char **ret_problem) {
        extern char **environ;
        char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) t->command, NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;
        int sv[2], r;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return fail(ret_problem, "cannot make a socket pair", negative_errno());
        o.argv = argv;
        o.envp = environ;
        o.stdin_fd = sv[1];
        o.stdout_fd = sv[1];
        o.new_session = true;
        o.pdeathsig = true;
        r = spawn(&o, ret_pid);
        safe_close(sv[1]);
        if (r < 0) {
                safe_close(sv[0]);
                return fail(ret_problem, "cannot run the command of remote = exec:", r);
        }
        if (fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0) {
                r = negative_errno();
                safe_close(sv[0]);
                remote_child_end(*ret_pid);
                return fail(ret_problem, "cannot set up the command's stdio", r);
        }
        *ret_fd = sv[0];
        return 0;
}

int remote_connect(const struct remote_target *t, unsigned long long deadline, int *ret_fd, pid_t *ret_pid,
                   const char **ret_problem) {
        *ret_pid = 0;
        if (t->kind == REMOTE_EXEC)
                return connect_exec(t, ret_fd, ret_pid, ret_problem);
        return connect_address(t, deadline, ret_fd, ret_problem);
}

void remote_child_end(pid_t pid) {
        _cleanup_close_ int pidfd = -EBADF;

        if (pid <= 0)
                return;
        /* Its whole session (sh and the ssh it runs), a second to go, then for certain. */
        pidfd = pidfd_open(pid, 0);
        (void) kill(-pid, SIGTERM);
        if (pidfd < 0 || poll(&(struct pollfd) { .fd = pidfd, .events = POLLIN }, 1, 1000) <= 0)
                (void) kill(-pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}
