/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * One runner of a child with a deadline: the caller starts the child (its
 * own way: argv, environment, session), the runner reads its output as it
 * comes and waits for it on one poll() of a pidfd, the child's pipes and,
 * when asked, a signalfd of the signals it passes on. At the deadline the
 * child (its process group, when it leads one) gets SIGTERM, a grace later
 * SIGKILL, and a grace after that the runner stops waiting: what is left
 * may run as another user (sudo), out of our reach.
 *
 * Once the child has exited, what its pipes already hold is read and the
 * runner returns: a grandchild that keeps them open is not waited for.
 */

enum child_stream {
        CHILD_STDOUT = 1,
        CHILD_STDERR = 2,
};

/*
 * Start the child with stdout_fd / stderr_fd (the write ends of the
 * runner's pipes, or -1 for a stream the runner does not read: the child's
 * is then the callback's choice) and hand its pid out; -errno. The runner
 * closes the write ends afterwards. Signals the runner forwards are blocked
 * during the call: the child must start with its mask reset.
 */
typedef int (*child_spawn_fn)(int stdout_fd, int stderr_fd, pid_t *ret_pid, void *userdata);

/* Each chunk the child wrote, as it is read (stderr merged into stdout when asked). */
typedef void (*child_output_fn)(enum child_stream stream, const char *buf, size_t n, void *userdata);

struct child_deadline {
        unsigned long long timeout_usec;   /* 0: no deadline */
        unsigned long long grace_usec;     /* from SIGTERM to SIGKILL, and from SIGKILL to giving up */
        bool group;                        /* the child leads its own process group: signal the group */
        bool forward_signals;              /* SIGINT, SIGTERM and SIGHUP sent to us go on to the child */
        bool read_stdout, read_stderr;     /* a pipe for each, read into on_output */
        bool merge_stderr;                 /* with read_stdout: stderr into the same pipe */
        child_output_fn on_output;
        void *userdata;
};

/* The usual runner: the child leads its own process group, its stdout and stderr read as one stream. */
#define CHILD_DEADLINE_MERGED(timeout, grace, output_fn, data)                                                 \
        ((struct child_deadline) { .timeout_usec = (timeout), .grace_usec = (grace), .group = true,           \
                                   .read_stdout = true, .read_stderr = true, .merge_stderr = true,              \
                                   .on_output = (output_fn), .userdata = (data) })

struct child_deadline_result {
        int status;             /* exit code; 128+N when killed by signal N; -1 when never reaped */
        bool signaled;
        bool timed_out;
};

/*
 * Run the child spawn_fn starts under d. 0 when it ended before the
 * deadline, -ETIME when the deadline passed (ret->status says how it ended,
 * -1 when it outlived even SIGKILL's grace), other -errno when it could not
 * be started or watched (then it is killed and reaped if it was started).
 */
int child_deadline_run(const struct child_deadline *d, child_spawn_fn spawn_fn, void *spawn_data,
                       struct child_deadline_result *ret);
