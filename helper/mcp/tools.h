/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "config.h"
#include "coords.h"
#include "json.h"

/*
 * The tools botdesk offers an agent, as tools/list describes them: name,
 * description (with the coordinate space: the picture's size and scale)
 * and inputSchema (JSON Schema). computer takes both action schemas
 * (action.h); batch a list of them; windows and status nothing; ask_human
 * a reason. With set (config.h, [agent] mcp_tools) MCP_TOOLS_MEMBERS or
 * MCP_TOOLS_BOTH, every member of Anthropic's computer toolset is a tool
 * of its own, with the member's name and input (action.h); with
 * MCP_TOOLS_MEMBERS, computer and batch are not offered. A member of
 * members_off is never offered. The tools that
 * act (computer, batch, the members, windows, clipboard_read,
 * clipboard_write, the a11y ones) also take "epoch": the lease epoch a
 * gateway approved the call at, which the gate holds the call to (cli.h).
 */

/* Which of the screen's tools are offered: [agent] mcp_tools, and the members [agent] toolset_disabled names. */
struct mcp_tool_set {
        enum mcp_tools_kind kind;
        uint32_t members_off;           /* a bit per member index (action.h) not offered */
};

/* Writes the "tools" array's items through j. */
void mcp_tools_write(struct json *j, const struct mcp_space *space, const struct mcp_tool_set *set);

/* Whether name is one of the tools of set. */
bool mcp_tool_known(const char *name, const struct mcp_tool_set *set);

/* Whether name is a toolset member's tool of set. */
bool mcp_tool_is_member(const char *name, const struct mcp_tool_set *set);

/* The names of set's tools, "computer, batch, ..." (new string), or NULL. */
char *mcp_tool_names(const struct mcp_tool_set *set);
