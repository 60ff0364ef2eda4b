/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "json.h"
#include "server.h"

/*
 * The MCP tool wait_until ({"for": COND, "timeout": S, "screenshot": bool,
 * "since_revision"}): botdesk wait's conditions (wait-until.h) on the
 * agent's own connection, behind the same lease gate, answered with what
 * matched and, unless screenshot is false, a screenshot once the screen
 * has settled. Its row's handler (mcp-tools.c), userdata the struct agent.
 * 0 with the result in *res, or -ENOMEM.
 */
extern const char mcp_wait_schema[];

int mcp_wait_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res);
