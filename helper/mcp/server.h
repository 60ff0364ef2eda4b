/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "coords.h"
#include "tools.h"
#include "json.h"
#include "mcp-wire.h"
#include "resources.h"
#include "subscriptions.h"
#include "tasks.h"
#include "util.h"

/*
 * botdesk's MCP server, the protocol alone, in both revisions a client may
 * speak: 2025-11-25 and older (initialize with the version the client
 * asks for when it is one of mcp_protocol_versions, else the newest;
 * ping), and the stateless 2026-07-28 (no initialize: every request
 * carries its version and the client's capabilities in params._meta;
 * server/discover; every result says resultType and the server's
 * identity). tools/list, tools/call and the resources/ methods in both;
 * notifications are taken and answered by nothing. The tools are a table of rows (tools.h) whose
 * handlers fill a result, so the same server runs on a desktop
 * (agent/mcp-tools.c) and in the unit tests.
 */

#define MCP_SERVER_NAME "botdesk"

/* A tool's result: content items (text, image) and whether it is an error. */
/*
 * The tools/call a tool runs for. Under 2026-07-28 a tool may answer with
 * input requests instead of a result (mcp_result_input_required(): MRTR):
 * the client fulfils them (an elicitation of its user, say) and calls
 * again with their answers in inputResponses and the opaque requestState
 * echoed back, which the tool must verify as attacker-controlled input.
 */
struct mcp_call {
        bool modern;                                    /* a 2026-07-28 request */
        const struct json_value *client_capabilities;   /* its envelope's, or NULL */
        const struct json_value *input_responses;       /* params.inputResponses (an object), or NULL */
        const char *request_state;                      /* params.requestState, or NULL */
};

struct mcp_result {
        FILE *f;                        /* the content array's items, written through j */
        char *buf;
        size_t size;
        struct json j;
        bool is_error;
        const struct mcp_call *call;
        char *input_requests;           /* set by mcp_result_input_required() */
        char *request_state;
};

/* Answer with input requests (a JSON object, key -> embedded request) and the state to echo; both taken. */
void mcp_result_input_required(struct mcp_result *res, char *input_requests, char *request_state);
/* Whether the client declared capability name (e.g. "elicitation") in this 2026 request's envelope. */
bool mcp_call_client_can(const struct mcp_call *call, const char *name);
/* Whether it declared the extension name (e.g. MCP_TASKS_EXTENSION) among the capabilities' extensions. */
bool mcp_call_client_extends(const struct mcp_call *call, const char *name);

void mcp_result_text(struct mcp_result *res, const char *text);
void mcp_result_textf(struct mcp_result *res, const char *fmt, ...) _printf_(2, 3);
/* An image item, data already base64. */
void mcp_result_image(struct mcp_result *res, const char *mime, const char *base64);
/* Content an agent sent in base64 (RFC 4648, padded or not), decoded into
 * *ret (new): -EINVAL when it is not base64, -EFBIG past max bytes. */
int mcp_base64_decode(const char *b64, size_t max, uint8_t **ret, size_t *ret_size);
/* An embedded resource item: a file's bytes (base64) under uri, with its MIME type. */
void mcp_result_blob(struct mcp_result *res, const char *uri, const char *mime, const char *base64);
/* An error result (isError: true) with text, which names what to do instead. */
void mcp_result_error(struct mcp_result *res, const char *text);
void mcp_result_errorf(struct mcp_result *res, const char *fmt, ...) _printf_(2, 3);
/* The same with message (taken, freed): 0, or -ENOMEM for a NULL message (a strdup_printf() that failed). */
int mcp_result_error_take(struct mcp_result *res, char *message);

struct mcp_backend {
        /* The coordinate space the agent's pictures are in (for the tool descriptions). */
        void (*space)(void *userdata, struct mcp_space *ret);
        /* Before a tool flagged MCP_TOOL_ACTS runs (args an object, or
         * NULL): false, with res an error result, when args' "epoch" is
         * not one, and the tool does not run. NULL: nothing to check. */
        bool (*acts)(void *userdata, const struct json_value *args, struct mcp_result *res);
        /* resources/read of one MCP_RESOURCE_* (resources.h) into *ret: 0 (a refusal is contents that say
         * so), or -errno. NULL: the server has no resources. */
        int (*read_resource)(void *userdata, unsigned one, struct mcp_resource_contents *ret);
};

/*
 * Each row's handler (tools.h) runs the tool. Negative: an internal
 * failure, reported as a JSON-RPC error; a refused or failed action is a
 * result with is_error set, returning 0.
 */
struct mcp_server {
        const struct mcp_backend *backend;
        void *userdata;
        struct mcp_tool_table tools;    /* the rows, and which are offered (tools.h) */
        const char *profile;            /* its resources' (resources.h); NULL: none */
        unsigned era;                   /* 0 until a request says; then 2025 or 2026 (server.c) */
        char version[16];               /* negotiated, or the 2026 requests'; empty before either */
        /* Where MCP_TOOL_LONG rows run as tasks (tasks.h) for a 2026 client that declared the extension;
         * NULL: they run inside their request, and the extension is not offered. */
        struct mcp_tasks *tasks;
        /* Where subscriptions/listen is served (subscriptions.h): stdio's; NULL: the method is not found. */
        struct mcp_subs *subs;
};

/* With the rows of tools (n of them), all offered until s->tools.set says otherwise. */
void mcp_server_init(struct mcp_server *s, const struct mcp_backend *backend, const struct mcp_tool *tools, size_t n,
                     void *userdata);

/*
 * One message (a line of the stream): its response, if it gets one, is
 * written to out as one line. Malformed JSON is -32700, a message that is
 * not a request -32600, an unknown method -32601, bad params -32602.
 * Returns 0, or -ENOMEM.
 */
int mcp_server_handle(struct mcp_server *s, const char *line, size_t len, FILE *out);

/* What an HTTP request says beside its body (Streamable HTTP): each NULL when absent. */
struct mcp_http_headers {
        const char *protocol_version;   /* MCP-Protocol-Version */
        const char *method;             /* Mcp-Method */
        const char *name;               /* Mcp-Name */
};

/*
 * One HTTP request's body, as mcp_server_handle() a line but stateless:
 * each request stands alone (a 2025 one needs no initialize before it),
 * and a 2026 one's headers must agree with its body (-32020). The
 * response, if any, to out; *ret_status its HTTP status: 200, 202 (a
 * notification: no body), 400 (refused before any method ran: not JSON,
 * not a request, the envelope or the headers), 404 (no such method).
 */
int mcp_server_handle_http(struct mcp_server *s, const char *body, size_t len, const struct mcp_http_headers *h,
                           FILE *out, unsigned *ret_status);

/* The response to a line that was too long to read (jsonrpc_read_line's -EMSGSIZE). */
void mcp_server_oversized(FILE *out);

/* The versions of the protocol initialize negotiates, newest first, NULL-terminated. */
extern const char *const mcp_protocol_versions[];
/* The stateless revisions (2026-07-28 and later) a request's _meta may name, NULL-terminated. */
extern const char *const mcp_modern_versions[];

enum {
        MCP_ERROR_HEADER_MISMATCH = -32020,     /* an HTTP header that disagrees with the body */
        MCP_ERROR_UNSUPPORTED_VERSION = -32022, /* data: {"supported": [...], "requested": V} */
};
