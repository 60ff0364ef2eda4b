/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shapes of a model's computer-use output (vendor.h). */
#include <errno.h>

#include "util.h"
#include "vendor.h"

static const char *const vendor_names[_MCP_VENDOR_MAX] = {
        [MCP_VENDOR_AUTO] = "auto",
        [MCP_VENDOR_ANTHROPIC] = "anthropic",
        [MCP_VENDOR_OPENAI] = "openai",
        [MCP_VENDOR_GEMINI] = "gemini",
        [MCP_VENDOR_ACTION] = "action",
};

int mcp_vendor_from_name(const char *name) {
        for (int v = 0; v < MCP_VENDOR_ACTION; v++)
                if (streq_ptr(name, vendor_names[v]))
                        return v;
        return -EINVAL;
}

const char *mcp_vendor_name(enum mcp_vendor v) {
        return v < _MCP_VENDOR_MAX ? vendor_names[v] : NULL;
}

bool mcp_vendor_is_tool_use(const struct json_value *v) {
        return v->type == JSON_OBJECT && streq_ptr(json_member_string(v, "type"), "tool_use");
}

bool mcp_vendor_is_message(const struct json_value *v) {
        const struct json_value *content = json_get(v, "content");

        return v->type == JSON_OBJECT && streq_ptr(json_member_string(v, "type"), "message") && content &&
               content->type == JSON_ARRAY;
}

bool mcp_vendor_has_function_call(const struct json_value *v) {
        return v->type == JSON_OBJECT && json_get(v, "functionCall");
}

enum mcp_vendor mcp_vendor_detect(const struct json_value *v) {
        if (v->type == JSON_ARRAY) {
                /* A turn's parts may begin with the model's text: any call decides. */
                for (size_t i = 0; i < v->n; i++) {
                        if (mcp_vendor_is_tool_use(&v->items[i]))
                                return MCP_VENDOR_ANTHROPIC;
                        if (mcp_vendor_has_function_call(&v->items[i]))
                                return MCP_VENDOR_GEMINI;
                }
                return MCP_VENDOR_ACTION;
        }
        if (mcp_vendor_is_tool_use(v) || mcp_vendor_is_message(v))
                return MCP_VENDOR_ANTHROPIC;
        if (v->type == JSON_OBJECT && streq_ptr(json_member_string(v, "type"), "computer_call"))
                return MCP_VENDOR_OPENAI;
        if (mcp_vendor_has_function_call(v) || (v->type == JSON_OBJECT && json_get(v, "parts") && json_get(v, "role")))
                return MCP_VENDOR_GEMINI;
        return MCP_VENDOR_ACTION;
}

