/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "jsonrpc.h"
#include "mcp-fixture.h"
#include "action.h"
#include "server.h"
#include "tap.h"
#include "util.h"

static unsigned calls;

static void space(void *userdata, struct mcp_space *ret) {
        mcp_space_fit(1000, 750, 800, 1150000, ret);
}

static int call(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res) {
        calls++;
        if (json_get(args, "fail"))
                mcp_result_error(res, "refused");
        else {
                mcp_result_text(res, tool);
                mcp_result_image(res, "image/jpeg", "AAAA");
        }
        return 0;
}

static unsigned acts_calls;

/* The epoch rule's stand-in: an acting call with "refuse" in its arguments does not run. */
static bool acts(void *userdata, const struct json_value *args, struct mcp_result *res) {
        acts_calls++;
        if (json_get(args, "refuse")) {
                mcp_result_error(res, "refused before it ran");
                return false;
        }
        return true;
}

static const struct mcp_backend backend = { .space = space, .acts = acts };

static const char schema[] = "{\"type\": \"object\", \"properties\": {}}";

/* The desktop's rows in shape (agent/mcp-tools.c): its names, flags and order. */
static const struct mcp_tool rows[] = {
        { "computer", .describe = mcp_computer_describe, .schema = mcp_computer_schema,
          .flags = MCP_TOOL_ACTS | MCP_TOOL_SINGLE, .call = call },
        { "batch", "A list of actions.", .schema = mcp_batch_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_SINGLE, .call = call },
        { "windows", "The windows.", .schema = schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = call },
        { "status", "The desktop.", .schema = schema, .call = call },
        { "ask_human", "A human.", .schema = schema, .call = call },
        { "clipboard_read", "Read.", .schema = schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = call },
        { "clipboard_write", "Write.", .schema = schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = call },
        { "a11y_tree", "Tree.", .schema = schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = call },
        { "a11y_find", "Find.", .schema = schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = call },
        { "a11y_do", "Do.", .schema = schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = call },
        { "(members)", .flags = MCP_TOOL_ACTS | MCP_TOOL_MEMBERS, .call = call },
};

static const char *str(const struct json_value *v) {
        return v && v->type == JSON_STRING ? v->string : NULL;
}

int main(void) {
        struct mcp_server s;
        struct json_value *v;

        mcp_server_init(&s, &backend, rows, ELEMENTSOF(rows), NULL);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {\"protocolVersion\": \"2025-06-18\"}}");
        TAP_EQ_STR(str(json_get(json_get(v, "result"), "protocolVersion")), "2025-06-18",
                   "initialize answers with the version the client asks for when it is supported");
        TAP_EQ_STR(str(json_get(json_get(json_get(v, "result"), "serverInfo"), "name")), "botdesk", "... and names the server");
        tap_ok(json_get(json_get(json_get(v, "result"), "capabilities"), "tools") != NULL, "... offering tools");
        json_value_free(v);
        for (size_t i = 0; mcp_protocol_versions[i]; i++) {
                char line[256];

                snprintf(line, sizeof line, "{\"jsonrpc\": \"2.0\", \"id\": \"x\", \"method\": \"initialize\", \"params\": {\"protocolVersion\": \"%s\"}}",
                         mcp_protocol_versions[i]);
                v = handle(&s, line);
                TAP_EQ_STR(str(json_get(json_get(v, "result"), "protocolVersion")), mcp_protocol_versions[i],
                           "version %s is negotiated as asked", mcp_protocol_versions[i]);
                TAP_EQ_STR(str(json_get(v, "id")), "x", "... and a string id is echoed");
                json_value_free(v);
        }
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"initialize\", \"params\": {\"protocolVersion\": \"1999-01-01\"}}");
        TAP_EQ_STR(str(json_get(json_get(v, "result"), "protocolVersion")), mcp_protocol_versions[0],
                   "an unknown version gets the newest the server speaks");
        json_value_free(v);

        tap_ok(handle(&s, "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}") == NULL,
               "a notification gets no response");
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"ping\"}");
        tap_ok(json_get(v, "result") && json_get(v, "result")->type == JSON_OBJECT && json_get(v, "result")->n == 0,
               "ping answers {}");
        json_value_free(v);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\"");
        TAP_EQ_INT(error_code(v), JSONRPC_PARSE_ERROR, "malformed JSON is -32700");
        tap_ok(json_get(v, "id") && json_get(v, "id")->type == JSON_NULL, "... with id null");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"resources/list\"}");
        TAP_EQ_INT(error_code(v), JSONRPC_METHOD_NOT_FOUND, "an unknown method is -32601");
        json_value_free(v);
        v = handle(&s, "{\"id\": 6, \"method\": \"ping\"}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_REQUEST, "a message without jsonrpc 2.0 is -32600");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/call\"}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "tools/call without params is -32602");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"tools/call\", \"params\": {\"name\": \"nosuch\"}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "an unknown tool is -32602");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"tools/call\", \"params\": {\"name\": \"computer\", \"arguments\": 5}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "arguments that are not an object are -32602");
        json_value_free(v);
        TAP_EQ_INT(calls, 0, "no bad request reached the backend");

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 10, \"method\": \"tools/list\"}");
        {
                const struct json_value *tools = json_get(json_get(v, "result"), "tools");
                /* Ten of botdesk's own and the toolset's seventeen members ([agent] mcp_tools = both). */
                bool all = tools && tools->n == 27;

                for (size_t i = 0; all && i < tools->n; i++)
                        all = str(json_get(&tools->items[i], "name")) &&
                              json_get(&tools->items[i], "inputSchema") &&
                              streq_ptr(str(json_get(json_get(&tools->items[i], "inputSchema"), "type")), "object");
                tap_ok(all, "tools/list gives 27 tools (computer to clipboard_write, the three a11y ones, a tool per toolset "
                            "member), each with a name and an object inputSchema");
                tap_ok(tools && strstr(str(json_get(&tools->items[0], "description")) ?: "",
                                       "Screenshots are 800x600 pixels (the 1000x750 screen at scale 0.8)"),
                       "the computer tool's description gives the screenshot's size and scale");
        }
        json_value_free(v);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 11, \"method\": \"tools/call\", \"params\": {\"name\": \"computer\", \"arguments\": {\"action\": \"screenshot\"}}}");
        {
                const struct json_value *r = json_get(v, "result"), *c = json_get(r, "content");

                tap_ok(c && c->n == 2 && streq_ptr(str(json_get(&c->items[0], "type")), "text") &&
                       streq_ptr(str(json_get(&c->items[1], "mimeType")), "image/jpeg") &&
                       json_get(r, "isError")->type == JSON_FALSE,
                       "a tool's result is its content (text, image) with isError false");
        }
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 12, \"method\": \"tools/call\", \"params\": {\"name\": \"batch\", \"arguments\": {\"fail\": true}}}");
        tap_ok(json_get(json_get(v, "result"), "isError") && json_get(json_get(v, "result"), "isError")->type == JSON_TRUE &&
               !json_get(v, "error"), "a tool that fails is a result with isError true, not a protocol error");
        json_value_free(v);

        /* The rows' flags: an acting tool passes the backend's check first; status does not act. */
        calls = acts_calls = 0;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 13, \"method\": \"tools/call\", \"params\": {\"name\": \"windows\", \"arguments\": {\"refuse\": 1}}}");
        tap_ok(acts_calls == 1 && calls == 0 && json_get(json_get(v, "result"), "isError")->type == JSON_TRUE,
               "an acting tool the backend refuses does not run, and the refusal is its result");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 14, \"method\": \"tools/call\", \"params\": {\"name\": \"status\", \"arguments\": {\"refuse\": 1}}}");
        tap_ok(acts_calls == 1 && calls == 1, "a tool that does not act runs without the check");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 15, \"method\": \"tools/call\", \"params\": {\"name\": \"zoom\", \"arguments\": {\"refuse\": 1}}}");
        tap_ok(acts_calls == 2 && calls == 1, "a toolset member acts: the check holds it too");
        json_value_free(v);

        /* The framing: a line over 1 MiB is dropped whole, the next one read. */
        {
                FILE *f = tmpfile();
                struct jsonrpc_reader rd;
                char *line;
                size_t len;
                int fd;

                assert(f);
                for (size_t i = 0; i < JSONRPC_LINE_MAX + 100; i++)
                        fputc('x', f);
                fputs("\n{\"a\": 1}\r\n\nlast", f);
                fflush(f);
                fd = fileno(f);
                lseek(fd, 0, SEEK_SET);
                assert(jsonrpc_reader_init(&rd, fd) == 0);
                TAP_EQ_INT(jsonrpc_read_line(&rd, &line, &len), -EMSGSIZE, "a line over 1 MiB is reported once, as too long");
                tap_ok(jsonrpc_read_line(&rd, &line, &len) == 1 && streq(line, "{\"a\": 1}"),
                       "... and the next line is read whole (CR LF ends a line too)");
                tap_ok(jsonrpc_read_line(&rd, &line, &len) == 1 && len == 0, "an empty line is a line of its own");
                tap_ok(jsonrpc_read_line(&rd, &line, &len) == 1 && streq(line, "last"), "a last line without a newline counts");
                TAP_EQ_INT(jsonrpc_read_line(&rd, &line, &len), 0, "then the end of the stream");
                jsonrpc_reader_done(&rd);
                fclose(f);
        }

        /* The toolset's members as tools of their own, and the sets [agent] mcp_tools chooses. */
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 20, \"method\": \"tools/list\"}");
        {
                const struct json_value *tools = json_get(json_get(v, "result"), "tools"), *lc = NULL;

                for (size_t i = 0; tools && i < tools->n; i++)
                        if (streq_ptr(str(json_get(&tools->items[i], "name")), "left_click"))
                                lc = &tools->items[i];
                tap_ok(lc && json_get(json_get(json_get(lc, "inputSchema"), "properties"), "coordinate") &&
                       json_get(json_get(json_get(lc, "inputSchema"), "properties"), "text") &&
                       json_get(json_get(json_get(lc, "inputSchema"), "properties"), "epoch") &&
                       !json_get(json_get(json_get(lc, "inputSchema"), "properties"), "action"),
                       "the member tool left_click takes the member's input (coordinate, text) and epoch, no action");
        }
        json_value_free(v);
        calls = 0;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 21, \"method\": \"tools/call\", \"params\": {\"name\": \"left_click\", \"arguments\": {}}}");
        tap_ok(calls == 1 && json_get(v, "result"), "a member tool reaches the backend by its name");
        json_value_free(v);

        s.tools.set.kind = MCP_TOOLS_COMPUTER;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 22, \"method\": \"tools/list\"}");
        TAP_EQ_INT(json_get(json_get(v, "result"), "tools")->n, 10, "mcp_tools = computer: the ten tools, no member");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 23, \"method\": \"tools/call\", \"params\": {\"name\": \"left_click\", \"arguments\": {}}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "... and a member's tool is then unknown (-32602)");
        json_value_free(v);

        s.tools.set.kind = MCP_TOOLS_MEMBERS;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 24, \"method\": \"tools/list\"}");
        TAP_EQ_INT(json_get(json_get(v, "result"), "tools")->n, 25, "mcp_tools = members: no computer or batch, 17 members");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 25, \"method\": \"tools/call\", \"params\": {\"name\": \"computer\", \"arguments\": {}}}");
        tap_ok(error_code(v) == JSONRPC_INVALID_PARAMS &&
               strstr(str(json_get(json_get(v, "error"), "message")) ?: "", "a11y_do, key, type, mouse_move"),
               "... computer is then unknown, and the error lists the tools there are, the a11y ones and members too");
        json_value_free(v);

        /* [agent] toolset_disabled: the members named are offered nowhere. */
        {
                uint32_t off = 0;
                char *bad = NULL;

                TAP_EQ_INT(mcp_members_mask("zoom  hold_key", &off, &bad), 0, "toolset_disabled's words are members");
                s.tools.set.members_off = off;
                TAP_EQ_INT(mcp_members_mask("zoom nope", &off, &bad), -EINVAL, "... and a word that is none is refused");
                TAP_EQ_STR(bad, "nope", "... naming it");
                free(bad);
        }
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 26, \"method\": \"tools/list\"}");
        TAP_EQ_INT(json_get(json_get(v, "result"), "tools")->n, 23, "with zoom and hold_key off: 23 tools");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 27, \"method\": \"tools/call\", \"params\": {\"name\": \"zoom\", \"arguments\": {}}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "... and zoom is then an unknown tool");
        json_value_free(v);

        /* A VNC server botdesk did not start: the rows that need a desktop botdesk runs are not offered. */
        s.tools.set.flags_off = MCP_TOOL_DESKTOP;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 28, \"method\": \"tools/list\"}");
        TAP_EQ_INT(json_get(json_get(v, "result"), "tools")->n, 17,
                   "flags_off = MCP_TOOL_DESKTOP: 17 tools, without windows, the clipboard and a11y");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 29, \"method\": \"tools/call\", \"params\": {\"name\": \"a11y_tree\", \"arguments\": {}}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "... and a11y_tree is then an unknown tool");
        json_value_free(v);
        calls = 0;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 30, \"method\": \"tools/call\", \"params\": {\"name\": \"status\", \"arguments\": {}}}");
        tap_ok(calls == 1 && json_get(v, "result"), "... while status still reaches the backend");
        json_value_free(v);
        s.tools.set.flags_off = 0;

        /* The stateless 2026-07-28 revision: the envelope on every request, server/discover, resultType. */
        {
#define ENV "\"_meta\": {\"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\", " \
            "\"io.modelcontextprotocol/clientCapabilities\": {}, \"io.modelcontextprotocol/clientInfo\": {\"name\": \"t\", \"version\": \"1\"}}"
                struct mcp_server m;
                const struct json_value *r, *sv, *e;

                mcp_server_init(&m, &backend, rows, ELEMENTSOF(rows), NULL);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\", \"params\": {\"_meta\": "
                               "{\"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\"}}}");
                e = json_get(json_get(json_get(v, "error"), "data"), "envelope");
                tap_ok(error_code(v) == JSONRPC_INVALID_PARAMS &&
                       streq_ptr(json_member_string(e, "key"), "io.modelcontextprotocol/clientCapabilities") &&
                       streq_ptr(json_member_string(e, "problem"), "missing"),
                       "2026: an envelope without the client's capabilities is -32602, naming the key");
                json_value_free(v);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\", \"params\": {\"_meta\": "
                               "{\"io.modelcontextprotocol/protocolVersion\": \"2099-01-01\", "
                               "\"io.modelcontextprotocol/clientCapabilities\": {}}}}");
                e = json_get(json_get(v, "error"), "data");
                sv = json_get(e, "supported");
                tap_ok(error_code(v) == MCP_ERROR_UNSUPPORTED_VERSION && sv && sv->n == 1 &&
                       streq_ptr(str(&sv->items[0]), "2026-07-28") && streq_ptr(json_member_string(e, "requested"), "2099-01-01"),
                       "a version not served is -32022 with the supported list and the version asked for");
                json_value_free(v);

                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"server/discover\", \"params\": {" ENV "}}");
                r = json_get(v, "result");
                sv = json_get(r, "supportedVersions");
                tap_ok(sv && sv->n >= 2 && streq_ptr(str(&sv->items[0]), "2026-07-28") &&
                       streq_ptr(str(&sv->items[1]), "2025-11-25") && json_get(json_get(r, "capabilities"), "tools") &&
                       json_member_string(r, "instructions"),
                       "server/discover: both revisions (2026-07-28 first), the tools capability, the instructions");
                tap_ok(streq_ptr(json_member_string(r, "resultType"), "complete") &&
                       streq_ptr(json_member_string(json_get(json_get(r, "_meta"), MCP_META_SERVER_INFO), "name"), "botdesk"),
                       "... with resultType complete and the server's identity in _meta");
                json_value_free(v);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"tools/list\", \"params\": {" ENV "}}");
                r = json_get(v, "result");
                tap_ok(json_get(r, "tools") && json_get(r, "tools")->n == 27 &&
                       streq_ptr(json_member_string(r, "resultType"), "complete") &&
                       json_get(r, "ttlMs") && json_get(r, "ttlMs")->number == 0,
                       "2026 tools/list: the same tools, resultType complete, nothing to cache (ttlMs 0)");
                json_value_free(v);
                calls = 0;
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/call\", \"params\": {\"name\": \"status\", "
                               "\"arguments\": {}, " ENV "}}");
                r = json_get(v, "result");
                tap_ok(calls == 1 && json_get(r, "content") && json_get(r, "isError")->type == JSON_FALSE &&
                       streq_ptr(json_member_string(r, "resultType"), "complete") && json_get(r, "_meta"),
                       "2026 tools/call: the tool's content, resultType complete, _meta");
                json_value_free(v);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"tools/call\", \"params\": {\"name\": \"nosuch\", "
                               "\"arguments\": {}, " ENV "}}");
                TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "2026: an unknown tool is -32602");
                json_value_free(v);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/list\", \"params\": {}}");
                tap_ok(error_code(v) == JSONRPC_INVALID_PARAMS &&
                       strstr(str(json_get(json_get(v, "error"), "message")) ?: "", "_meta envelope"),
                       "once 2026, a request without the envelope is -32602");
                json_value_free(v);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"initialize\", \"params\": "
                               "{\"protocolVersion\": \"2025-11-25\", \"capabilities\": {}}}");
                tap_ok(error_code(v) == MCP_ERROR_UNSUPPORTED_VERSION &&
                       streq_ptr(json_member_string(json_get(json_get(v, "error"), "data"), "requested"), "2025-11-25"),
                       "... and initialize is -32022 (the 2026 revision has none)");
                json_value_free(v);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"ping\", \"params\": {" ENV "}}");
                TAP_EQ_INT(error_code(v), JSONRPC_METHOD_NOT_FOUND, "2026: ping is not a method (as the SDK's server)");
                json_value_free(v);

                /* A 2025 connection: initialize first; discover is not a method there, and _meta is not read. */
                mcp_server_init(&m, &backend, rows, ELEMENTSOF(rows), NULL);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {\"protocolVersion\": \"2025-11-25\"}}");
                json_value_free(v);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"server/discover\", \"params\": {" ENV "}}");
                TAP_EQ_INT(error_code(v), JSONRPC_METHOD_NOT_FOUND, "2025: server/discover is -32601");
                json_value_free(v);
                v = handle(&m, "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\", \"params\": {" ENV "}}");
                r = json_get(v, "result");
                tap_ok(json_get(r, "tools") && !json_get(r, "resultType"), "2025: results as before, without resultType");
                json_value_free(v);
        }

        /* Over HTTP: each request alone, the headers agreeing with the body, an HTTP status for each answer. */
        {
                static const struct {
                        const char *what, *body, *version, *method, *name;
                        unsigned status;
                        long long code;
                } cases[] = {
                        { "a 2026 request with its headers is 200", "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\", \"params\": {" ENV "}}",
                          "2026-07-28", "tools/list", NULL, 200, 0 },
                        { "without MCP-Protocol-Version, 400 -32020", "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\", \"params\": {" ENV "}}",
                          NULL, "tools/list", NULL, 400, MCP_ERROR_HEADER_MISMATCH },
                        { "a version header that disagrees, 400 -32020", "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\", \"params\": {" ENV "}}",
                          "2025-11-25", "tools/list", NULL, 400, MCP_ERROR_HEADER_MISMATCH },
                        { "an Mcp-Method that disagrees, 400 -32020", "{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"tools/list\", \"params\": {" ENV "}}",
                          "2026-07-28", "tools/call", NULL, 400, MCP_ERROR_HEADER_MISMATCH },
                        { "an Mcp-Name that disagrees, 400 -32020", "{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/call\", \"params\": {\"name\": \"status\", " ENV "}}",
                          "2026-07-28", "tools/call", "batch", 400, MCP_ERROR_HEADER_MISMATCH },
                        { "a tool call whose headers agree is 200", "{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"tools/call\", \"params\": {\"name\": \"status\", " ENV "}}",
                          "2026-07-28", "tools/call", "status", 200, 0 },
                        { "a method of no revision is 404 -32601", "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"nope\", \"params\": {" ENV "}}",
                          "2026-07-28", "nope", NULL, 404, JSONRPC_METHOD_NOT_FOUND },
                        { "a 2025 request needs no initialize before it: 200", "{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"tools/list\"}",
                          NULL, NULL, NULL, 200, 0 },
                        { "MCP-Protocol-Version 2026-07-28 without an envelope, 400 -32602",
                          "{\"jsonrpc\": \"2.0\", \"id\": 10, \"method\": \"server/discover\"}", "2026-07-28", "server/discover", NULL, 400,
                          JSONRPC_INVALID_PARAMS },
                        { "an envelope without its version, 400 -32602",
                          "{\"jsonrpc\": \"2.0\", \"id\": 11, \"method\": \"tools/list\", \"params\": {\"_meta\": {\"io.modelcontextprotocol/clientCapabilities\": {}}}}",
                          "2026-07-28", "tools/list", NULL, 400, JSONRPC_INVALID_PARAMS },
                        { "a version not served whose header disagrees: -32020 before -32022",
                          "{\"jsonrpc\": \"2.0\", \"id\": 12, \"method\": \"tools/list\", \"params\": {\"_meta\": {\"io.modelcontextprotocol/protocolVersion\": \"2099-01-01\", \"io.modelcontextprotocol/clientCapabilities\": {}}}}",
                          "2026-07-28", "tools/list", NULL, 400, MCP_ERROR_HEADER_MISMATCH },
                        { "a version not served, its header agreeing: 400 -32022",
                          "{\"jsonrpc\": \"2.0\", \"id\": 13, \"method\": \"tools/list\", \"params\": {\"_meta\": {\"io.modelcontextprotocol/protocolVersion\": \"2099-01-01\", \"io.modelcontextprotocol/clientCapabilities\": {}}}}",
                          "2099-01-01", "tools/list", NULL, 400, MCP_ERROR_UNSUPPORTED_VERSION },
                        { "a notification is 202", "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/cancelled\", \"params\": {" ENV "}}",
                          "2026-07-28", "notifications/cancelled", NULL, 202, 0 },
                        { "not JSON is 400 -32700", "{nope", NULL, NULL, NULL, 400, JSONRPC_PARSE_ERROR },
                        { "a batch is 400 -32600", "[{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"tools/list\"}]", NULL, NULL, NULL, 400,
                          JSONRPC_INVALID_REQUEST },
                };
                struct mcp_server m;

                mcp_server_init(&m, &backend, rows, ELEMENTSOF(rows), NULL);
                for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                        struct mcp_http_headers h = { cases[i].version, cases[i].method, cases[i].name };
                        _cleanup_free_ char *out = NULL;
                        size_t size = 0;
                        FILE *f = open_memstream(&out, &size);
                        unsigned status = 0;

                        assert(f);
                        (void) mcp_server_handle_http(&m, cases[i].body, strlen(cases[i].body), &h, f, &status);
                        fclose(f);
                        v = NULL;
                        if (size > 0)
                                (void) json_parse(out, size, &v);
                        tap_ok(status == cases[i].status && error_code(v) == cases[i].code && (size > 0) == (status != 202),
                               "HTTP: %s", cases[i].what);
                        if (status != cases[i].status || error_code(v) != cases[i].code)
                                printf("#   status %u, %s\n", status, out ?: "");
                        json_value_free(v);
                }
        }
#undef ENV
        return tap_done();
}
