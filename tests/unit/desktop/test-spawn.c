/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "tap.h"
#include "util.h"

/* Run `sh -c SCRIPT` through spawn() with stdout to out_fd; its exit status. */
static int spawn_sh(const char *script, int stdin_fd, int out_fd) {
        char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) script, NULL };
        char *envp[] = { (char *) "PATH=/usr/bin:/bin", NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;
        int status, r;
        pid_t pid;

        o.argv = argv;
        o.envp = envp;
        o.stdin_fd = stdin_fd;
        o.stdout_fd = out_fd;
        r = spawn(&o, &pid);
        if (r < 0)
                return r;
        (void) waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void read_all_into(int fd, char *out, size_t size) {
        size_t len = 0;
        ssize_t n;

        while (len + 1 < size && (n = read(fd, out + len, size - 1 - len)) > 0)
                len += (size_t) n;
        out[len] = 0;
}

/* Run `sh -c SCRIPT` through spawn() with stdout to a pipe; its output in out. */
static int run_sh(const char *script, int stdin_fd, char *out, size_t size) {
        int p[2], rc;

        if (pipe2(p, O_CLOEXEC) < 0)
                return -1;
        rc = spawn_sh(script, stdin_fd, p[1]);
        close(p[1]);
        read_all_into(p[0], out, size);
        close(p[0]);
        return rc;
}

/* In a child whose fd 0 is closed, spawn with stdin_fd -1: what is fd 0 of the command? */
static void test_stdin_closed(void) {
        char out[256] = "";
        int p[2];
        pid_t pid;

        if (pipe(p) < 0)
                return;
        pid = fork();
        if (pid == 0) {
                /* The output pipe first, then fd 0 closed: spawn finds the
                 * lowest fd free, as a caller started with stdin closed does. */
                close(p[0]);
                close(0);
                _exit(spawn_sh("readlink /proc/self/fd/0 || echo closed", -1, p[1]) == 0 ? 0 : 1);
        }
        close(p[1]);
        read_all_into(p[0], out, sizeof out);
        close(p[0]);
        (void) waitpid(pid, NULL, 0);
        TAP_EQ_STR(out, "/dev/null\n", "a caller with stdin closed gives its command /dev/null on fd 0, open across exec");
}

static void test_fds_closed(void) {
        char out[256];
        int leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC on purpose: a leak to catch */

        tap_ok(leak > 2, "a test fd without O_CLOEXEC is open (%d)", leak);
        run_sh("ls /proc/self/fd | sort -n | tr '\\n' ' '", -1, out, sizeof out);
        /* 0-2, and the fd ls itself opened on /proc/self/fd */
        TAP_EQ_STR(out, "0 1 2 3 ", "spawn passes on only stdio");
        close(leak);
}

static void test_listed_fallback(void) {
        int leak = open("/dev/null", O_RDONLY), status, flags;
        pid_t pid = fork();

        if (pid == 0) {
                /* The pre-5.11 path, taken by hand: every fd from 3 up gets O_CLOEXEC. */
                if (fds_cloexec_listed(3) < 0)
                        _exit(2);
                flags = fcntl(leak, F_GETFD);
                _exit(flags >= 0 && (flags & FD_CLOEXEC) ? 0 : 1);
        }
        (void) waitpid(pid, &status, 0);
        tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "without close_range, each fd /proc/self/fd lists is marked close-on-exec");
        flags = fcntl(0, F_GETFD);
        tap_ok(flags >= 0 && !(flags & FD_CLOEXEC), "... and stdio below the first fd is left alone");
        close(leak);
}

int main(void) {
        test_stdin_closed();
        test_fds_closed();
        test_listed_fallback();
        return tap_done();
}
