/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "coords.h"
#include "json.h"

/*
 * The tools botdesk offers an agent, as tools/list describes them: name,
 * description (with the coordinate space: the picture's size and scale)
 * and inputSchema (JSON Schema). computer takes both action schemas
 * (action.h); batch a list of them; windows and status nothing; ask_human
 * a reason. The tools that act (computer, batch, windows, clipboard_read,
 * clipboard_write) also take "epoch": the lease epoch a gateway approved
 * the call at, which the gate holds the call to (cli.h).
 */

/* Writes the "tools" array's items through j. */
void mcp_tools_write(struct json *j, const struct mcp_space *space);

/* Whether name is one of the tools. */
bool mcp_tool_known(const char *name);
