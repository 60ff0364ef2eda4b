/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "child-deadline.h"
#include "tap.h"
#include "util.h"

struct captured {
        char out[4096], err[4096];
        size_t out_len, err_len;
};

static void on_output(enum child_stream stream, const char *buf, size_t n, void *userdata) {
        struct captured *c = userdata;
        char *to = stream == CHILD_STDOUT ? c->out : c->err;
        size_t *len = stream == CHILD_STDOUT ? &c->out_len : &c->err_len;

        if (*len + n >= sizeof c->out)
                abort();
        memcpy(to + *len, buf, n);
        *len += n;
        to[*len] = '\0';
}

/* sh -c SCRIPT in a session of its own, its stdout and stderr to the runner's pipes. */
static int spawn_sh(int stdout_fd, int stderr_fd, pid_t *ret_pid, void *userdata) {
        const char *script = userdata;
        pid_t pid = fork();

        if (pid < 0)
                return negative_errno();
        if (pid == 0) {
                sigset_t none;

                sigemptyset(&none);
                (void) sigprocmask(SIG_SETMASK, &none, NULL);
                (void) setsid();
                if ((stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0) ||
                    (stderr_fd >= 0 && dup2(stderr_fd, STDERR_FILENO) < 0))
                        _exit(127);
                execl("/bin/sh", "sh", "-c", script, (char *) NULL);
                _exit(127);
        }
        *ret_pid = pid;
        return 0;
}

static void test_in_time(void) {
        struct captured c = {};
        const struct child_deadline d = {
                .timeout_usec = 20 * 1000000ULL,
                .grace_usec = 1000000ULL,
                .group = true,
                .read_stdout = true,
                .read_stderr = true,
                .on_output = on_output,
                .userdata = &c,
        };
        struct child_deadline_result res;

        TAP_EQ_INT(child_deadline_run(&d, spawn_sh, (void *) "echo out; echo err >&2; exit 3", &res), 0,
                   "a child that exits before its deadline is run to its end");
        TAP_EQ_INT(res.status, 3, "its exit code is reported");
        tap_ok(!res.timed_out && !res.signaled, "it is neither timed out nor signalled (timed_out %d, signaled %d)",
               res.timed_out, res.signaled);
        TAP_EQ_STR(c.out, "out\n", "its stdout is captured");
        TAP_EQ_STR(c.err, "err\n", "its stderr is captured apart");
}

static void test_merged(void) {
        struct captured c = {};
        const struct child_deadline d = {
                .timeout_usec = 20 * 1000000ULL,
                .grace_usec = 1000000ULL,
                .read_stdout = true,
                .read_stderr = true,
                .merge_stderr = true,
                .on_output = on_output,
                .userdata = &c,
        };
        struct child_deadline_result res;

        TAP_EQ_INT(child_deadline_run(&d, spawn_sh, (void *) "echo one; echo two >&2; echo three", &res), 0,
                   "a child with stderr merged runs to its end");
        TAP_EQ_STR(c.out, "one\ntwo\nthree\n", "stdout and stderr arrive in one stream, in order");
        TAP_EQ_INT((int) c.err_len, 0, "nothing arrives as stderr");
}

static void test_sigterm(void) {
        struct captured c = {};
        const struct child_deadline d = {
                .timeout_usec = 200000ULL,
                .grace_usec = 20 * 1000000ULL,
                .group = true,
                .read_stdout = true,
                .on_output = on_output,
                .userdata = &c,
        };
        struct child_deadline_result res;
        unsigned long long t0 = now_usec(), took;

        TAP_EQ_INT(child_deadline_run(&d, spawn_sh, (void *) "echo started; exec sleep 30", &res), -ETIME,
                   "a child past its deadline is reported as -ETIME");
        took = now_usec() - t0;
        tap_ok(res.timed_out, "it is marked timed out");
        TAP_EQ_INT(res.status, 128 + SIGTERM, "SIGTERM ended it (status 128+SIGTERM)");
        tap_ok(took < 10 * 1000000ULL, "it was not waited for until the grace was over (took %llu us)", took);
        TAP_EQ_STR(c.out, "started\n", "its output before the deadline is captured");
}

static void test_sigkill(void) {
        struct captured c = {};
        const struct child_deadline d = {
                .timeout_usec = 500000ULL,
                .grace_usec = 500000ULL,
                .group = true,
                .read_stdout = true,
                .on_output = on_output,
                .userdata = &c,
        };
        struct child_deadline_result res;
        unsigned long long t0 = now_usec(), took;

        /* The shell ignores SIGTERM; its sleeps (in its group) do not and are
         * replaced, so only SIGKILL ends it. "term" says SIGTERM came first. */
        TAP_EQ_INT(child_deadline_run(&d, spawn_sh,
                                      (void *) "trap 'echo term' TERM; echo started; while :; do sleep 0.05; done",
                                      &res),
                   -ETIME, "a child that ignores SIGTERM is reported as -ETIME");
        took = now_usec() - t0;
        TAP_EQ_INT(res.status, 128 + SIGKILL, "SIGKILL ended it (status 128+SIGKILL)");
        tap_ok(res.signaled && res.timed_out, "it is marked signalled and timed out");
        tap_ok(took >= 1000000ULL, "SIGKILL came no sooner than deadline + grace (took %llu us, want >= 1000000)", took);
        tap_ok(strncmp(c.out, "started\nterm\n", 13) == 0, "SIGTERM reached it first (its output %s \"started, term\")",
               strncmp(c.out, "started\nterm\n", 13) == 0 ? "began with" : "did not begin with");
}

static void test_no_deadline(void) {
        const struct child_deadline d = { .grace_usec = 1000000ULL };
        struct child_deadline_result res;

        TAP_EQ_INT(child_deadline_run(&d, spawn_sh, (void *) "kill -HUP $$", &res), 0,
                   "without a deadline a child runs to its end");
        TAP_EQ_INT(res.status, 128 + SIGHUP, "a child killed by a signal reports 128 + the signal");
        tap_ok(res.signaled, "and is marked signalled");
}

/* Once the child said it is ready, a SIGHUP to us, which the runner holds and passes on. */
static void hup_when_ready(enum child_stream stream, const char *buf, size_t n, void *userdata) {
        struct captured *c = userdata;

        on_output(stream, buf, n, userdata);
        if (strstr(c->out, "ready\n") && !strstr(c->out, "hup"))
                (void) raise(SIGHUP);
}

static void test_forward(void) {
        struct captured c = {};
        const struct child_deadline d = {
                .timeout_usec = 20 * 1000000ULL,
                .grace_usec = 1000000ULL,
                .group = true,
                .forward_signals = true,
                .read_stdout = true,
                .on_output = hup_when_ready,
                .userdata = &c,
        };
        struct child_deadline_result res;

        TAP_EQ_INT(child_deadline_run(&d, spawn_sh,
                                      (void *) "trap 'echo hup; exit 7' HUP; echo ready; while :; do sleep 0.05; done",
                                      &res),
                   0, "a child that ends on a signal passed on to it is run to its end");
        TAP_EQ_INT(res.status, 7, "SIGHUP sent to us reached the child (its trap's exit code)");
        tap_ok(strstr(c.out, "hup") != NULL, "the child's trap ran");
}

static int spawn_fails(_unused_ int stdout_fd, _unused_ int stderr_fd, _unused_ pid_t *ret_pid,
                       _unused_ void *userdata) {
        return -ENOENT;
}

static void test_spawn_fails(void) {
        const struct child_deadline d = { .timeout_usec = 1000000ULL, .read_stdout = true };
        struct child_deadline_result res;

        TAP_EQ_INT(child_deadline_run(&d, spawn_fails, NULL, &res), -ENOENT, "a child that cannot start is its error");
        TAP_EQ_INT(res.status, -1, "and has no status");
}

int main(void) {
        test_in_time();
        test_merged();
        test_sigterm();
        test_sigkill();
        test_no_deadline();
        test_forward();
        test_spawn_fails();
        return tap_done();
}
