/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/*
 * Running an exec prefix's command (ssh, podman exec, ...) for a verb placed
 * elsewhere, on the one runner of a child with a deadline
 * (shared/child-deadline.h).
 */

#define ERR_TAIL_MAX 2048U

struct run_result {
        int status;            /* exit code; 128+N when killed by signal N */
        bool signaled;
        bool timed_out;
        char err[ERR_TAIL_MAX + 1];  /* the last bytes of its stderr */
        size_t err_len;
        char *out;             /* stdout, when captured */
};

void run_result_done(struct run_result *r);

/* The last component of a prefix's program ("podman" of /usr/bin/podman). */
static inline const char *remote_program_name(const char *path) {
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}

/*
 * Runs argv (argv[0] a path) with stdin and stdout ours (stdin /dev/null
 * when !own_stdin; stdout captured, and stderr kept to ourselves, when
 * capture; stdout_fd instead when >= 0), stderr passed on and its tail
 * kept. With a timeout, the child gets its own session, and at the deadline
 * its whole process group is sent SIGTERM, then SIGKILL 2 s later. SIGINT,
 * SIGTERM and SIGHUP sent to us go on to the child. 0 with *res filled
 * (release it with run_result_done()), -errno when it could not run.
 */
int remote_run(char **argv, bool own_stdin, bool capture, int stdout_fd, unsigned timeout_s, struct run_result *res);
