/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The desktop's MCP rows (helper/agent/mcp-tools.c), as tools/list shows
 * them: every row has a name of its own, a handler, a description and a
 * schema that is JSON Schema of the kind MCP clients validate with (an
 * object schema whose keywords and types are JSON Schema's); a row that
 * acts takes "epoch" and one that does not, does not; no member's name is
 * a row's. The integration test mcp-v2 compiles the same schemas with
 * ajv, as the SDKs do.
 */
#include <stdlib.h>

#include "action.h"
#include "mcp-tools.h"
#include "server.h"
#include "tap.h"
#include "util.h"
#include "cli.h"

/* The module's one call into the CLI (x11-verbs-module.c): the rows are read here, never run. */
int cli_start_on_demand(const char *profile, bool flag) {
        abort();
}

static const char *const types[] = { "object", "array", "string", "integer", "number", "boolean", "null" };
static const char *const keywords[] = { "type",     "properties", "required", "items",     "enum",      "oneOf",
                                        "anyOf",    "minimum",    "maximum",  "minItems",  "maxItems",  "minLength",
                                        "maxLength", "description", "additionalProperties" };

static bool known(const char *word, const char *const *list, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (streq(word, list[i]))
                        return true;
        return false;
}

static bool is_type(const struct json_value *t) {
        if (t->type == JSON_STRING)
                return known(t->string, types, ELEMENTSOF(types));
        if (t->type != JSON_ARRAY || t->n == 0)
                return false;
        for (size_t i = 0; i < t->n; i++)
                if (t->items[i].type != JSON_STRING || !known(t->items[i].string, types, ELEMENTSOF(types)))
                        return false;
        return true;
}

/* Whether s is a schema of the subset (why not, in *why). */
static bool valid(const struct json_value *s, const char **why) {
        const struct json_value *props = json_get(s, "properties"), *req = json_get(s, "required");

        if (s->type != JSON_OBJECT)
                return *why = "a schema that is not an object", false;
        for (size_t i = 0; i < s->n; i++) {
                const struct json_value *m = &s->items[i];

                if (!known(m->key, keywords, ELEMENTSOF(keywords)))
                        return *why = m->key, false;
                if (streq(m->key, "type") && !is_type(m))
                        return *why = "a type that is not one of JSON Schema's", false;
                if ((streq(m->key, "items") || streq(m->key, "additionalProperties")) && m->type == JSON_OBJECT &&
                    !valid(m, why))
                        return false;
                if (streq(m->key, "enum") && (m->type != JSON_ARRAY || m->n == 0))
                        return *why = "an enum that is not a list", false;
                if ((streq(m->key, "oneOf") || streq(m->key, "anyOf")) && m->type != JSON_ARRAY)
                        return *why = "a oneOf that is not a list", false;
                for (size_t k = 0; m->type == JSON_ARRAY && (streq(m->key, "oneOf") || streq(m->key, "anyOf")) && k < m->n; k++)
                        if (!valid(&m->items[k], why))
                                return false;
        }
        if (props) {
                if (props->type != JSON_OBJECT)
                        return *why = "properties that are not an object", false;
                for (size_t i = 0; i < props->n; i++)
                        if (!valid(&props->items[i], why))
                                return false;
        }
        if (req) {
                if (req->type != JSON_ARRAY)
                        return *why = "required that is not a list", false;
                for (size_t i = 0; i < req->n; i++)
                        /* (A branch of oneOf names the parent's properties.) */
                        if (req->items[i].type != JSON_STRING || (props && !json_get(props, req->items[i].string)))
                                return *why = "a required member that is not a property", false;
        }
        return true;
}

int main(void) {
        _cleanup_free_ char *names = NULL;
        struct mcp_tool_table all = { .rows = mcp_desktop_tools, .n = mcp_desktop_tools_n };

        tap_ok(mcp_desktop_tools_n >= 10, "the desktop has its tools (%zu rows)", mcp_desktop_tools_n);
        for (size_t i = 0; i < mcp_desktop_tools_n; i++) {
                const struct mcp_tool *row = &mcp_desktop_tools[i];
                bool members = row->flags & MCP_TOOL_MEMBERS;
                struct json_value *schema = NULL;
                const char *why = "it is not JSON";
                bool unique = true, epoch;

                tap_ok(row->name && *row->name && row->call, "%s: a name and a handler", row->name ?: "(a row)");
                if (members) {
                        for (size_t m = 0; m < mcp_members_count(); m++)
                                for (size_t k = 0; k < mcp_desktop_tools_n; k++)
                                        if (streq(mcp_member_name(m), mcp_desktop_tools[k].name))
                                                unique = false;
                        tap_ok(unique && (row->flags & MCP_TOOL_ACTS), "the members' row acts, and no member is named as a row");
                        continue;
                }
                for (size_t k = 0; k < i; k++)
                        if (streq(row->name, mcp_desktop_tools[k].name))
                                unique = false;
                tap_ok(unique, "%s: no other row has its name", row->name);
                tap_ok(row->description || row->describe, "%s: a description", row->name);
                if (!tap_ok(row->schema && json_parse(row->schema, strlen(row->schema), &schema) == 0 &&
                                    valid(schema, &why) && streq_ptr(json_member_string(schema, "type"), "object"),
                            "%s: its inputSchema is an object schema of JSON Schema", row->name))
                        printf("#   %s\n", why);
                epoch = json_get(json_get(schema, "properties"), "epoch") &&
                        streq_ptr(json_member_string(json_get(json_get(schema, "properties"), "epoch"), "type"), "integer");
                tap_ok(epoch == !!(row->flags & MCP_TOOL_ACTS), "%s: %s", row->name,
                       row->flags & MCP_TOOL_ACTS ? "acts, and takes epoch" : "does not act, and takes no epoch");
                json_value_free(schema);
        }

        /* Every tool the rows make, the members expanded: the names mcp's usage lists. */
        all.set.kind = MCP_TOOLS_BOTH;
        names = mcp_tool_names(&all);
        if (!tap_ok(names && startswith(names, "computer, batch, windows, status, ask_human, clipboard_read, "
                                               "clipboard_write, a11y_tree, a11y_find, a11y_do, wait_until, file_upload, file_download, "
                                               "file_list, downloads, view, key, "),
                    "the tools in the order of botdesk mcp --help, the members last"))
                printf("#   %s\n", names);
        tap_ok(mcp_tool_find(&all, "zoom") && (mcp_tool_find(&all, "zoom")->flags & MCP_TOOL_MEMBERS) &&
               !mcp_tool_find(&all, "nosuch"), "a member's name finds the members' row, a name of nothing nothing");
        /* The viewer page's own tools: found where offered, never among the model's names. */
        tap_ok(mcp_tool_find(&all, "view_take") && (mcp_tool_find(&all, "view_take")->flags & MCP_TOOL_APP) &&
               mcp_tool_find(&all, "view_release") && (mcp_tool_find(&all, "view_release")->flags & MCP_TOOL_APP),
               "view_take and view_release are the viewer page's own tools");
        tap_ok(names && !strstr(names, "view_take") && !strstr(names, "view_release"),
               "... not among the names the model is told");
        all.set.flags_off = MCP_TOOL_APP;
        tap_ok(!mcp_tool_find(&all, "view_take") && !mcp_tool_find(&all, "view_release") && mcp_tool_find(&all, "view"),
               "... and not offered at all where view_takeover is off, view still");
        all.set.flags_off = 0;
        all.set.kind = MCP_TOOLS_MEMBERS;
        tap_ok(!mcp_tool_find(&all, "computer") && !mcp_tool_find(&all, "batch") && mcp_tool_find(&all, "windows"),
               "with mcp_tools = members, computer and batch are offered nowhere");
        return tap_done();
}
