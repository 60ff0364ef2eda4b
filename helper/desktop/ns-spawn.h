/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "spawn.h"

/*
 * A checkpointable desktop runs in namespaces of its own (PID and IPC), so
 * that its whole tree can be dumped and restored as one: every process of it
 * must descend from the namespaces' pid 1, botdesk-ns-init. The helper has
 * its children started there, and learns of their ends, over two
 * SOCK_SEQPACKET sockets, the init's fds 3 and 4:
 *
 *   3, requests: one message per child, a spawn_opts with its fds
 *      (SCM_RIGHTS), answered in order with the error or the child's pid in
 *      the namespace, and its pidfd;
 *   4, events, as they happen: a child reaped.
 *
 * A checkpoint cannot dump a connection whose other end is outside the tree,
 * so before one the helper detaches: the init closes 3 and 4 and lives on
 * alone, keeping the ends it reaps meanwhile, until a helper (the same, or
 * the next after a restore) connects to fd 5 and hands it two new sockets.
 * Without a detach, 3 closing means the helper died: the init kills the
 * namespace.
 *
 * The init trusts its requests (only the helper holds the other ends); the
 * parsing still refuses what it did not expect, and says so.
 */

#define NS_INIT_REQUEST_FD 3
#define NS_INIT_EVENT_FD 4
/* Optional: a listening SOCK_SEQPACKET socket (RUNTIME/ns-init.sock) on
 * which a detached init takes its next helper (ns_reattach_send()). */
#define NS_INIT_LISTEN_FD 5
#define NS_INIT_SOCKET "ns-init.sock"

/* The largest request: argv and environment together. */
#define NS_SPAWN_MESSAGE_MAX (256u * 1024u)

/* What the init received: opts points into the request's own storage. */
struct ns_spawn_request {
        struct spawn_opts opts;
        char **argv, **envp;
        char *buf;
        int fds[6];
        size_t n_fds;
};

void ns_spawn_request_done(struct ns_spawn_request *r);

/* The request for o (its argv, envp, cwd, cgroup, session and SIGUSR1
 * settings, stdio, keep_fd at its own number, pipe_fds); not clone_flags,
 * not pdeathsig (the namespace ends with its init). */
int ns_spawn_request_send(int sock, const struct spawn_opts *o);
enum ns_request_kind {
        NS_REQUEST_SPAWN = 1,  /* *ret holds the request */
        NS_REQUEST_DETACH = 2, /* nothing in *ret */
};

/* The next request: its kind; -EPIPE when the helper has gone, -EBADMSG for
 * a malformed one. */
int ns_spawn_request_recv(int sock, struct ns_spawn_request *ret);

/* error: 0, or the -errno of the spawn; pidfd: the child's, or -1. */
int ns_spawn_answer_send(int sock, int error, pid_t pid, int pidfd);
/* The answer: the spawn's -errno, or 0 with the child's pid in the
 * namespace and its pidfd (may be -1: a kernel without pidfds). */
int ns_spawn_answer_recv(int sock, pid_t *ret_pid, int *ret_pidfd);

/* The request and its answer, within timeout_usec. */
int ns_spawn(int sock, const struct spawn_opts *o, unsigned long long timeout_usec, pid_t *ret_pid,
             int *ret_pidfd);

/* The helper's side of a detach: the request and its answer, within
 * timeout_usec. The init closes its ends once it has answered. */
int ns_detach(int sock, unsigned long long timeout_usec);
int ns_detach_answer_send(int sock);

/* A new helper's two sockets (their init's ends) handed to a detached init
 * over a connection to its fd 5, and their receiving there. */
int ns_reattach_send(int conn, int request_fd, int event_fd);
int ns_reattach_recv(int conn, int *ret_request_fd, int *ret_event_fd);

enum ns_event_type {
        NS_EVENT_EXITED = 1,  /* pid reaped: code is si_code, status si_status */
};

struct ns_event {
        uint32_t type;
        int32_t pid;
        int32_t code;
        int32_t status;
};

int ns_event_send(int sock, const struct ns_event *ev);
/* 0 and the event, -EAGAIN for none yet, -EPIPE at the init's end, -EBADMSG. */
int ns_event_recv(int sock, struct ns_event *ret);
