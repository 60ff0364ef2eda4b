/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "agent.h"
#include "jsonrpc.h"
#include "server.h"

/*
 * `botdesk mcp P` on stdio with tasks (mcp/tasks.h): each task's tools/call
 * runs in a process of its own, forked from the server, with its own
 * connection to the desktop (the server's X connection stays the server's:
 * a wait reading its events would steal those of the next action), and
 * answers it as a 2026 request without the extension would be answered,
 * on a pipe. The server's one loop polls standard input, every task's
 * pipe and every subscription's (mcp-subs.h), so tasks/get answers while
 * the waits go on; tasks/cancel and
 * expiry kill the process (and, for ask_human, withdraw the request for
 * control as a declined hand-off does).
 */

/*
 * Serve s (a's desktop) on rd until the end of standard input: each line
 * answered by fn as agent_serve_lines() does, tasks run alongside. A CLI
 * exit code.
 */
int mcp_serve_stdio(struct agent *a, struct jsonrpc_reader *rd, struct mcp_server *s);

/* The start of a task's or a subscription's process, forked from server: signals unblocked, killed with the
 * server, standard input and output /dev/null. Returns only when all of that holds. */
void mcp_child_begin(pid_t server);

/* A child of the server with a pipe to it: in the server, the child's pid and the pipe's read end (non-blocking);
 * in the child, 0 and the write end; -errno when either could not be made. */
pid_t mcp_child_fork(int *ret_fd);

/* The child's end waited for (EINTR retried), its status into *ret_status unless NULL. */
void mcp_child_reap(pid_t pid, int *ret_status);
