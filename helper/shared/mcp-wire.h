/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * MCP's names on the wire that more than the protocol's own part reads:
 * mcp/ speaks the protocol, and botdesk web (web/, which may not reach
 * mcp/) looks at a request's envelope to choose the process that serves
 * it (web-mcp.c).
 */

/* The _meta keys of a 2026 request's envelope, and of the server's identity in each result. */
#define MCP_META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"
#define MCP_META_CLIENT_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define MCP_META_CLIENT_INFO "io.modelcontextprotocol/clientInfo"
#define MCP_META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

/* The Tasks extension's name among the capabilities' extensions (mcp/tasks.h). */
#define MCP_TASKS_EXTENSION "io.modelcontextprotocol/tasks"
