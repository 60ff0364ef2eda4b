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

/*
 * Serves s on listen_fd until SIGINT, SIGTERM or SIGHUP, or the X
 * connection breaks; or, with listen_fd -1, on the one connection conn_fd
 * (inetd's way: botdesk web hands its MCP clients' requests to
 * `botdesk mcp P --listen stdio`) until it closes. Returns an exit code.
 */
int mcp_http_serve(struct mcp_server *s, struct agent *a, int listen_fd, int conn_fd);
