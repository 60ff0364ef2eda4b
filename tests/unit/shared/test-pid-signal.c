/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Signals by pid go to the process that was checked, and to no other:
 * children of the test stand in for the processes a cgroup or /proc walk
 * finds. A child that exits between the check and the signal stands in for
 * a pid reused meanwhile: the pidfd still names the dead one, so nothing
 * (in particular not a new owner of the pid) is signalled.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "tap.h"
#include "cgroup.h"
#include "token-kill.h"
#include "pid-signal.h"
#include "util.h"

/* A child running sleep with envp, returned once it has exec'd: the
 * close-on-exec end of a pipe closes then, so the read sees EOF. */
static pid_t child_sleeping(char *const envp[]) {
        int p[2];
        char c;
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
                printf("Bail out! pipe/fork: %m\n");
                exit(99);
        }
        if (pid == 0) {
                char *argv[] = { (char *) "sleep", (char *) "60", NULL };

                close(p[0]);
                execve("/bin/sleep", argv, envp);
                _exit(127);
        }
        close(p[1]);
        (void) !read(p[0], &c, 1);
        close(p[0]);
        return pid;
}

/* Did pid die of sig (reaped here)? Waits at most 5 s, and says so. */
static bool died_of(pid_t pid, int sig) {
        for (int i = 0; i < 500; i++) {
                int status;
                pid_t r = waitpid(pid, &status, WNOHANG);

                if (r == pid)
                        return WIFSIGNALED(status) && WTERMSIG(status) == sig;
                usleep(10 * 1000);
        }
        printf("#   child %d still alive after 5 s\n", (int) pid);
        return false;
}

static bool still_alive(pid_t pid) {
        return waitpid(pid, NULL, WNOHANG) == 0;
}

static bool check_yes(pid_t pid, void *userdata) {
        return true;
}

static bool check_no(pid_t pid, void *userdata) {
        return false;
}

/* The checked process goes away after the pidfd pinned it, before the signal. */
static bool check_then_gone(pid_t pid, void *userdata) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0); /* reaped: its pid is free for anyone now */
        *(bool *) userdata = true;
        return true;
}

int main(void) {
        char *noenv[] = { NULL };
        char *tokenenv[] = { (char *) "BOTDESK_TOKEN=test-pid-signal-token", NULL };
        char *otherenv[] = { (char *) "BOTDESK_TOKEN=test-pid-signal-other", NULL };
        bool gone = false;
        pid_t a, b, c;

        a = child_sleeping(noenv);
        TAP_EQ_INT(pid_signal_checked(a, SIGTERM, check_no, NULL), 0, "a process the check refuses is not signalled");
        tap_ok(still_alive(a), "and it still runs");
        TAP_EQ_INT(pid_signal_checked(a, SIGTERM, check_yes, NULL), 1, "a process the check accepts is signalled");
        tap_ok(died_of(a, SIGTERM), "with the signal asked for");
        TAP_EQ_INT(pid_signal_checked(a, SIGTERM, check_yes, NULL), 0, "a pid that is gone is not signalled");

        b = child_sleeping(noenv);
        TAP_EQ_INT(pid_signal_checked(b, SIGTERM, check_then_gone, &gone), 0,
                   "a process that exits after its check is not signalled: the pidfd still names it, not a new owner");
        tap_ok(gone, "the check ran after the process was pinned (it saw it alive and reaped it)");

        a = child_sleeping(noenv);
        tap_ok(!pid_check_in_cgroup(a, (void *) "/nonexistent-cgroup-mount/botdesk-x"),
               "a cgroup outside the v2 mount never holds a process");
        {
                _cleanup_free_ char *mount = NULL, *self = NULL, *mine = NULL, *sibling = NULL;

                if (cgroup_v2_mount(&mount) >= 0 && cgroup_path_of(0, &self) >= 0 && !streq(self, "/")) {
                        mine = strdup_printf("%s%s", mount, self);
                        sibling = strdup_printf("%s/botdesk-not-this-one", mine ? mine : "");
                        tap_ok(mine && pid_check_in_cgroup(a, mine), "a child is in its parent's cgroup %s", mine);
                        tap_ok(sibling && !pid_check_in_cgroup(a, sibling), "and not in a group below it");
                } else {
                        tap_ok(1, "a child is in its parent's cgroup # SKIP no cgroup v2 hierarchy, or we are in its root");
                        tap_ok(1, "and not in a group below it # SKIP no cgroup v2 hierarchy, or we are in its root");
                }
        }
        kill(a, SIGKILL);
        waitpid(a, NULL, 0);

        b = child_sleeping(tokenenv);
        c = child_sleeping(otherenv);
        tap_ok(kill_by_token("test-pid-signal-token", getuid(), false) >= 1, "kill_by_token kills the process with the token");
        tap_ok(died_of(b, SIGKILL), "the process carrying the token got SIGKILL");
        tap_ok(still_alive(c), "a process with another token is left alone");
        TAP_EQ_INT(kill_by_token("test-pid-signal-other", getuid() + 1, false), 0, "nor is it killed for another uid");
        tap_ok(still_alive(c), "and still runs");
        kill(c, SIGKILL);
        waitpid(c, NULL, 0);
        return tap_done();
}
