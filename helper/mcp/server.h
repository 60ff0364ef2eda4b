/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "coords.h"
#include "tools.h"
#include "json.h"
#include "util.h"

/*
 * botdesk's MCP server, the protocol alone: initialize (the version the
 * client asks for when it is one of MCP_PROTOCOL_VERSIONS, else the
 * newest), ping, tools/list and tools/call; notifications are taken and
 * answered by nothing. What a tool does is the backend's: the server hands
 * it the tool's name and arguments and a result to fill, so the same
 * server runs on a desktop (cli/verb-mcp.c) and in the unit tests.
 */

#define MCP_SERVER_NAME "botdesk"

/* A tool's result: content items (text, image) and whether it is an error. */
struct mcp_result {
        FILE *f;                        /* the content array's items, written through j */
        char *buf;
        size_t size;
        struct json j;
        bool is_error;
};

void mcp_result_text(struct mcp_result *res, const char *text);
void mcp_result_textf(struct mcp_result *res, const char *fmt, ...) _printf_(2, 3);
/* An image item, data already base64. */
void mcp_result_image(struct mcp_result *res, const char *mime, const char *base64);
/* An error result (isError: true) with text, which names what to do instead. */
void mcp_result_error(struct mcp_result *res, const char *text);

struct mcp_backend {
        /* The coordinate space the agent's pictures are in (for the tool descriptions). */
        void (*space)(void *userdata, struct mcp_space *ret);
        /* Run tool with args (an object, or NULL) into res. Negative: an
         * internal failure, reported as a JSON-RPC error; a refused or
         * failed action is a result with is_error set, returning 0. */
        int (*call)(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res);
};

struct mcp_server {
        const struct mcp_backend *backend;
        void *userdata;
        struct mcp_tool_set tools;      /* which screen tools it offers (tools.h); all after init */
        char version[16];               /* negotiated; empty before initialize */
};

void mcp_server_init(struct mcp_server *s, const struct mcp_backend *backend, void *userdata);

/*
 * One message (a line of the stream): its response, if it gets one, is
 * written to out as one line. Malformed JSON is -32700, a message that is
 * not a request -32600, an unknown method -32601, bad params -32602.
 * Returns 0, or -ENOMEM.
 */
int mcp_server_handle(struct mcp_server *s, const char *line, size_t len, FILE *out);

/* The response to a line that was too long to read (jsonrpc_read_line's -EMSGSIZE). */
void mcp_server_oversized(FILE *out);

/* The versions of the protocol the server speaks, newest first, NULL-terminated. */
extern const char *const mcp_protocol_versions[];
