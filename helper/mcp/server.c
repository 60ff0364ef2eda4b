/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP methods over JSON-RPC (server.h). Protocol errors are JSON-RPC
 * errors; a tool that fails is a result with isError, as the specification
 * asks, so that the model reads why.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "botdesk-config.h"
#include "jsonrpc.h"
#include "server.h"
#include "tools.h"
#include "util.h"

const char *const mcp_protocol_versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };

void mcp_server_init(struct mcp_server *s, const struct mcp_backend *backend, const struct mcp_tool *tools, size_t n,
                     void *userdata) {
        *s = (struct mcp_server) {
                .backend = backend,
                .userdata = userdata,
                .tools = { .rows = tools, .n = n, .set = { .kind = MCP_TOOLS_BOTH } },
        };
}

void mcp_result_text(struct mcp_result *res, const char *text) {
        json_object_begin(&res->j);
        json_kv_string(&res->j, "type", "text");
        json_kv_string(&res->j, "text", text);
        json_object_end(&res->j);
}

void mcp_result_textf(struct mcp_result *res, const char *fmt, ...) {
        _cleanup_free_ char *t = NULL;
        va_list ap;

        va_start(ap, fmt);
        t = strdup_vprintf(fmt, ap);
        va_end(ap);
        mcp_result_text(res, t ?: "(out of memory)");
}

void mcp_result_image(struct mcp_result *res, const char *mime, const char *base64) {
        json_object_begin(&res->j);
        json_kv_string(&res->j, "type", "image");
        json_kv_string(&res->j, "data", base64);
        json_kv_string(&res->j, "mimeType", mime);
        json_object_end(&res->j);
}

void mcp_result_error(struct mcp_result *res, const char *text) {
        res->is_error = true;
        mcp_result_text(res, text);
}

/* The result object built in memory, then written as the response's result. */
typedef void (*result_fn)(struct mcp_server *s, const struct json_value *params, struct json *j);

static int respond(struct mcp_server *s, const struct json_value *id, const struct json_value *params, result_fn fn,
                   FILE *out) {
        _cleanup_free_ char *buf = NULL;
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return -ENOMEM;
        fn(s, params, &m.j);
        if (json_mem_close(&m, &buf) < 0)
                return -ENOMEM;
        jsonrpc_write_result(out, id, buf);
        return 0;
}

static const char *negotiate(const struct json_value *params) {
        const struct json_value *v = json_get(params, "protocolVersion");

        /* The client's when we speak it; else our newest, and the client decides whether to go on. */
        for (size_t i = 0; v && v->type == JSON_STRING && mcp_protocol_versions[i]; i++)
                if (streq(v->string, mcp_protocol_versions[i]))
                        return mcp_protocol_versions[i];
        return mcp_protocol_versions[0];
}

static void initialize_result(struct mcp_server *s, const struct json_value *params, struct json *j) {
        const char *v = negotiate(params);

        snprintf(s->version, sizeof s->version, "%s", v);
        json_object_begin(j);
        json_kv_string(j, "protocolVersion", v);
        json_key(j, "capabilities");
        json_object_begin(j);
        json_key(j, "tools");
        json_object_begin(j);
        json_kv_bool(j, "listChanged", false);
        json_object_end(j);
        json_object_end(j);
        json_key(j, "serverInfo");
        json_object_begin(j);
        json_kv_string(j, "name", MCP_SERVER_NAME);
        json_kv_string(j, "version", BOTDESK_VERSION);
        json_object_end(j);
        json_kv_string(j, "instructions",
                       "A private desktop. Use the computer tool; coordinates are pixels of its screenshots. "
                       "When a human has control, actions are refused: wait, then try again.");
        json_object_end(j);
}

static void empty_result(struct mcp_server *s, const struct json_value *params, struct json *j) {
        json_object_begin(j);
        json_object_end(j);
}

static void tools_list_result(struct mcp_server *s, const struct json_value *params, struct json *j) {
        struct mcp_space space = {};

        s->backend->space(s->userdata, &space);
        json_object_begin(j);
        json_key(j, "tools");
        json_array_begin(j);
        mcp_tools_write(j, &space, &s->tools);
        json_array_end(j);
        json_object_end(j);
}

static int tools_call(struct mcp_server *s, const struct json_value *id, const struct json_value *params, FILE *out) {
        const struct json_value *name = json_get(params, "name"), *args = json_get(params, "arguments");
        const struct mcp_tool *tool;
        _cleanup_free_ char *text = NULL;
        struct mcp_result res = {};
        int r;

        if (!name || name->type != JSON_STRING) {
                jsonrpc_write_error(out, id, JSONRPC_INVALID_PARAMS, "tools/call needs params.name, a string.");
                return 0;
        }
        if (args && args->type != JSON_OBJECT && args->type != JSON_NULL) {
                jsonrpc_write_error(out, id, JSONRPC_INVALID_PARAMS, "tools/call's params.arguments must be an object.");
                return 0;
        }
        tool = mcp_tool_find(&s->tools, name->string);
        if (!tool) {
                _cleanup_free_ char *list = mcp_tool_names(&s->tools);

                text = strdup_printf("Unknown tool \"%s\"; the tools are %s.", name->string, list ?: "in tools/list");
                jsonrpc_write_error(out, id, JSONRPC_INVALID_PARAMS, text ?: "Unknown tool.");
                return 0;
        }
        res.f = open_memstream(&res.buf, &res.size);
        if (!res.f)
                return -ENOMEM;
        json_init(&res.j, res.f);
        if (args && args->type != JSON_OBJECT)
                args = NULL;
        if (!(tool->flags & MCP_TOOL_ACTS) || !s->backend->acts || s->backend->acts(s->userdata, args, &res))
                r = tool->call(s->userdata, name->string, args, &res);
        else
                r = 0;
        if (fclose(res.f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(res.buf);
                jsonrpc_write_error(out, id, JSONRPC_INTERNAL_ERROR, "The tool failed inside botdesk; see its log.");
                return r == -ENOMEM ? r : 0;
        }
        /* {"content": [ITEMS], "isError": B}: the items were written as a list of values. */
        text = strdup_printf("{\"content\": [%s], \"isError\": %s}", res.buf ?: "", res.is_error ? "true" : "false");
        free(res.buf);
        if (!text)
                return -ENOMEM;
        jsonrpc_write_result(out, id, text);
        return 0;
}

int mcp_server_handle(struct mcp_server *s, const char *line, size_t len, FILE *out) {
        struct json_value *msg = NULL;
        const struct json_value *id, *method, *params, *version;
        int r;

        r = json_parse(line, len, &msg);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                jsonrpc_write_error(out, NULL, JSONRPC_PARSE_ERROR, "Parse error: the line is not one JSON value.");
                return 0;
        }
        id = json_get(msg, "id");
        method = json_get(msg, "method");
        params = json_get(msg, "params");
        version = json_get(msg, "jsonrpc");
        if (msg->type != JSON_OBJECT || !version || version->type != JSON_STRING || !streq(version->string, "2.0") ||
            (id && id->type != JSON_STRING && id->type != JSON_NUMBER) ||
            (params && params->type != JSON_OBJECT && params->type != JSON_ARRAY)) {
                jsonrpc_write_error(out, id && (id->type == JSON_STRING || id->type == JSON_NUMBER) ? id : NULL,
                                    JSONRPC_INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message.");
                goto done;
        }
        if (!method) {
                /* A response to a request of ours: the server sends none, so there is nothing to match. */
                goto done;
        }
        if (method->type != JSON_STRING) {
                jsonrpc_write_error(out, id, JSONRPC_INVALID_REQUEST, "Invalid request: method must be a string.");
                goto done;
        }
        if (!id)
                /* A notification (notifications/initialized, cancelled, ...): never answered. */
                goto done;
        if (streq(method->string, "initialize"))
                r = respond(s, id, params, initialize_result, out);
        else if (streq(method->string, "ping"))
                r = respond(s, id, params, empty_result, out);
        else if (streq(method->string, "tools/list"))
                r = respond(s, id, params, tools_list_result, out);
        else if (streq(method->string, "tools/call")) {
                if (!params || params->type != JSON_OBJECT)
                        jsonrpc_write_error(out, id, JSONRPC_INVALID_PARAMS, "tools/call needs params {name, arguments}.");
                else
                        r = tools_call(s, id, params, out);
        } else {
                _cleanup_free_ char *m = strdup_printf("Method not found: %s.", method->string);
                jsonrpc_write_error(out, id, JSONRPC_METHOD_NOT_FOUND, m ?: "Method not found.");
        }
done:
        json_value_free(msg);
        return r == -ENOMEM ? r : 0;
}

void mcp_server_oversized(FILE *out) {
        jsonrpc_write_error(out, NULL, JSONRPC_INVALID_REQUEST, "The message is longer than 1 MiB; it was dropped.");
}
