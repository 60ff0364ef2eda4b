/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <poll.h>
#include <stdio.h>
#include <sys/types.h>

#include "agent.h"
#include "subscriptions.h"
#include "util.h"

/*
 * The subscriptions of `botdesk mcp P` on stdio (mcp/subscriptions.h): each
 * a process (mcp-listen.c) with its own connection to the desktop, writing
 * whole JSON-RPC lines to a pipe that the server's one poll loop
 * (mcp-tasks.c) reads and copies to its output between its own answers.
 * Cancelled, the process is killed and what it had written but the server
 * had not copied is dropped: nothing of a subscription follows its
 * cancellation.
 */

/* The runner; its userdata the struct agent of the server (the profile's). */
extern const struct mcp_sub_runner mcp_sub_processes;

/* The pipe of sub's process to poll for POLLIN, or -EBADF. */
int mcp_sub_fd(const struct mcp_sub *sub);

/* What sub's process wrote since the last call, its whole lines copied to out; when it ended, the subscription
 * ended on out (mcp_subs_end()) and freed. */
void mcp_sub_pump(struct mcp_subs *ss, struct mcp_sub *sub, FILE *out);

/* The process's body: watch what sub asks of profile's desktop, the acknowledgment and notifications to fd. */
_noreturn_ void mcp_listen_child(const char *profile, const struct mcp_sub *sub, int fd, pid_t server);
