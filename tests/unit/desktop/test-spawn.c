/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
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

/* Run argv (no shell, so nothing adds to what spawn sets up) with o's other
 * fields; its stdout in out, its exit status returned. */
static int run_argv(char **argv, struct spawn_opts *o, char *out, size_t size) {
        int p[2], status = 0, r;
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return -1;
        o->argv = argv;
        o->stdout_fd = p[1];
        r = spawn(o, &pid);
        close(p[1]);
        if (r >= 0)
                read_all_into(p[0], out, size);
        close(p[0]);
        if (r < 0)
                return r;
        (void) waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void test_environment_exact(void) {
        char *argv[] = { (char *) "/usr/bin/env", NULL };
        char *envp[] = { (char *) "A=1", (char *) "PATH=/usr/bin:/bin", NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;
        char out[512] = "";

        setenv("BOTDESK_TEST_LEAK", "1", 1);
        o.envp = envp;
        TAP_EQ_INT(run_argv(argv, &o, out, sizeof out), 0, "env runs");
        TAP_EQ_STR(out, "A=1\nPATH=/usr/bin:/bin\n", "the command's environment is envp and nothing of the caller's");
        unsetenv("BOTDESK_TEST_LEAK");
}

static void test_env_build_clean(void) {
        char *caller[] = { (char *) "HOME=/home/u", (char *) "LD_PRELOAD=/x.so", (char *) "LC_TIME=C",
                           (char *) "DBUS_SESSION_BUS_ADDRESS=unix:path=/bus", (char *) "LANG=C.UTF-8",
                           (char *) "BOTDESK_TOKEN=t", (char *) "LCX=1", NULL };
        char *extra[] = { (char *) "DISPLAY=:5", (char *) "HOME=/elsewhere", NULL };
        char *bad[] = { (char *) "NOEQUALS", NULL };
        _cleanup_strv_free_ char **env = NULL, **empty = NULL, **refused = NULL;

        TAP_EQ_INT(env_build_clean(caller, extra, &env), 0, "a clean environment is built");
        TAP_EQ_STR(strv_env_get(env, "HOME"), "/elsewhere", "an extra value replaces the caller's");
        TAP_EQ_STR(strv_env_get(env, "LC_TIME"), "C", "LC_* variables pass");
        TAP_EQ_STR(strv_env_get(env, "LANG"), "C.UTF-8", "LANG passes");
        TAP_EQ_STR(strv_env_get(env, "DISPLAY"), ":5", "extra values are added");
        tap_ok(!strv_env_get(env, "LD_PRELOAD") && !strv_env_get(env, "DBUS_SESSION_BUS_ADDRESS") &&
               !strv_env_get(env, "BOTDESK_TOKEN") && !strv_env_get(env, "LCX"),
               "the caller's loader, bus, token and other variables do not pass");
        TAP_EQ_STR(strv_env_get(env, "PATH"), "/usr/local/bin:/usr/bin:/bin", "without a PATH of the caller's, a default one");
        TAP_EQ_INT(strv_length(env), 5, "HOME, LC_TIME, LANG, PATH and DISPLAY: nothing else");

        TAP_EQ_INT(env_build_clean(NULL, NULL, &empty), 0, "an environment is built from nothing");
        tap_ok(empty && strv_length(empty) == 1 && strv_env_get(empty, "PATH"), "... and holds only the default PATH");
        TAP_EQ_INT(env_build_clean(caller, bad, &refused), -EINVAL, "an extra entry without '=' is refused");
}

/* The parent's blocked and ignored signals are not the command's. */
static void test_signals_reset(void) {
        char *argv[] = { (char *) "/bin/grep", (char *) "-E", (char *) "^Sig(Blk|Ign)", (char *) "/proc/self/status", NULL };
        char *envp[] = { NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;
        sigset_t block, old;
        char out[256] = "";

        sigemptyset(&block);
        sigaddset(&block, SIGTERM);
        sigaddset(&block, SIGCHLD);
        sigprocmask(SIG_BLOCK, &block, &old);
        signal(SIGINT, SIG_IGN);
        o.envp = envp;
        run_argv(argv, &o, out, sizeof out);
        TAP_EQ_STR(out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n",
                   "a caller's blocked and ignored signals are neither blocked nor ignored in the command");
        o.ignore_sigusr1 = true;
        run_argv(argv, &o, out, sizeof out);
        TAP_EQ_STR(out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000200\n",
                   "ignore_sigusr1 leaves only SIGUSR1 ignored (an X server then signals its parent)");
        signal(SIGINT, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
}

static void test_kept_fds(void) {
        /* /proc/self resolved by the shell's cd: the shell's own fds, not those of
         * ls. No pipeline: the shell would hold its pipe's ends meanwhile. */
        char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) "cd /proc/self/fd && ls -v", NULL };
        char *envp[] = { (char *) "PATH=/usr/bin:/bin", NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;
        int kept[2], commands[2], replies[2], high;
        char out[256] = "", want[64];

        if (pipe2(kept, O_CLOEXEC) < 0 || pipe2(commands, O_CLOEXEC) < 0 || pipe2(replies, O_CLOEXEC) < 0)
                return;
        /* Well above 3 and 4, so that "kept at its number" shows. */
        high = fcntl(kept[1], F_DUPFD_CLOEXEC, 20);
        o.envp = envp;
        o.keep_fd = high;
        run_argv(argv, &o, out, sizeof out);
        for (char *c = out; *c; c++)
                if (*c == '\n')
                        *c = ' ';
        snprintf(want, sizeof want, "0 1 2 %d ", high);
        TAP_EQ_STR(out, want, "keep_fd is passed on at its own number, though O_CLOEXEC");

        /* Chromium's --remote-debugging-pipe: commands come in on 3, replies go out on 4. */
        o.keep_fd = -1;
        o.pipe_fds[0] = commands[0];
        o.pipe_fds[1] = replies[1];
        argv[2] = (char *) "read line <&3 && echo \"got $line\" >&4";
        (void) !write(commands[1], "ping\n", 5);
        close(commands[1]);
        run_argv(argv, &o, out, sizeof out);
        close(replies[1]);
        read_all_into(replies[0], out, sizeof out);
        TAP_EQ_STR(out, "got ping\n", "pipe_fds are passed on as fds 3 (read) and 4 (write)");
        close(high);
        close(kept[0]);
        close(kept[1]);
        close(commands[0]);
        close(replies[0]);
}

static void test_umask_cwd_exec_failure(void) {
        char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) "umask; pwd", NULL };
        char *missing[] = { (char *) "/nonexistent/botdesk-test", NULL };
        char *envp[] = { NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;
        char out[256] = "";
        mode_t old = umask(027);

        o.envp = envp;
        o.cwd = "/";
        run_argv(argv, &o, out, sizeof out);
        TAP_EQ_STR(out, "0027\n/\n", "the command keeps the caller's umask and runs in cwd");
        umask(old);
        TAP_EQ_INT(run_argv(missing, &o, out, sizeof out), -ENOENT,
                   "a binary that is not there is spawn()'s -ENOENT, not an exit status");
}

int main(void) {
        test_environment_exact();
        test_env_build_clean();
        test_signals_reset();
        test_kept_fds();
        test_umask_cwd_exec_failure();
        test_stdin_closed();
        test_fds_closed();
        test_listed_fallback();
        return tap_done();
}
