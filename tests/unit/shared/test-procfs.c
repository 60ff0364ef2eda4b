/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"
#include "tap.h"
#include "util.h"

/* pidfd_get_pid(): our own pid from our pidfd, and an fd that is no pidfd refused. (A reaped child's -ESRCH is
 * test-ns-spawn's, whose children are real; a child forked here outlived its SIGKILL under valgrind.) */
static void test_pidfd_get_pid(void) {
        int pidfd, p[2];
        pid_t got = 0;

        pidfd = (int) syscall(SYS_pidfd_open, getpid(), 0);
        if (pidfd < 0)
                return tap_skip_host("pidfd_get_pid # SKIP pidfd_open: %s", strerror(errno));
        TAP_EQ_INT(pidfd_get_pid(pidfd, &got), 0, "a pidfd's pid is read");
        TAP_EQ_INT(got, getpid(), "... and is ours");
        close(pidfd);
        if (pipe2(p, O_CLOEXEC) == 0) {
                TAP_EQ_INT(pidfd_get_pid(p[0], &got), -ENOTTY, "an fd that is no pidfd: -ENOTTY");
                close(p[0]);
                close(p[1]);
        }
}

int main(void) {
        struct proc_stat st;
        unsigned long long own = 0;

        TAP_EQ_INT(proc_stat_parse("42 (sh) S 1 42 42 0 -1 4194560 1 2 0 0 3 4 0 0 20 0 1 0 987654 1 2 3\n", &st), 0,
                   "a stat line is parsed");
        TAP_EQ_INT(st.state, 'S', "... its state is field 3");
        TAP_EQ_INT(st.starttime, 987654, "... its start time is field 22");
        TAP_EQ_INT(st.flags, 4194560, "... its flags (PF_EXITING among them) are field 9");
        TAP_EQ_INT(proc_stat_parse("7 (a) b (c)) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0\n", &st), 0,
                   "a comm with spaces and ')' in it is parsed from the last ')'");
        TAP_EQ_INT(st.state, 'Z', "... and its state is the zombie's");
        TAP_EQ_INT(st.starttime, 55, "... and its start time is right");
        TAP_EQ_INT(proc_stat_parse("7 (a) S 1 2 3\n", &st), -EBADMSG, "a line cut short is refused");
        TAP_EQ_INT(proc_stat_parse("7 a S 1 2 3\n", &st), -EBADMSG, "a line without a comm is refused");
        TAP_EQ_INT(proc_stat_parse("7 (a) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5x5 0\n", &st), -EBADMSG,
                   "a start time that is not a number is refused");
        TAP_EQ_INT(pid_starttime(getpid(), &own), 0, "our own start time is read from /proc");
        tap_ok(own > 0, "... and is after boot (%llu)", own);
        tap_ok(pid_alive(NULL, getpid()), "we are alive");
        test_pidfd_get_pid();

        /* The environment we were started with: meson gives every test one, PATH in it. */
        {
                _cleanup_free_ char *entry = strdup_printf("PATH=%s", getenv("PATH") ?: "");
                _cleanup_free_ char *prefix = strdup_printf("PATH=%.*s", (int) strlen(getenv("PATH") ?: "") / 2,
                                                            getenv("PATH") ?: "");

                TAP_EQ_INT(pid_environ_has(getpid(), entry), 1, "our environment holds PATH=... exactly");
                TAP_EQ_INT(pid_environ_has(getpid(), prefix), 0, "... and not a prefix of that entry");
                TAP_EQ_INT(pid_environ_has(getpid(), "BOTDESK_TEST_NO_SUCH_VARIABLE=1"), 0,
                           "... nor a variable it does not have");
                TAP_EQ_INT(pid_environ_has(0, entry), -EINVAL, "pid 0 is refused");
        }

        /* Which namespace: the inode /proc/self/ns/KIND names, the same for our parent here. */
        {
                struct stat self;
                ino_t ns = 0, parent = 0;

                tap_ok(stat("/proc/self/ns/pid", &self) == 0, "our PID namespace's inode is there to compare");
                TAP_EQ_INT(pid_namespace(getpid(), "pid", &ns), 0, "pid_namespace() reads ours");
                tap_ok(ns == self.st_ino, "... the inode of /proc/self/ns/pid");
                TAP_EQ_INT(pid_namespace(getppid(), "pid", &parent), 0, "... and our parent's");
                tap_ok(parent == ns, "... the same namespace");
                TAP_EQ_INT(pid_namespace(getpid(), "no-such-kind", &ns), -ENOENT, "a kind that is none: -ENOENT");
        }
        return tap_done();
}
