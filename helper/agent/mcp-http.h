/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "agent.h"
#include "server.h"

/*
 * MCP's Streamable HTTP for botdesk mcp --listen unix:PATH: POST /mcp (or
 * /) with one JSON-RPC message, answered as JSON; GET, DELETE and the rest
 * 405 (2026-07-28 has no stream to GET and no session to DELETE); a body
 * that is not application/json 415, over 1 MiB 413. Each request stands
 * alone (mcp_server_handle_http()). At most 8 connections at once, each
 * closed after 30 s without a byte; a peer of another uid is refused.
 */

/*
 * The listening socket for spec "unix:PATH" (mode 0600, in a directory only
 * this user can enter; a socket left there by a server that is gone is
 * replaced, a live one is not). Returns the fd and the path in *ret_path,
 * or -errno, said.
 */
int mcp_http_listen(const char *spec, char **ret_path);

/* Where mcp_http_serve() finds its connections. */
enum mcp_http_from {
        MCP_HTTP_ONE,           /* fd is the one connection (inetd's way, Accept=yes) */
        MCP_HTTP_LISTEN,        /* fd listens: accept() them */
        MCP_HTTP_HANDED,        /* fd is a SOCK_SEQPACKET socket each message of which hands one over (SCM_RIGHTS) */
};

/*
 * Serves s on the connections fd gives (from) until SIGINT, SIGTERM or
 * SIGHUP; until the desktop's X server ends, and then its open streams
 * have (their subscriptions say their end first): EXIT_NOT_RUNNING; or
 * until fd's own end: the one connection closed (MCP_HTTP_ONE), the
 * hander's side closed (MCP_HTTP_HANDED).
 * botdesk web hands its MCP clients' requests to `botdesk mcp P --listen
 * stdio`: each to a process of its own (MCP_HTTP_ONE), but those whose work
 * outlives their request (tasks, subscriptions) to one process per desktop
 * that it keeps (MCP_HTTP_HANDED). Tasks are offered but with MCP_HTTP_ONE.
 * Returns an exit code.
 */
int mcp_http_serve(struct mcp_server *s, struct agent *a, enum mcp_http_from from, int fd);
