/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token killer (what a dead helper left where no cgroup holds it): it
 * kills the processes of the uid given that carry the token, and no other.
 */
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fixture.h"
#include "tap.h"
#include "token-kill.h"
#include "util.h"

/* A child that sleeps with env (in a PID namespace of its own with new_pidns); its pid. */
static pid_t start_sleeper_in(char *token_entry, bool new_pidns) {
        char *argv[] = { (char *) "/bin/sleep", (char *) "60", NULL };
        char *envp[] = { token_entry, NULL };
        /* Raw, as spawn() clones: the child only execs. */
        pid_t pid = new_pidns ? (pid_t) syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL) : fork();

        if (pid < 0)
                die("fork");
        if (pid == 0) {
                execve(argv[0], argv, envp);
                _exit(127);
        }
        return pid;
}

static pid_t start_sleeper(char *token_entry) {
        return start_sleeper_in(token_entry, false);
}

/* The child's exec has happened once its /proc/PID/environ holds entry. */
static bool wait_for_environ(pid_t pid, const char *entry) {
        _cleanup_free_ char *path = strdup_printf("/proc/%d/environ", (int) pid);

        /* Bounded: 2000 looks of 1 ms, for the exec of sleep. */
        for (int i = 0; path && i < 2000; i++) {
                _cleanup_free_ char *text = NULL;
                size_t size;

                if (read_full_file(path, &text, &size, 4096) >= 0 && size > 0 && streq(text, entry))
                        return true;
                usleep(1000);
        }
        return false;
}

static void test_kill_by_token(void) {
        char token[64], entry[96], other[96];
        pid_t marked, unmarked;
        int status = 0, k;

        snprintf(token, sizeof token, "test-token-kill-%d", (int) getpid());
        snprintf(entry, sizeof entry, "BOTDESK_TOKEN=%s", token);
        snprintf(other, sizeof other, "BOTDESK_TOKEN=%sx", token);
        marked = start_sleeper(entry);
        unmarked = start_sleeper(other);
        if (!tap_ok(wait_for_environ(marked, entry) && wait_for_environ(unmarked, other),
                    "two children have exec'd, one with the token, one with a longer one"))
                goto out;
        TAP_EQ_INT(kill_by_token(token, getuid() + 1, false), 0, "a token is looked for only in processes of the uid given");
        tap_ok(waitpid(marked, &status, WNOHANG) == 0, "... and the child carrying it, of another uid, lives on");
        k = kill_by_token(token, getuid(), false);
        /* A count of kills, not of processes: a dying child may be seen twice. */
        tap_ok(k >= 1, "kill_by_token kills the process carrying the token (%d)", k);
        tap_ok(waitpid(marked, &status, 0) == marked && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
               "the child with the token died of SIGKILL");
        tap_ok(waitpid(unmarked, &status, WNOHANG) == 0, "the child whose token only starts the same lives on");
out:
        kill(marked, SIGKILL);
        kill(unmarked, SIGKILL);
        (void) waitpid(marked, NULL, 0);
        (void) waitpid(unmarked, NULL, 0);
}

/* A checkpointable desktop's helper kills by its token only in its own PID namespace: a fork's tree, in
 * namespaces of its own, carries its parent's token. */
static void test_own_pid_namespace(void) {
        char token[64], entry[96];
        pid_t pid;
        int status = 0;

        if (geteuid() != 0) {
                tap_skip_host("kill_by_token in our own PID namespace # SKIP a new PID namespace needs CAP_SYS_ADMIN");
                return;
        }
        snprintf(token, sizeof token, "test-token-kill-ns-%d", (int) getpid());
        snprintf(entry, sizeof entry, "BOTDESK_TOKEN=%s", token);
        pid = start_sleeper_in(entry, true);
        if (!tap_ok(pid > 0 && wait_for_environ(pid, entry), "a child in a PID namespace of its own carries the token"))
                goto out;
        TAP_EQ_INT(kill_by_token(token, getuid(), true), 0, "kill_by_token in our own PID namespace only kills none");
        tap_ok(waitpid(pid, &status, WNOHANG) == 0, "... and it lives on");
        tap_ok(kill_by_token(token, getuid(), false) >= 1, "without that, it is killed");
        tap_ok(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
               "... of SIGKILL");
        pid = 0;
out:
        if (pid > 0) {
                kill(pid, SIGKILL);
                (void) waitpid(pid, NULL, 0);
        }
}

int main(void) {
        test_kill_by_token();
        test_own_pid_namespace();
        return tap_done();
}
