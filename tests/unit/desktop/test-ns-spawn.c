/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The helper's requests to botdesk-ns-init and its answers (ns-spawn.h), and
 * the init itself as the pid 1 of new PID and IPC namespaces. */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "ns-spawn.h"
#include "procfs.h"
#include "socket-util.h"
#include "tap.h"
#include "util.h"

static bool same_inode(int a, int b) {
        struct stat sa, sb;

        return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The lowest free fd: an fd a failed receive left open would take it. */
static int lowest_free_fd(void) {
        int fd = fcntl(0, F_DUPFD_CLOEXEC, 0);

        safe_close(fd);
        return fd;
}

static bool pair(int sv[2]) {
        return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0;
}

static void test_request_round_trip(void) {
        char *argv[] = { (char *) "/bin/echo", (char *) "two words", (char *) "", NULL };
        char *envp[] = { (char *) "A=1", (char *) "PATH=/usr/bin:/bin", NULL };
        struct ns_spawn_request req = {};
        struct spawn_opts o = SPAWN_OPTS_INIT;
        int sv[2], p[2], q[2], keep;

        if (!tap_ok(pair(sv) && pipe2(p, O_CLOEXEC) == 0 && pipe2(q, O_CLOEXEC) == 0, "sockets and pipes"))
                return;
        keep = fcntl(p[1], F_DUPFD_CLOEXEC, 40);
        o.argv = argv;
        o.envp = envp;
        o.cwd = "/home/someone";
        o.cgroup = "/sys/fs/cgroup/x";
        o.new_session = true;
        o.ignore_sigusr1 = true;
        o.stdin_fd = p[0];
        o.stderr_fd = q[1];
        o.keep_fd = keep;
        o.pipe_fds[0] = q[0];
        o.pipe_fds[1] = p[1];
        TAP_EQ_INT(ns_spawn_request_send(sv[0], &o), 0, "a request is sent");
        TAP_EQ_INT(ns_spawn_request_recv(sv[1], &req), NS_REQUEST_SPAWN, "... and received");
        tap_ok(req.argv && strv_length(req.argv) == 3 && streq(req.argv[0], "/bin/echo") &&
                       streq(req.argv[1], "two words") && streq(req.argv[2], ""),
               "its argv, an empty word included");
        tap_ok(req.envp && strv_length(req.envp) == 2 && streq(req.envp[1], "PATH=/usr/bin:/bin"), "its environment");
        tap_ok(req.opts.cwd && streq(req.opts.cwd, "/home/someone") && req.opts.cgroup &&
                       streq(req.opts.cgroup, "/sys/fs/cgroup/x"),
               "its directory and cgroup");
        tap_ok(req.opts.new_session && req.opts.ignore_sigusr1 && !req.opts.pdeathsig && req.opts.clone_flags == 0,
               "its flags; no parent-death signal and no namespaces of its own");
        TAP_EQ_INT((int) req.n_fds, 5, "five fds ride along");
        tap_ok(same_inode(req.opts.stdin_fd, p[0]) && req.opts.stdout_fd < 0 && same_inode(req.opts.stderr_fd, q[1]),
               "stdin and stderr are the sender's, stdout is not passed");
        tap_ok(same_inode(req.opts.keep_fd, keep) && req.opts.keep_fd_target == keep,
               "the kept fd, to be passed on at the sender's number (%d)", keep);
        tap_ok(same_inode(req.opts.pipe_fds[0], q[0]) && same_inode(req.opts.pipe_fds[1], p[1]), "the pipe fds");
        ns_spawn_request_done(&req);

        /* Without cwd, cgroup and fds. */
        o = (struct spawn_opts) SPAWN_OPTS_INIT;
        o.argv = argv;
        o.envp = (char *[]) { NULL };
        TAP_EQ_INT(ns_spawn_request_send(sv[0], &o), 0, "a request with nothing optional is sent");
        TAP_EQ_INT(ns_spawn_request_recv(sv[1], &req), NS_REQUEST_SPAWN, "... and received");
        tap_ok(!req.opts.cwd && !req.opts.cgroup && req.n_fds == 0 && req.opts.keep_fd < 0 && req.opts.stdin_fd < 0 &&
                       strv_length(req.envp) == 0,
               "... with none of it");
        ns_spawn_request_done(&req);

        /* What cannot be sent. */
        o.argv = (char *[]) { NULL };
        TAP_EQ_INT(ns_spawn_request_send(sv[0], &o), -EINVAL, "no argv: -EINVAL");
        {
                _cleanup_free_ char *huge = malloc(NS_SPAWN_MESSAGE_MAX);
                char *big_env[] = { huge, NULL };

                memset(huge, 'x', NS_SPAWN_MESSAGE_MAX - 1);
                huge[NS_SPAWN_MESSAGE_MAX - 1] = 0;
                o.argv = argv;
                o.envp = big_env;
                TAP_EQ_INT(ns_spawn_request_send(sv[0], &o), -E2BIG, "an environment past the cap: -E2BIG");
        }
        safe_close(keep);
        for (int i = 0; i < 2; i++) {
                safe_close(sv[i]);
                safe_close(p[i]);
                safe_close(q[i]);
        }
}

struct raw_header {
        uint32_t magic, flags, fd_mask;
        int32_t keep_fd_target;
        uint32_t n_argv, n_env;
};

/* A hand-made request: header h, then body, with the fds. Its receiving must fail with want, leaving no fd open. */
static void refused(const char *what, struct raw_header h, const char *body, size_t body_len, const int *fds,
                    size_t n_fds, int want) {
        struct ns_spawn_request req = {};
        char buf[512];
        int sv[2], before;

        if (!pair(sv))
                return (void) tap_ok(false, "a socket pair for %s", what);
        memcpy(buf, &h, sizeof h);
        memcpy(buf + sizeof h, body, body_len);
        if (socket_send_message(sv[0], buf, sizeof h + body_len, fds, n_fds) < 0)
                return (void) tap_ok(false, "%s is sent", what);
        before = lowest_free_fd();
        TAP_EQ_INT(ns_spawn_request_recv(sv[1], &req), want, "%s: refused", what);
        tap_ok(lowest_free_fd() == before, "... nothing of it left open");
        safe_close(sv[0]);
        safe_close(sv[1]);
}

static void test_request_refused(void) {
        const uint32_t magic = 0x424e5331u;
        int p[2];

        if (!tap_ok(pipe2(p, O_CLOEXEC) == 0, "a pipe to pass"))
                return;
        refused("a wrong magic", (struct raw_header) { .magic = 1, .keep_fd_target = -1, .n_argv = 1 }, "a", 2, NULL, 0,
                -EBADMSG);
        refused("no argv", (struct raw_header) { .magic = magic, .keep_fd_target = -1 }, "", 0, NULL, 0, -EBADMSG);
        refused("an unknown flag", (struct raw_header) { .magic = magic, .flags = 1u << 20, .keep_fd_target = -1, .n_argv = 1 },
                "a", 2, NULL, 0, -EBADMSG);
        refused("stdin announced but no fd", (struct raw_header) { .magic = magic, .fd_mask = 1, .keep_fd_target = -1, .n_argv = 1 },
                "a", 2, NULL, 0, -EBADMSG);
        refused("an fd not announced", (struct raw_header) { .magic = magic, .keep_fd_target = -1, .n_argv = 1 }, "a", 2,
                p, 1, -EBADMSG);
        refused("one pipe fd of two", (struct raw_header) { .magic = magic, .fd_mask = 1u << 4, .keep_fd_target = -1, .n_argv = 1 },
                "a", 2, p, 1, -EBADMSG);
        refused("a kept fd without its number", (struct raw_header) { .magic = magic, .fd_mask = 1u << 3, .keep_fd_target = -1, .n_argv = 1 },
                "a", 2, p, 1, -EBADMSG);
        refused("a word without its end", (struct raw_header) { .magic = magic, .keep_fd_target = -1, .n_argv = 1 }, "abc", 3,
                NULL, 0, -EBADMSG);
        refused("more words than sent", (struct raw_header) { .magic = magic, .keep_fd_target = -1, .n_argv = 2, .n_env = 1 },
                "a\0b", 4, NULL, 0, -EBADMSG);
        refused("bytes after the last word", (struct raw_header) { .magic = magic, .keep_fd_target = -1, .n_argv = 1 }, "a\0b",
                4, NULL, 0, -EBADMSG);
        {
                struct ns_spawn_request req = {};
                int sv[2];

                if (pair(sv) && send(sv[0], "BNS1", 4, 0) == 4)
                        TAP_EQ_INT(ns_spawn_request_recv(sv[1], &req), -EBADMSG, "a header cut short: refused");
                safe_close(sv[0]);
                safe_close(sv[1]);
        }
        safe_close(p[0]);
        safe_close(p[1]);
}

static void test_answers_and_events(void) {
        struct ns_event ev = {};
        int sv[2], pidfd = -EBADF, p[2];
        pid_t pid = 0;

        if (!tap_ok(pair(sv) && pipe2(p, O_CLOEXEC) == 0, "a socket pair and a pipe"))
                return;
        TAP_EQ_INT(ns_spawn_answer_send(sv[1], -ENOENT, 0, -1), 0, "an error is answered");
        TAP_EQ_INT(ns_spawn_answer_recv(sv[0], &pid, &pidfd), -ENOENT, "... and read as the spawn's -errno");
        TAP_EQ_INT(ns_spawn_answer_send(sv[1], 0, 7, p[0]), 0, "a pid and an fd are answered");
        TAP_EQ_INT(ns_spawn_answer_recv(sv[0], &pid, &pidfd), 0, "... and read");
        tap_ok(pid == 7 && same_inode(pidfd, p[0]), "... pid 7 and the fd sent");
        safe_close(pidfd);
        TAP_EQ_INT((int) send(sv[1], "xx", 2, 0), 2, "a short answer is sent");
        TAP_EQ_INT(ns_spawn_answer_recv(sv[0], &pid, &pidfd), -EBADMSG, "... and refused");

        TAP_EQ_INT(ns_event_send(sv[1], &(struct ns_event) { .type = NS_EVENT_EXITED, .pid = 3, .code = CLD_KILLED,
                                                               .status = SIGKILL }),
                   0, "an exit is reported");
        TAP_EQ_INT(ns_event_recv(sv[0], &ev), 0, "... and read");
        tap_ok(ev.type == NS_EVENT_EXITED && ev.pid == 3 && ev.code == CLD_KILLED && ev.status == SIGKILL, "... as sent");
        TAP_EQ_INT(ns_event_send(sv[1], &(struct ns_event) { .type = 99, .pid = 3 }), 0, "an unknown event is sent");
        TAP_EQ_INT(ns_event_recv(sv[0], &ev), -EBADMSG, "... and refused");
        /* A detach: its request, and its answer (sent ahead here, read by ns_detach()). */
        {
                struct ns_spawn_request req = {};
                int a = -EBADF, b = -EBADF, before;

                TAP_EQ_INT(ns_detach_answer_send(sv[1]), 0, "a detach's answer is sent");
                TAP_EQ_INT(ns_detach(sv[0], 1000000ULL), 0, "ns_detach() sends its request and takes the answer");
                TAP_EQ_INT(ns_spawn_request_recv(sv[1], &req), NS_REQUEST_DETACH, "... a request read as a detach");
                TAP_EQ_INT(ns_spawn_answer_send(sv[1], 0, 7, -1), 0, "an answer with a pid is sent");
                TAP_EQ_INT(ns_detach(sv[0], 1000000ULL), -EBADMSG, "... which is no detach's answer");
                (void) ns_spawn_request_recv(sv[1], &req);
                TAP_EQ_INT(ns_detach(sv[0], 20000ULL), -ETIMEDOUT, "no answer: -ETIMEDOUT");
                (void) ns_spawn_request_recv(sv[1], &req);

                TAP_EQ_INT(ns_reattach_send(sv[0], p[0], p[1]), 0, "a reattach hands two fds over");
                TAP_EQ_INT(ns_reattach_recv(sv[1], &a, &b), 0, "... received");
                tap_ok(same_inode(a, p[0]) && same_inode(b, p[1]), "... both, in order");
                safe_close(a);
                safe_close(b);
                TAP_EQ_INT(socket_send_message(sv[0], "BNA1", 4, p, 1), 0, "a reattach with one fd is sent");
                before = lowest_free_fd();
                TAP_EQ_INT(ns_reattach_recv(sv[1], &a, &b), -EBADMSG, "... and refused");
                tap_ok(lowest_free_fd() == before, "... nothing of it left open");
        }
        safe_close(sv[1]);
        TAP_EQ_INT(ns_event_recv(sv[0], &ev), -EPIPE, "the init's end: -EPIPE");
        safe_close(sv[0]);
        safe_close(p[0]);
        safe_close(p[1]);
}

/* Waits up to 10 s for an event on fd. */
static int next_event(int fd, struct ns_event *ev) {
        int r = fd_wait_until(fd, POLLIN, now_usec() + 10 * 1000000ULL);

        return r < 0 ? r : ns_event_recv(fd, ev);
}

static void test_init(void) {
        _cleanup_free_ char *init = NULL;
        const char *build = getenv("BOTDESK_BUILD_DIR");
        char *argv[2], *envp[] = { (char *) "PATH=/usr/bin:/bin", NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;
        struct ns_event ev = {};
        int req[2], evs[2], out[2], r, status = 0, pidfd = -EBADF;
        pid_t init_pid, ns_pid = 0, outer = 0;
        char line[128] = "", self_ns[64] = "", path[64], child_ns[64] = "";
        ssize_t n;

        if (!build)
                return tap_skip("botdesk-ns-init # SKIP BOTDESK_BUILD_DIR is not set");
        init = strdup_printf("%s/helper/botdesk-ns-init", build);
        if (geteuid() != 0)
                return tap_skip_host("botdesk-ns-init as pid 1 # SKIP a new PID namespace needs CAP_SYS_ADMIN");
        if (!tap_ok(pair(req) && pair(evs) && pipe2(out, O_CLOEXEC) == 0, "the init's sockets"))
                return;
        argv[0] = init;
        argv[1] = NULL;
        o.argv = argv;
        o.envp = envp;
        o.pipe_fds[0] = req[1];
        o.pipe_fds[1] = evs[1];
        o.clone_flags = CLONE_NEWPID | CLONE_NEWIPC;
        r = spawn(&o, &init_pid);
        TAP_EQ_INT(r, 0, "botdesk-ns-init starts in new PID and IPC namespaces");
        if (r < 0)
                return;
        safe_close(req[1]);
        safe_close(evs[1]);

        /* A child through it: pid 2 of the namespace, its stdout ours. */
        o = (struct spawn_opts) SPAWN_OPTS_INIT;
        o.argv = (char *[]) { (char *) "/bin/sh", (char *) "-c", (char *) "echo $$; exec sleep 1000", NULL };
        o.envp = envp;
        o.stdout_fd = out[1];
        o.new_session = true;
        r = ns_spawn(req[0], &o, 10 * 1000000ULL, &ns_pid, &pidfd);
        TAP_EQ_INT(r, 0, "the init starts a child");
        safe_close(out[1]);
        n = read(out[0], line, sizeof line - 1);
        line[n > 0 ? n : 0] = 0;
        line[strcspn(line, "\n")] = 0;
        tap_ok(ns_pid == 2 && streq(line, "2"), "... which is pid 2 in the namespace, and knows it (%s)", line);
        r = pidfd >= 0 ? pidfd_get_pid(pidfd, &outer) : -EBADF;
        tap_ok(r == 0 && outer > 0 && outer != ns_pid, "its pidfd names it by our pid (%d)", (int) outer);
        snprintf(path, sizeof path, "/proc/%d/ns/pid", (int) outer);
        (void) !readlink(path, child_ns, sizeof child_ns - 1);
        (void) !readlink("/proc/self/ns/pid", self_ns, sizeof self_ns - 1);
        tap_ok(child_ns[0] && !streq(child_ns, self_ns), "... in another PID namespace than ours (%s)", child_ns);
        snprintf(path, sizeof path, "/proc/%d/ns/ipc", (int) outer);
        memset(child_ns, 0, sizeof child_ns);
        memset(self_ns, 0, sizeof self_ns);
        (void) !readlink(path, child_ns, sizeof child_ns - 1);
        (void) !readlink("/proc/self/ns/ipc", self_ns, sizeof self_ns - 1);
        tap_ok(child_ns[0] && !streq(child_ns, self_ns), "... and another IPC namespace");

        /* Its end is reported with its status. */
        TAP_EQ_INT(kill(outer, SIGTERM), 0, "the child is sent SIGTERM");
        TAP_EQ_INT(next_event(evs[0], &ev), 0, "an event comes within 10 s");
        tap_ok(ev.type == NS_EVENT_EXITED && ev.pid == 2 && ev.code == CLD_KILLED && ev.status == SIGTERM,
               "... its exit: pid 2, killed by SIGTERM");
        safe_close(pidfd);

        /* A program that is not there: the spawn's error, no child. */
        o.argv = (char *[]) { (char *) "/nonexistent/botdesk-test", NULL };
        o.stdout_fd = -1;
        TAP_EQ_INT(ns_spawn(req[0], &o, 10 * 1000000ULL, &ns_pid, &pidfd), -ENOENT,
                   "a program that does not exist: -ENOENT from the init");

        /* Without fd 5 no helper could come back: no detach. */
        TAP_EQ_INT(ns_detach(req[0], 10 * 1000000ULL), -EOPNOTSUPP, "an init without a listening fd 5 refuses a detach");

        /* The helper gone: the namespace is killed, the init ends. */
        o.argv = (char *[]) { (char *) "/bin/sleep", (char *) "1000", NULL };
        r = ns_spawn(req[0], &o, 10 * 1000000ULL, &ns_pid, &pidfd);
        if (r == 0)
                r = pidfd_get_pid(pidfd, &outer);
        tap_ok(r == 0, "another child runs (pid %d)", (int) outer);
        safe_close(req[0]);
        r = waitpid(init_pid, &status, 0);
        tap_ok(r == init_pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "closing the requests ends the init (status %d)", status);
        tap_ok(pidfd_get_pid(pidfd, &outer) == -ESRCH, "... and its child with it");
        safe_close(pidfd);
        safe_close(evs[0]);
        safe_close(out[0]);
}

/* An init with a listening fd 5: detached, it lives on with its children and keeps their ends; a helper that
 * connects hands it new sockets and gets them. */
static void test_init_detach(const char *scratch) {
        _cleanup_free_ char *init = NULL, *sock = NULL;
        const char *build = getenv("BOTDESK_BUILD_DIR");
        char *envp[] = { (char *) "PATH=/usr/bin:/bin", NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;
        struct ns_event ev = {};
        int req[2], evs[2], req2[2], evs2[2], lfd, conn, r, status = 0, pidfd = -EBADF;
        pid_t init_pid, ns_pid = 0, outer = 0;
        char byte;

        if (!build || geteuid() != 0)
                return; /* test_init() said why */
        init = strdup_printf("%s/helper/botdesk-ns-init", build);
        sock = strdup_printf("%s/" NS_INIT_SOCKET, scratch);
        lfd = socket_listen_private(sock, SOCK_SEQPACKET, 4);
        if (!tap_ok(lfd >= 0 && pair(req) && pair(evs) && pair(req2) && pair(evs2),
                    "an init's sockets and a listening %s", NS_INIT_SOCKET))
                return;
        o.argv = (char *[]) { init, NULL };
        o.envp = envp;
        o.pipe_fds[0] = req[1];
        o.pipe_fds[1] = evs[1];
        o.keep_fd = lfd;
        o.keep_fd_target = NS_INIT_LISTEN_FD;
        o.clone_flags = CLONE_NEWPID | CLONE_NEWIPC;
        TAP_EQ_INT(spawn(&o, &init_pid), 0, "botdesk-ns-init starts with the listening socket as fd 5");
        safe_close(req[1]);
        safe_close(evs[1]);
        safe_close(lfd);

        o = (struct spawn_opts) SPAWN_OPTS_INIT;
        o.argv = (char *[]) { (char *) "/bin/sleep", (char *) "1000", NULL };
        o.envp = envp;
        r = ns_spawn(req[0], &o, 10 * 1000000ULL, &ns_pid, &pidfd);
        if (r == 0)
                r = pidfd_get_pid(pidfd, &outer);
        TAP_EQ_INT(r, 0, "a child runs (pid %d)", (int) outer);

        TAP_EQ_INT(ns_detach(req[0], 10 * 1000000ULL), 0, "the init detaches");
        r = fd_wait_until(req[0], POLLIN, now_usec() + 10 * 1000000ULL);
        tap_ok(r == 0 && recv(req[0], &byte, 1, 0) == 0, "... closing its end of the requests");
        tap_ok(kill(init_pid, 0) == 0 && pidfd_get_pid(pidfd, &outer) == 0, "... and lives on with its child");
        TAP_EQ_INT(kill(outer, SIGKILL), 0, "the child is killed while no helper listens");

        conn = socket_connect_at(AT_FDCWD, sock, SOCK_SEQPACKET);
        tap_ok(conn >= 0, "a helper connects to %s", NS_INIT_SOCKET);
        TAP_EQ_INT(ns_reattach_send(conn, req2[1], evs2[1]), 0, "... and hands over two new sockets");
        safe_close(conn);
        safe_close(req2[1]);
        safe_close(evs2[1]);
        TAP_EQ_INT(next_event(evs2[0], &ev), 0, "an event comes on the new socket within 10 s");
        tap_ok(ev.type == NS_EVENT_EXITED && ev.pid == ns_pid && ev.code == CLD_KILLED && ev.status == SIGKILL,
               "... the end it kept: pid %d, killed by SIGKILL", (int) ns_pid);
        safe_close(pidfd);
        r = ns_spawn(req2[0], &o, 10 * 1000000ULL, &ns_pid, &pidfd);
        TAP_EQ_INT(r, 0, "a child starts through the new sockets");
        safe_close(pidfd);
        safe_close(req2[0]);
        r = waitpid(init_pid, &status, 0);
        tap_ok(r == init_pid && WIFEXITED(status), "closing them (no detach) ends the init");
        safe_close(req[0]);
        safe_close(evs[0]);
        safe_close(evs2[0]);
}

int main(void) {
        char scratch[256];

        scratch_dir_make(scratch, sizeof scratch, "test-ns-spawn");
        test_request_round_trip();
        test_request_refused();
        test_answers_and_events();
        test_init();
        test_init_detach(scratch);
        scratch_dir_remove(scratch);
        return tap_done();
}
