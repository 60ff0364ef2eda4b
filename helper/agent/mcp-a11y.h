/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "agent.h"
#include "json.h"
#include "server.h"

/*
 * The MCP tools a11y_tree ({"window", "max_nodes"}), a11y_find ({"find",
 * "window", "max_nodes"}) and a11y_do ({"id", "action", "text"}): the
 * results of botdesk a11y --json (a11y-agent.h), behind the same lease
 * gate, with bounds in the space of the agent's last screenshot: their
 * rows' handler (mcp-tools.c), userdata the struct agent. 0 with the
 * result in *res, or -ENOMEM.
 */
int mcp_a11y_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res);
