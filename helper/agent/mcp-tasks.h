/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <poll.h>
#include <stdio.h>
#include <sys/types.h>

#include "agent.h"
#include "jsonrpc.h"
#include "server.h"

/*
 * Tasks of `botdesk mcp P` (mcp/tasks.h), on stdio and on an HTTP socket
 * of its own: each task's tools/call runs in a process of its own, forked
 * from the server, with its own connection to the desktop (the server's X
 * connection stays the server's: a wait reading its events would steal
 * those of the next action), and answers it as a 2026 request without the
 * extension would be answered, on a pipe. The server's one loop polls its
 * input (standard input, or its clients' connections), every task's pipe
 * and every subscription's (mcp-subs.h), so tasks/get answers while the
 * waits go on; tasks/cancel and expiry kill the process (and, for
 * ask_human, withdraw the request for control as a declined hand-off does).
 */

/*
 * The tasks (and, with subscriptions, the subscriptions) of one long-lived
 * server of a's desktop, for its poll loop: stdio's, and the HTTP server on
 * a socket of its own (--listen unix:), whose table serves tasks/get from
 * any of its connections. s->tasks (and s->subs) point into it until
 * mcp_task_host_free(), which ends every task's and subscription's process.
 */
#define MCP_TASK_HOST_FDS_MAX (MCP_TASKS_MAX + MCP_SUBS_MAX)
struct mcp_task_host;
struct mcp_task_host *mcp_task_host_new(struct agent *a, struct mcp_server *s, bool subscriptions);
void mcp_task_host_free(struct mcp_task_host *h, struct mcp_server *s);
/* Its pipes to poll for POLLIN, written at p (room for MCP_TASK_HOST_FDS_MAX): how many. */
size_t mcp_task_host_fds(struct mcp_task_host *h, struct pollfd *p);
/* After the poll, p as mcp_task_host_fds() filled it: the readable pipes read (a subscription's lines copied
 * to out), expired tasks dropped. */
void mcp_task_host_dispatch(struct mcp_task_host *h, const struct pollfd *p, FILE *out);
/* The poll's timeout until the next task expires, in ms; -1 for none. */
int mcp_task_host_timeout(const struct mcp_task_host *h);

/*
 * Serve s (a's desktop) on rd until the end of standard input: each line
 * answered by fn as agent_serve_lines() does, tasks run alongside. A CLI
 * exit code.
 */
int mcp_serve_stdio(struct agent *a, struct jsonrpc_reader *rd, struct mcp_server *s);

/* The start of a task's or a subscription's process, forked from server: signals unblocked, killed with the
 * server, standard input and output /dev/null, every other fd of the server's closed but keep_fd (its pipe, above
 * stderr). Returns only when all of that holds. */
void mcp_child_begin(pid_t server, int keep_fd);

/* A child of the server with a pipe to it: in the server, the child's pid and the pipe's read end (non-blocking);
 * in the child, 0 and the write end; -errno when either could not be made. */
pid_t mcp_child_fork(int *ret_fd);

/* The child's end waited for (EINTR retried), its status into *ret_status unless NULL. */
void mcp_child_reap(pid_t pid, int *ret_status);
