/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "json.h"

/*
 * The shapes of a model's computer-use output that botdesk act takes
 * (agent/act-vendor.h answers them), told apart by shape alone: pure, for
 * the verbs that name a vendor (act --vendor, toolset) and the tests.
 */

enum mcp_vendor {
        MCP_VENDOR_AUTO,
        MCP_VENDOR_ANTHROPIC,           /* tool_use blocks: one, a turn's content array, or the Message */
        MCP_VENDOR_OPENAI,              /* a computer_call item */
        MCP_VENDOR_GEMINI,              /* functionCall parts: one, a list, or a content */
        MCP_VENDOR_ACTION,              /* a bare action object: {"action": ...} or {"type": "click", ...} */
        _MCP_VENDOR_MAX,
};

/* The vendor named by --vendor (auto, anthropic, openai, gemini), or -EINVAL. */
int mcp_vendor_from_name(const char *name);
const char *mcp_vendor_name(enum mcp_vendor v);

/* Which vendor's shape v is: one of the above but AUTO; MCP_VENDOR_ACTION for anything else. */
enum mcp_vendor mcp_vendor_detect(const struct json_value *v);

/* A tool_use block, a Message with its content blocks (Anthropic); a part with a functionCall (Gemini). */
bool mcp_vendor_is_tool_use(const struct json_value *v);
bool mcp_vendor_is_message(const struct json_value *v);
bool mcp_vendor_has_function_call(const struct json_value *v);
