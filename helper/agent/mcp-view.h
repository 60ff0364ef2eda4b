/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "json.h"
#include "resources.h"
#include "server.h"

/*
 * The live viewer in the chat (MCP Apps): the view tool and the
 * ui://botdesk/viewer resource it names (resources.h). The resource is a
 * page with no secret in it; the tool's result carries what opens the
 * desktop for one render: the URL beneath which botdesk web serves an
 * embed ticket (web-embed.c, single-use, TICKET_EMBED_TTL_DEFAULT seconds).
 * Both need a botdesk web on a loopback port of this host (the URL it
 * wrote); without one they say how to start it.
 */

/* The view tool's handler (mcp-tools.c's row), userdata the struct agent. 0, or -ENOMEM. */
int mcp_view_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res);

/*
 * view_take and view_release (mcp-tools.c's rows, offered with [agent] view_takeover = on, visible to the
 * viewer's page alone): control of the desktop taken for the page's viewer (TICKET_EMBED_VIEWER), whose
 * stream's input then reaches the desktop, and handed back. 0, or -ENOMEM.
 */
int mcp_view_control_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res);

/* resources/read of ui://botdesk/viewer into *ret: the page, and botdesk web's origin for its CSP. */
int mcp_viewer_read(struct mcp_resource_contents *ret);
