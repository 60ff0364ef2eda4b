/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "child-deadline.h"
#include "remote-run.h"
#include "spawn.h"
#include "util.h"

extern char **environ;

#define OUT_MAX (64U * 1024U)
/* From SIGTERM to SIGKILL at the deadline. */
#define KILL_GRACE_USEC (2ULL * 1000000ULL)

void run_result_done(struct run_result *r) {
        free(r->out);
        r->out = NULL;
}

static void tail_append(struct run_result *res, const char *buf, size_t n) {
        if (n >= ERR_TAIL_MAX) {
                memcpy(res->err, buf + n - ERR_TAIL_MAX, ERR_TAIL_MAX);
                res->err_len = ERR_TAIL_MAX;
        } else {
                if (res->err_len + n > ERR_TAIL_MAX) {
                        size_t drop = res->err_len + n - ERR_TAIL_MAX;
                        memmove(res->err, res->err + drop, res->err_len - drop);
                        res->err_len -= drop;
                }
                memcpy(res->err + res->err_len, buf, n);
                res->err_len += n;
        }
        res->err[res->err_len] = '\0';
}

struct run_io {
        struct run_result *res;
        bool quiet;            /* stderr kept to ourselves, not passed on */
        size_t out_len;
        char **argv;
        bool own_stdin;
        int stdout_fd;
        bool new_session;
};

/* Stderr is passed on as it arrives, unless quiet; stdout is kept up to OUT_MAX. */
static void on_output(enum child_stream stream, const char *buf, size_t n, void *userdata) {
        struct run_io *io = userdata;
        struct run_result *res = io->res;

        if (stream == CHILD_STDERR) {
                if (!io->quiet)
                        (void) !write(STDERR_FILENO, buf, n);
                tail_append(res, buf, n);
        } else if (io->out_len + n <= OUT_MAX) {
                char *o = realloc(res->out, io->out_len + n + 1);
                if (o) {
                        memcpy(o + io->out_len, buf, n);
                        io->out_len += n;
                        o[io->out_len] = '\0';
                        res->out = o;
                }
        }
}

static int spawn_prefix(int stdout_fd, int stderr_fd, pid_t *ret_pid, void *userdata) {
        const struct run_io *io = userdata;
        struct spawn_opts o = SPAWN_OPTS_INIT;

        o.argv = io->argv;
        /* The prefix is the caller's own tool (ssh keys, container engine
         * settings): it gets the caller's environment. */
        o.envp = environ;
        o.stdin_fd = io->own_stdin ? STDIN_FILENO : -1;
        o.stdout_fd = stdout_fd >= 0 ? stdout_fd : io->stdout_fd;
        o.stderr_fd = stderr_fd;
        o.new_session = io->new_session;
        o.pdeathsig = true;
        return spawn(&o, ret_pid);
}

int remote_run(char **argv, bool own_stdin, bool capture, int stdout_fd, unsigned timeout_s, struct run_result *res) {
        struct run_io io = {
                .res = res,
                .quiet = capture,
                .argv = argv,
                .own_stdin = own_stdin,
                .stdout_fd = stdout_fd,
                .new_session = timeout_s > 0,
        };
        const struct child_deadline d = {
                .timeout_usec = (unsigned long long) timeout_s * 1000000ULL,
                .grace_usec = KILL_GRACE_USEC,
                .group = timeout_s > 0,
                .forward_signals = true,
                .read_stdout = capture,
                .read_stderr = true,
                .on_output = on_output,
                .userdata = &io,
        };
        struct child_deadline_result cr;
        int r;

        *res = (struct run_result) {};
        r = child_deadline_run(&d, spawn_prefix, &io, &cr);
        if (r < 0 && r != -ETIME)
                return r;
        res->timed_out = cr.timed_out;
        res->signaled = cr.signaled || cr.status < 0;
        res->status = cr.status < 0 ? 128 + SIGKILL : cr.status;
        return 0;
}
