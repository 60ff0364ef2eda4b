/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP methods over JSON-RPC (server.h). Protocol errors are JSON-RPC
 * errors; a tool that fails is a result with isError, as the specification
 * asks, so that the model reads why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "botdesk-config.h"
#include "jsonrpc.h"
#include "resources.h"
#include "server.h"
#include "tools.h"
#include "util.h"

const char *const mcp_protocol_versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };
const char *const mcp_modern_versions[] = { "2026-07-28", NULL };

void mcp_server_init(struct mcp_server *s, const struct mcp_backend *backend, const struct mcp_tool *tools, size_t n,
                     void *userdata) {
        *s = (struct mcp_server) {
                .backend = backend,
                .userdata = userdata,
                .tools = { .rows = tools, .n = n, .set = { .kind = MCP_TOOLS_BOTH } },
        };
}

/*
 * What a method's handler gives: the members of its result, written
 * through j, or a JSON-RPC error (code non-zero, message, and data when
 * it has some, already JSON).
 */
struct reply {
        struct json *j;
        int code;
        char *message;
        char *data;
        bool typed;             /* the method wrote its own resultType (input_required) */
};

enum {
        ERA_LEGACY = 1u << 0,           /* served to a client that initialized (or sent no _meta) */
        ERA_MODERN = 1u << 1,           /* served to a 2026-07-28 request */
        CACHEABLE = 1u << 2,            /* a 2026 result with cache hints (what the SDK's server adds) */
};

static int reply_error(struct reply *r, int code, char *message, char *data) {
        r->code = code;
        r->message = message;
        r->data = data;
        return message ? 0 : -ENOMEM;
}

static const char *negotiate(const struct json_value *params) {
        const struct json_value *v = json_get(params, "protocolVersion");

        /* The client's when we speak it; else our newest, and the client decides whether to go on. */
        for (size_t i = 0; v && v->type == JSON_STRING && mcp_protocol_versions[i]; i++)
                if (streq(v->string, mcp_protocol_versions[i]))
                        return mcp_protocol_versions[i];
        return mcp_protocol_versions[0];
}

static const char instructions[] =
        "A private desktop. Use the computer tool; coordinates are pixels of its screenshots. "
        "When a human has control, actions are refused: wait, then try again.";

static bool serves_resources(const struct mcp_server *s) {
        return s->profile && s->backend->read_resource;
}

/* modern: server/discover's, with the tasks and subscriptions the server runs (2026 alone has them). */
static void capabilities(struct json *j, const struct mcp_server *s, bool modern) {
        json_key(j, "capabilities");
        json_object_begin(j);
        json_key(j, "tools");
        json_object_begin(j);
        json_kv_bool(j, "listChanged", false);
        json_object_end(j);
        if (serves_resources(s)) {
                /* The desktop's resources (resources.h), whose changes subscriptions/listen sends. */
                json_key(j, "resources");
                json_object_begin(j);
                json_kv_bool(j, "listChanged", false);
                if (modern && s->subs)
                        json_kv_bool(j, "subscribe", true);
                json_object_end(j);
        }
        if (modern && s->tasks) {
                json_key(j, "extensions");
                json_object_begin(j);
                json_key(j, MCP_TASKS_EXTENSION);
                json_object_begin(j);
                json_object_end(j);
                json_object_end(j);
        }
        json_object_end(j);
}

static void server_info(struct json *j) {
        json_object_begin(j);
        json_kv_string(j, "name", MCP_SERVER_NAME);
        json_kv_string(j, "version", BOTDESK_VERSION);
        json_object_end(j);
}

static int initialize(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        const char *v = negotiate(params);

        snprintf(s->version, sizeof s->version, "%s", v);
        json_kv_string(r->j, "protocolVersion", v);
        capabilities(r->j, s, false);
        json_key(r->j, "serverInfo");
        server_info(r->j);
        json_kv_string(r->j, "instructions", instructions);
        return 0;
}

/* server/discover: every version botdesk serves, the 2026 ones first (mcp_protocol_versions' own are initialize's). */
static int discover(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        json_key(r->j, "supportedVersions");
        json_array_begin(r->j);
        for (size_t i = 0; mcp_modern_versions[i]; i++)
                json_string(r->j, mcp_modern_versions[i]);
        for (size_t i = 0; mcp_protocol_versions[i]; i++)
                json_string(r->j, mcp_protocol_versions[i]);
        json_array_end(r->j);
        capabilities(r->j, s, true);
        json_kv_string(r->j, "instructions", instructions);
        return 0;
}

static int ping(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        return 0;
}

static int tools_list(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        struct mcp_space space = {};

        s->backend->space(s->userdata, &space);
        json_key(r->j, "tools");
        json_array_begin(r->j);
        mcp_tools_write(r->j, &space, &s->tools);
        json_array_end(r->j);
        return 0;
}

/* A long tool's call to a client that follows tasks: the handle at once (resultType "task"), the work the runner's. */
static int task_create(struct mcp_server *s, const char *tool, const struct json_value *params, struct reply *r) {
        int k = mcp_tasks_call(s->tasks, tool, params, now_usec(), r->j);

        if (k == -ENOMEM)
                return k;
        if (k < 0)
                return reply_error(r, JSONRPC_INTERNAL_ERROR,
                                   strdup_printf("Cannot start %s as a task: %s.", tool, strerror(-k)), NULL);
        r->typed = k > 0;
        return 0;
}

static int tools_call(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        const struct json_value *name = json_get(params, "name"), *args = json_get(params, "arguments");
        const struct json_value *meta = json_get(params, "_meta"), *responses = json_get(params, "inputResponses");
        struct mcp_call call = {
                .modern = s->era == ERA_MODERN,
                .client_capabilities = json_get(meta, MCP_META_CLIENT_CAPABILITIES),
                .input_responses = responses && responses->type == JSON_OBJECT ? responses : NULL,
                .request_state = json_member_string(params, "requestState"),
        };
        const struct mcp_tool *tool;
        _cleanup_free_ char *text = NULL;
        struct mcp_result res = { .call = &call };
        int k;

        if (!params || params->type != JSON_OBJECT)
                return reply_error(r, JSONRPC_INVALID_PARAMS, strdup("tools/call needs params {name, arguments}."), NULL);
        if (!name || name->type != JSON_STRING)
                return reply_error(r, JSONRPC_INVALID_PARAMS, strdup("tools/call needs params.name, a string."), NULL);
        if (args && args->type != JSON_OBJECT && args->type != JSON_NULL)
                return reply_error(r, JSONRPC_INVALID_PARAMS,
                                   strdup("tools/call's params.arguments must be an object."), NULL);
        tool = mcp_tool_find(&s->tools, name->string);
        if (!tool) {
                _cleanup_free_ char *list = mcp_tool_names(&s->tools);

                return reply_error(r, JSONRPC_INVALID_PARAMS,
                                   strdup_printf("Unknown tool \"%s\"; the tools are %s.", name->string,
                                                 list ?: "in tools/list"),
                                   NULL);
        }
        if (call.modern && s->tasks && (tool->flags & MCP_TOOL_LONG) && mcp_call_client_extends(&call, MCP_TASKS_EXTENSION))
                return task_create(s, name->string, params, r);
        res.f = open_memstream(&res.buf, &res.size);
        if (!res.f)
                return -ENOMEM;
        json_init(&res.j, res.f);
        if (args && args->type != JSON_OBJECT)
                args = NULL;
        if (!(tool->flags & MCP_TOOL_ACTS) || !s->backend->acts || s->backend->acts(s->userdata, args, &res))
                k = tool->call(s->userdata, name->string, args, &res);
        else
                k = 0;
        if (fclose(res.f) != 0 && k >= 0)
                k = -ENOMEM;
        if (k >= 0 && call.modern && (res.input_requests || res.request_state)) {
                /* Input requests instead of a result: the client answers them and calls again. */
                json_kv_string(r->j, "resultType", "input_required");
                if (res.input_requests) {
                        json_key(r->j, "inputRequests");
                        json_raw(r->j, res.input_requests);
                }
                if (res.request_state)
                        json_kv_string(r->j, "requestState", res.request_state);
                r->typed = true;
        }
        free(res.input_requests);
        free(res.request_state);
        if (k < 0 || r->typed) {
                free(res.buf);
                if (k == -ENOMEM)
                        return k;
                if (k == -EBADMSG)
                        /* As the SDK's server: state that fails verification is bad params. */
                        return reply_error(r, JSONRPC_INVALID_PARAMS, strdup("Invalid or expired requestState."), NULL);
                if (k < 0)
                        return reply_error(r, JSONRPC_INTERNAL_ERROR,
                                           strdup("The tool failed inside botdesk; see its log."), NULL);
                return 0;
        }
        /* The items were written as a list of values. */
        text = strdup_printf("[%s]", res.buf ?: "");
        free(res.buf);
        if (!text)
                return -ENOMEM;
        json_key(r->j, "content");
        json_raw(r->j, text);
        json_kv_bool(r->j, "isError", res.is_error);
        return 0;
}

static int resources_list(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        if (!serves_resources(s))
                return reply_error(r, JSONRPC_METHOD_NOT_FOUND, strdup("This server has no resources."), NULL);
        mcp_resources_list(r->j, s->profile);
        return 0;
}

static int resource_templates_list(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        if (!serves_resources(s))
                return reply_error(r, JSONRPC_METHOD_NOT_FOUND, strdup("This server has no resources."), NULL);
        json_key(r->j, "resourceTemplates");
        json_array_begin(r->j);
        json_array_end(r->j);
        return 0;
}

static int resources_read(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        _cleanup_(mcp_resource_contents_done) struct mcp_resource_contents c = {};
        const char *uri = json_member_string(params, "uri");
        unsigned one;
        int k;

        if (!serves_resources(s))
                return reply_error(r, JSONRPC_METHOD_NOT_FOUND, strdup("This server has no resources."), NULL);
        if (!uri)
                return reply_error(r, JSONRPC_INVALID_PARAMS, strdup("resources/read needs params.uri, a string."), NULL);
        one = mcp_resource_of(s->profile, uri);
        if (!one) {
                struct json_mem m;
                char *data = NULL;

                if (json_mem_open(&m) < 0)
                        return -ENOMEM;
                json_object_begin(&m.j);
                json_kv_string(&m.j, "uri", uri);
                json_object_end(&m.j);
                if (json_mem_close(&m, &data) < 0)
                        return -ENOMEM;
                /* Invalid params with data exactly {uri} (SEP-2164), in every revision, as the SDK's server
                 * answers: its clients read that as "not found", and -32002 of older servers too. */
                return reply_error(r, JSONRPC_INVALID_PARAMS,
                                   strdup_printf("No resource %s; resources/list names this server's.", uri), data);
        }
        k = s->backend->read_resource(s->userdata, one, &c);
        if (k == -ENOMEM)
                return k;
        if (k < 0)
                return reply_error(r, JSONRPC_INTERNAL_ERROR,
                                   strdup_printf("Cannot read %s: %s.", uri, strerror(-k)), NULL);
        mcp_resource_contents_write(r->j, s->profile, one, &c);
        return 0;
}

/* tasks/get, tasks/update, tasks/cancel (tasks.h); no such methods where the server runs no tasks. */
static int tasks_method(struct mcp_server *s, const char *method, const struct json_value *params, struct reply *r) {
        struct mcp_call call = { .client_capabilities = json_get(json_get(params, "_meta"), MCP_META_CLIENT_CAPABILITIES) };
        int k;

        if (!s->tasks)
                return reply_error(r, JSONRPC_METHOD_NOT_FOUND,
                                   strdup_printf("Method not found: %s (this server runs no tasks).", method), NULL);
        k = mcp_tasks_method(s->tasks, method, params, mcp_call_client_extends(&call, MCP_TASKS_EXTENSION), r->j,
                             &r->code, &r->message, &r->data);
        return k < 0 ? k : 0;
}

static int tasks_get(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        return tasks_method(s, "tasks/get", params, r);
}

static int tasks_update(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        return tasks_method(s, "tasks/update", params, r);
}

static int tasks_cancel(struct mcp_server *s, const struct json_value *params, struct reply *r) {
        return tasks_method(s, "tasks/cancel", params, r);
}

static const struct method {
        const char *name;
        unsigned flags;
        int (*fn)(struct mcp_server *s, const struct json_value *params, struct reply *r);
} methods[] = {
        { "initialize", ERA_LEGACY, initialize },
        { "ping", ERA_LEGACY, ping },
        { "server/discover", ERA_MODERN | CACHEABLE, discover },
        { "tools/list", ERA_LEGACY | ERA_MODERN | CACHEABLE, tools_list },
        { "tools/call", ERA_LEGACY | ERA_MODERN, tools_call },
        { "resources/list", ERA_LEGACY | ERA_MODERN | CACHEABLE, resources_list },
        { "resources/templates/list", ERA_LEGACY | ERA_MODERN | CACHEABLE, resource_templates_list },
        { "resources/read", ERA_LEGACY | ERA_MODERN | CACHEABLE, resources_read },
        { "tasks/get", ERA_MODERN, tasks_get },
        { "tasks/update", ERA_MODERN, tasks_update },
        { "tasks/cancel", ERA_MODERN, tasks_cancel },
};

static const struct method *method_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(methods); i++)
                if (streq(methods[i].name, name))
                        return &methods[i];
        return NULL;
}

static bool modern_version(const char *v) {
        for (size_t i = 0; mcp_modern_versions[i]; i++)
                if (streq(mcp_modern_versions[i], v))
                        return true;
        return false;
}

/* data of an unsupported version: {"supported": [...], "requested": V}. */
static char *unsupported_data(const char *requested) {
        _cleanup_free_ char *text = NULL;
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return NULL;
        json_object_begin(&m.j);
        json_key(&m.j, "supported");
        json_array_begin(&m.j);
        for (size_t i = 0; mcp_modern_versions[i]; i++)
                json_string(&m.j, mcp_modern_versions[i]);
        json_array_end(&m.j);
        json_kv_string(&m.j, "requested", requested);
        json_object_end(&m.j);
        if (json_mem_close(&m, &text) < 0)
                return NULL;
        return TAKE_PTR(text);
}

/*
 * Which revision a request is served under (ERA_*), or 0 with the error
 * in *r. Told apart as the SDK's stdio server does: a request whose
 * params._meta names a protocol version is a 2026-07-28 request (and must
 * carry the whole envelope: the version, supported, and the client's
 * capabilities); initialize, or a first request without one, makes the
 * connection a 2025 one, where _meta is read no further. Once 2026, a
 * request without the envelope, or an initialize, is refused.
 */
static int headers_mismatch(const struct mcp_http_headers *h, const char *method, const struct json_value *params,
                            struct reply *r);

/* Whether v names a stateless revision, known to botdesk or not (ISO dates order as strings). */
static bool modern_era(const char *v) {
        return v && strcmp(v, mcp_modern_versions[0]) >= 0;
}

static unsigned era_of(struct mcp_server *s, const char *method, const struct json_value *params,
                       const struct mcp_http_headers *h, struct reply *r) {
        const struct json_value *meta = json_get(params, "_meta"), *v = json_get(meta, MCP_META_PROTOCOL_VERSION),
                                *caps = json_get(meta, MCP_META_CLIENT_CAPABILITIES);
        /* Over HTTP, an MCP-Protocol-Version of a stateless revision makes a 2026 request, envelope or not. */
        bool claim = v || caps || (h && modern_era(h->protocol_version));
        const char *key, *problem;

        if (s->era == ERA_LEGACY)
                return ERA_LEGACY;
        if (!claim) {
                if (s->era == ERA_MODERN && streq(method, "initialize")) {
                        const char *asked = json_member_string(params, "protocolVersion") ?: "unknown";

                        (void) reply_error(r, MCP_ERROR_UNSUPPORTED_VERSION,
                                           strdup_printf("Unsupported protocol version: %s (this connection speaks "
                                                         "2026-07-28: no initialize).", asked),
                                           unsupported_data(asked));
                        return 0;
                }
                if (s->era == ERA_MODERN) {
                        (void) reply_error(r, JSONRPC_INVALID_PARAMS,
                                           strdup("Request is missing the required _meta envelope for protocol "
                                                  "revision 2026-07-28 (" MCP_META_PROTOCOL_VERSION ", "
                                                  MCP_META_CLIENT_CAPABILITIES ")."),
                                           NULL);
                        return 0;
                }
                s->era = ERA_LEGACY;
                return ERA_LEGACY;
        }
        /* A 2026 request: its headers first (-32020), then its envelope (-32602), then its version (-32022). */
        if (h && v && v->type == JSON_STRING && !streq_ptr(h->protocol_version, v->string)) {
                (void) headers_mismatch(h, method, params, r);
                return 0;
        }
        if (!v && !caps) {
                (void) reply_error(r, JSONRPC_INVALID_PARAMS,
                                   strdup("Request is missing the required _meta envelope for protocol revision "
                                          "2026-07-28 (" MCP_META_PROTOCOL_VERSION ", " MCP_META_CLIENT_CAPABILITIES ")."),
                                   NULL);
                return 0;
        }
        if (!v)
                key = MCP_META_PROTOCOL_VERSION, problem = "missing";
        else if (v->type != JSON_STRING)
                key = MCP_META_PROTOCOL_VERSION, problem = "not a string";
        else if (!caps)
                key = MCP_META_CLIENT_CAPABILITIES, problem = "missing";
        else if (caps->type != JSON_OBJECT)
                key = MCP_META_CLIENT_CAPABILITIES, problem = "not an object";
        else if (!modern_version(v->string)) {
                (void) reply_error(r, MCP_ERROR_UNSUPPORTED_VERSION,
                                   strdup_printf("Unsupported protocol version: %s.", v->string),
                                   unsupported_data(v->string));
                return 0;
        } else {
                s->era = ERA_MODERN;
                snprintf(s->version, sizeof s->version, "%s", v->string);
                return ERA_MODERN;
        }
        (void) reply_error(r, JSONRPC_INVALID_PARAMS,
                           strdup_printf("Invalid _meta envelope for protocol revision 2026-07-28: %s: %s.", key, problem),
                           strdup_printf("{\"envelope\": {\"key\": \"%s\", \"problem\": \"%s\"}}", key, problem));
        return 0;
}

/* The answer to request id: its result (with the 2026 members when era is ERA_MODERN), or its error. */
static int answer(struct mcp_server *s, const struct json_value *id, const struct method *m, unsigned era,
                  const struct json_value *params, FILE *out) {
        _cleanup_free_ char *buf = NULL;
        struct json_mem mem;
        struct reply r = {};
        int k;

        if (json_mem_open(&mem) < 0)
                return -ENOMEM;
        r.j = &mem.j;
        json_object_begin(r.j);
        k = m->fn(s, params, &r);
        if (era == ERA_MODERN && k >= 0 && r.code == 0) {
                if (!r.typed)
                        json_kv_string(r.j, "resultType", "complete");
                if (m->flags & CACHEABLE) {
                        /* Nothing here may be kept: the screen and the lease change under it. */
                        json_kv_int(r.j, "ttlMs", 0);
                        json_kv_string(r.j, "cacheScope", "private");
                }
                json_key(r.j, "_meta");
                json_object_begin(r.j);
                json_key(r.j, MCP_META_SERVER_INFO);
                server_info(r.j);
                json_object_end(r.j);
        }
        json_object_end(r.j);
        if (json_mem_close(&mem, &buf) < 0 && k >= 0)
                k = -ENOMEM;
        if (k >= 0 && r.code != 0)
                jsonrpc_write_error_data(out, id, r.code, r.message, r.data);
        else if (k >= 0)
                jsonrpc_write_result(out, id, buf);
        free(r.message);
        free(r.data);
        return k;
}

/*
 * Over HTTP, a 2026 request says its version, method and tool in headers
 * too, and they must agree with the body (error -32020, data.mismatch):
 * MCP-Protocol-Version and Mcp-Method always, Mcp-Name for tools/call.
 */
static int headers_mismatch(const struct mcp_http_headers *h, const char *method, const struct json_value *params,
                            struct reply *r) {
        const char *body_version = json_member_string(json_get(params, "_meta"), MCP_META_PROTOCOL_VERSION);
        const char *name = json_member_string(params, "name");
        _cleanup_free_ char *said = NULL;
        const char *header = NULL;

        if (!streq_ptr(h->protocol_version, body_version)) {
                header = h->protocol_version;
                said = h->protocol_version
                        ? strdup_printf("the body names protocol version %s but the MCP-Protocol-Version header names %s",
                                        body_version, h->protocol_version)
                        : strdup_printf("the body names protocol version %s but the MCP-Protocol-Version header is absent",
                                        body_version);
        } else if (!streq_ptr(h->method, method)) {
                header = h->method;
                said = h->method ? strdup_printf("the body names method %s but the Mcp-Method header names %s", method,
                                                 h->method)
                                 : strdup_printf("the body names method %s but the Mcp-Method header is absent", method);
        } else if (streq(method, "tools/call") && name && !streq_ptr(h->name, name)) {
                header = h->name;
                said = h->name ? strdup_printf("the body calls tool \"%s\" but the Mcp-Name header names \"%s\"", name,
                                               h->name)
                               : strdup_printf("the body calls tool \"%s\" but the Mcp-Name header is absent", name);
        } else
                return 0;
        if (!said)
                return -ENOMEM;
        {
                _cleanup_free_ char *data = NULL;
                struct json_mem m;

                if (json_mem_open(&m) < 0)
                        return -ENOMEM;
                json_object_begin(&m.j);
                json_key(&m.j, "mismatch");
                json_object_begin(&m.j);
                json_kv_string(&m.j, "header", header ?: "(missing)");
                json_kv_string(&m.j, "body", said);
                json_object_end(&m.j);
                json_object_end(&m.j);
                if (json_mem_close(&m, &data) < 0)
                        return -ENOMEM;
                (void) reply_error(r, MCP_ERROR_HEADER_MISMATCH,
                                   strdup_printf("Bad Request: the request headers and body disagree: %s.", said),
                                   TAKE_PTR(data));
        }
        return r->message ? 1 : -ENOMEM;
}

/* One message, its response (if any) to out; *status the HTTP status it gets (h non-NULL: over HTTP). */
static int handle(struct mcp_server *s, const char *line, size_t len, const struct mcp_http_headers *h, FILE *out,
                  unsigned *status) {
        struct json_value *msg = NULL;
        const struct json_value *id, *method, *params, *version;
        const struct method *m;
        struct reply refused = {};
        unsigned era;
        int r;

        *status = 400;
        r = json_parse(line, len, &msg);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                jsonrpc_write_error(out, NULL, JSONRPC_PARSE_ERROR, "Parse error: the line is not one JSON value.");
                return 0;
        }
        r = 0;
        if (msg->type == JSON_ARRAY) {
                /* Neither revision botdesk serves has batches (2025-06-18 dropped them). */
                jsonrpc_write_error(out, NULL, JSONRPC_INVALID_REQUEST, "Invalid request: JSON-RPC batches are not served.");
                goto done;
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
                *status = 202;
                goto done;
        }
        if (method->type != JSON_STRING) {
                jsonrpc_write_error(out, id, JSONRPC_INVALID_REQUEST, "Invalid request: method must be a string.");
                goto done;
        }
        if (!id) {
                /* A notification (notifications/initialized, cancelled, ...): never answered. */
                if (s->subs && streq(method->string, "notifications/cancelled"))
                        mcp_subs_cancelled(s->subs, params);
                *status = 202;
                goto done;
        }
        era = era_of(s, method->string, params, h, &refused);
        if (era == ERA_MODERN && h) {
                r = headers_mismatch(h, method->string, params, &refused);
                if (r < 0)
                        goto done;
                if (r > 0)
                        era = 0;
                r = 0;
        }
        if (era == 0) {
                if (!refused.message)
                        r = -ENOMEM;
                else
                        jsonrpc_write_error_data(out, id, refused.code, refused.message, refused.data);
                free(refused.message);
                free(refused.data);
                goto done;
        }
        m = method_find(method->string);
        /* Over HTTP the transport makes the response an event stream (agent/mcp-http.c). */
        if (era == ERA_MODERN && s->subs && streq(method->string, "subscriptions/listen")) {
                /* Answered by notifications while it is open, and by no result unless botdesk ends it: no HTTP
                 * status of its own (0), the transport makes it a stream. */
                *status = 0;
                r = mcp_subs_listen(s->subs, id, params, out);
        }
        else if (m && (m->flags & era)) {
                *status = 200;
                r = answer(s, id, m, era, params, out);
        } else {
                _cleanup_free_ char *text = strdup_printf("Method not found: %s%s.", method->string,
                                                          m ? " (not in this protocol revision)" : "");
                *status = 404;
                jsonrpc_write_error(out, id, JSONRPC_METHOD_NOT_FOUND, text ?: "Method not found.");
        }
done:
        json_value_free(msg);
        return r == -ENOMEM ? r : 0;
}

int mcp_server_handle(struct mcp_server *s, const char *line, size_t len, FILE *out) {
        unsigned status;

        return handle(s, line, len, NULL, out, &status);
}

int mcp_server_handle_http(struct mcp_server *s, const char *body, size_t len, const struct mcp_http_headers *h,
                           FILE *out, unsigned *ret_status) {
        /* Every request on its own: nothing of the one before decides its revision. */
        s->era = 0;
        s->version[0] = 0;
        return handle(s, body, len, h, out, ret_status);
}

void mcp_server_oversized(FILE *out) {
        jsonrpc_write_error(out, NULL, JSONRPC_INVALID_REQUEST, "The message is longer than 1 MiB; it was dropped.");
}
