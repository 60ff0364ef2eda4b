/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token killer (what a dead helper left where no cgroup holds it): it
 * kills the processes of the uid given that carry the token, and no other.
 */
#include <signal.h>
#include <sys/wait.h>

#include "fixture.h"
#include "tap.h"
#include "token-kill.h"
#include "util.h"

/* A child that sleeps with env; its pid. */
static pid_t start_sleeper(char *token_entry) {
        char *argv[] = { (char *) "/bin/sleep", (char *) "60", NULL };
        char *envp[] = { token_entry, NULL };
        pid_t pid = fork();

        if (pid < 0)
                die("fork");
        if (pid == 0) {
                execve(argv[0], argv, envp);
                _exit(127);
        }
        return pid;
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
        TAP_EQ_INT(kill_by_token(token, getuid() + 1), 0, "a token is looked for only in processes of the uid given");
        tap_ok(waitpid(marked, &status, WNOHANG) == 0, "... and the child carrying it, of another uid, lives on");
        k = kill_by_token(token, getuid());
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

int main(void) {
        test_kill_by_token();
        return tap_done();
}
