/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The desktop's resources over the MCP server (mcp/resources.h): list, read, their errors in both revisions. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"
#include "mcp-fixture.h"
#include "server.h"
#include "tap.h"
#include "util.h"

static unsigned reads;
static int read_error;          /* what the next read returns, when negative */

static void space(void *userdata, struct mcp_space *ret) {
        mcp_space_fit(1000, 750, 800, 1150000, ret);
}

/* The origin of botdesk web the viewer's read gives, or NULL: none on TCP. */
static const char *viewer_origin;

static int read_resource(void *userdata, unsigned one, struct mcp_resource_contents *ret) {
        reads++;
        if (read_error < 0)
                return read_error;
        if (one == MCP_RESOURCE_SCREEN) {
                ret->mime = "image/jpeg";
                ret->blob = strdup("/9j/AA==");
                return ret->blob ? 0 : -ENOMEM;
        }
        if (one == MCP_RESOURCE_VIEWER) {
                ret->mime = MCP_APP_MIME;
                ret->text = strdup("<!doctype html><title>viewer</title>");
                ret->app_origin = viewer_origin ? strdup(viewer_origin) : NULL;
                return ret->text ? 0 : -ENOMEM;
        }
        ret->mime = "application/json";
        ret->text = strdup_printf("{\"read\": \"%s\"}", mcp_resource_name(one));
        return ret->text ? 0 : -ENOMEM;
}

static const struct mcp_backend backend = { .space = space, .read_resource = read_resource };
static const struct mcp_backend toolless = { .space = space };

static int call(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res) {
        mcp_result_text(res, tool);
        return 0;
}

static const struct mcp_tool rows[] = {
        { "status", "The desktop.", .schema = "{\"type\": \"object\", \"properties\": {}}", .call = call },
};

/* contents[0] of a resources/read answer. */
static const struct json_value *first_contents(const struct json_value *v) {
        const struct json_value *c = json_get(json_get(v, "result"), "contents");

        return c && c->type == JSON_ARRAY && c->n == 1 ? &c->items[0] : NULL;
}

#define ENV "\"_meta\": {\"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\", " \
            "\"io.modelcontextprotocol/clientCapabilities\": {}, \"io.modelcontextprotocol/clientInfo\": {\"name\": \"t\", \"version\": \"1\"}}"

static void test_uris(void) {
        TAP_EQ_INT(mcp_resource_of("work", "botdesk://work/lease"), MCP_RESOURCE_LEASE, "botdesk://work/lease is the lease");
        TAP_EQ_INT(mcp_resource_of("work", "botdesk://work/screen"), MCP_RESOURCE_SCREEN, "botdesk://work/screen the screen");
        TAP_EQ_INT(mcp_resource_of("work", "botdesk://work/windows"), MCP_RESOURCE_WINDOWS, "... and windows the windows");
        TAP_EQ_INT(mcp_resource_of("work", "botdesk://workx/screen"), 0, "another profile's whose name starts alike is none");
        TAP_EQ_INT(mcp_resource_of("work", "botdesk://work/screen/"), 0, "a trailing slash is none");
        TAP_EQ_INT(mcp_resource_of("work", "botdesk://other/lease"), 0, "another profile's is none");
        TAP_EQ_INT(mcp_resource_of("work", "file:///work/lease"), 0, "another scheme is none");
        TAP_EQ_INT(mcp_resource_of("work", "botdesk://work/"), 0, "the profile alone is none");
        TAP_EQ_INT(mcp_resource_of("work", "ui://botdesk/viewer"), MCP_RESOURCE_VIEWER, "ui://botdesk/viewer is the viewer, whatever the profile");
        TAP_EQ_INT(mcp_resource_of("work", "botdesk://work/viewer"), 0, "... under no botdesk:// URI");
        tap_ok(!(MCP_RESOURCE_VIEWER & MCP_RESOURCES_ALL), "... and not among what a subscription watches");
}

static void test_legacy(void) {
        struct mcp_server s;
        const struct json_value *caps, *list, *c, *e;
        struct json_value *v;
        bool uris_ok = true;

        mcp_server_init(&s, &backend, rows, ELEMENTSOF(rows), NULL);
        s.profile = "work";
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {\"protocolVersion\": \"2025-11-25\"}}");
        caps = json_get(json_get(json_get(v, "result"), "capabilities"), "resources");
        tap_ok(caps && caps->type == JSON_OBJECT, "initialize offers resources");
        tap_ok(caps && json_get(caps, "listChanged") && json_get(caps, "listChanged")->type == JSON_FALSE,
               "... whose list never changes");
        tap_ok(caps && !json_get(caps, "subscribe"), "... and no resources/subscribe, which 2025-11-25 would call");
        json_value_free(v);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"resources/list\"}");
        list = json_get(json_get(v, "result"), "resources");
        TAP_EQ_INT(list && list->type == JSON_ARRAY ? (long long) list->n : -1, 4, "resources/list names four resources");
        for (size_t i = 0; list && i < list->n && i < 4; i++) {
                static const char *const want[][2] = { { "botdesk://work/lease", "application/json" },
                                                       { "botdesk://work/windows", "application/json" },
                                                       { "botdesk://work/screen", "image/jpeg" },
                                                       { "ui://botdesk/viewer", "text/html;profile=mcp-app" } };

                uris_ok = uris_ok && streq_ptr(json_member_string(&list->items[i], "uri"), want[i][0]) &&
                          streq_ptr(json_member_string(&list->items[i], "mimeType"), want[i][1]) &&
                          json_member_string(&list->items[i], "name") && json_member_string(&list->items[i], "description");
        }
        tap_ok(list && uris_ok, "... lease, windows and screen of the profile and the viewer, each with a name, description and MIME type");
        json_value_free(v);

        /* The viewer's CSP: botdesk web's origin alone, its WebSocket and its files; nothing without one. */
        for (int k = 0; k < 2; k++) {
                const struct json_value *csp, *ui;

                viewer_origin = k ? "http://127.0.0.1:4242" : NULL;
                v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"resources/read\", \"params\": {\"uri\": "
                               "\"ui://botdesk/viewer\"}}");
                c = first_contents(v);
                ui = json_get(json_get(c, "_meta"), "ui");
                csp = json_get(ui, "csp");
                TAP_EQ_STR(json_member_string(c, "uri"), "ui://botdesk/viewer", "the viewer reads under its own URI (%s)",
                           k ? "botdesk web on TCP" : "no botdesk web on TCP");
                TAP_EQ_STR(json_member_string(c, "mimeType"), MCP_APP_MIME, "... as an MCP App");
                tap_ok(json_get(ui, "prefersBorder") && json_get(ui, "prefersBorder")->type == JSON_TRUE, "... with a border");
                if (k) {
                        const struct json_value *cd = json_get(csp, "connectDomains"), *rd = json_get(csp, "resourceDomains");

                        tap_ok(cd && cd->n == 1 && streq_ptr(cd->items[0].string, "ws://127.0.0.1:4242") && rd && rd->n == 1 &&
                               streq_ptr(rd->items[0].string, "http://127.0.0.1:4242"),
                               "... its CSP connects to botdesk web's WebSocket and loads its files, nothing else");
                } else
                        tap_ok(csp && json_get(csp, "connectDomains") && json_get(csp, "connectDomains")->n == 0 &&
                               json_get(csp, "resourceDomains") && json_get(csp, "resourceDomains")->n == 0,
                               "... its CSP lets nothing in");
                json_value_free(v);
        }
        viewer_origin = NULL;

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"resources/templates/list\"}");
        list = json_get(json_get(v, "result"), "resourceTemplates");
        tap_ok(list && list->type == JSON_ARRAY && list->n == 0, "resources/templates/list is an empty list");
        json_value_free(v);

        reads = 0;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"resources/read\", \"params\": {\"uri\": \"botdesk://work/lease\"}}");
        c = first_contents(v);
        TAP_EQ_STR(json_member_string(c, "uri"), "botdesk://work/lease", "resources/read answers with the URI read");
        TAP_EQ_STR(json_member_string(c, "mimeType"), "application/json", "... its MIME type");
        TAP_EQ_STR(json_member_string(c, "text"), "{\"read\": \"lease\"}", "... and the backend's text for that resource");
        TAP_EQ_INT(reads, 1, "... read once");
        json_value_free(v);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"resources/read\", \"params\": {\"uri\": \"botdesk://work/screen\"}}");
        c = first_contents(v);
        TAP_EQ_STR(json_member_string(c, "blob"), "/9j/AA==", "the screen is a blob");
        tap_ok(c && !json_get(c, "text"), "... with no text beside it");
        TAP_EQ_STR(json_member_string(c, "mimeType"), "image/jpeg", "... of image/jpeg");
        json_value_free(v);

        reads = 0;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"resources/read\", \"params\": {\"uri\": \"botdesk://other/lease\"}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "another profile's URI under 2025-11-25 is -32602, as the SDK's server says it");
        e = json_get(json_get(v, "error"), "data");
        TAP_EQ_STR(json_member_string(e, "uri"), "botdesk://other/lease", "... naming the URI in data");
        TAP_EQ_INT(e && e->type == JSON_OBJECT ? (long long) e->n : -1, 1, "... and nothing else (how a client tells it from other bad params)");
        TAP_EQ_INT(reads, 0, "... and nothing is read");
        json_value_free(v);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"resources/read\", \"params\": {}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "resources/read without a uri is -32602");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"resources/read\", \"params\": {\"uri\": 7}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "... or with one that is not a string");
        json_value_free(v);

        read_error = -EIO;
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"resources/read\", \"params\": {\"uri\": \"botdesk://work/windows\"}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INTERNAL_ERROR, "a read that fails is -32603");
        read_error = 0;
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 10, \"method\": \"ping\"}");
        tap_ok(json_get(v, "result") != NULL, "... and the server goes on");
        json_value_free(v);
}

static void test_modern(void) {
        struct mcp_server s;
        const struct json_value *caps, *c, *res;
        struct json_value *v;

        mcp_server_init(&s, &backend, rows, ELEMENTSOF(rows), NULL);
        s.profile = "work";
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"server/discover\", \"params\": {" ENV "}}");
        caps = json_get(json_get(json_get(v, "result"), "capabilities"), "resources");
        tap_ok(caps && caps->type == JSON_OBJECT && !json_get(caps, "subscribe"),
               "server/discover offers resources, without subscribe where no subscriptions are served");
        json_value_free(v);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"resources/read\", \"params\": {\"uri\": "
                       "\"botdesk://work/windows\", " ENV "}}");
        res = json_get(v, "result");
        c = first_contents(v);
        TAP_EQ_STR(json_member_string(c, "text"), "{\"read\": \"windows\"}", "a 2026-07-28 resources/read reads");
        TAP_EQ_STR(json_member_string(res, "resultType"), "complete", "... and says its resultType");
        tap_ok(json_get(res, "ttlMs") && json_get(res, "ttlMs")->type == JSON_NUMBER &&
               streq_ptr(json_member_string(res, "cacheScope"), "private"),
               "... with the cache hints the revision requires (ttlMs, cacheScope private)");
        json_value_free(v);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"resources/read\", \"params\": {\"uri\": "
                       "\"botdesk://work/nothing\", " ENV "}}");
        TAP_EQ_INT(error_code(v), JSONRPC_INVALID_PARAMS, "an unknown URI under 2026-07-28 is -32602 (SEP-2164)");
        TAP_EQ_STR(json_member_string(json_get(json_get(v, "error"), "data"), "uri"), "botdesk://work/nothing",
                   "... naming the URI in data");
        json_value_free(v);

        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"resources/list\", \"params\": {" ENV "}}");
        tap_ok(json_get(json_get(v, "result"), "resources") != NULL, "resources/list serves 2026-07-28 requests too");
        json_value_free(v);
}

static void test_without(void) {
        struct mcp_server s;
        struct json_value *v;

        mcp_server_init(&s, &toolless, rows, ELEMENTSOF(rows), NULL);
        s.profile = "work";
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {\"protocolVersion\": \"2025-11-25\"}}");
        tap_ok(!json_get(json_get(json_get(v, "result"), "capabilities"), "resources"),
               "a backend that reads no resources offers none");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"resources/list\"}");
        TAP_EQ_INT(error_code(v), JSONRPC_METHOD_NOT_FOUND, "... and resources/list is not found");
        json_value_free(v);
        v = handle(&s, "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"resources/read\", \"params\": {\"uri\": \"botdesk://work/lease\"}}");
        TAP_EQ_INT(error_code(v), JSONRPC_METHOD_NOT_FOUND, "... nor resources/read");
        json_value_free(v);
}

int main(void) {
        test_uris();
        test_legacy();
        test_modern();
        test_without();
        return tap_done();
}
