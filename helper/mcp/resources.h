/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "json.h"

/*
 * The desktop's resources, each a URI of the profile: what resources/list
 * names, resources/read reads and subscriptions/listen (subscriptions.h)
 * watches.
 *
 *   botdesk://P/lease     who has control, and the epoch (application/json)
 *   botdesk://P/windows   the window manager's windows (application/json)
 *   botdesk://P/screen    a settled picture of the screen (image/jpeg)
 *   ui://botdesk/viewer   the live viewer, an MCP App (text/html;profile=mcp-app):
 *                         the view tool's _meta names it, and a host that
 *                         renders MCP Apps shows it with the tool's result
 *
 * This is the table and the wire; the reading is the backend's
 * (server.h: struct mcp_backend's read_resource).
 */

enum {
        MCP_RESOURCE_LEASE = 1u << 0,
        MCP_RESOURCE_WINDOWS = 1u << 1,
        MCP_RESOURCE_SCREEN = 1u << 2,
        MCP_RESOURCES_ALL = (1u << 3) - 1,      /* what a subscription may watch */
        MCP_RESOURCE_VIEWER = 1u << 3,
};

#define MCP_VIEWER_URI "ui://botdesk/viewer"
#define MCP_APP_MIME "text/html;profile=mcp-app"

/* A viewer tool's _meta (tools.h): the viewer's URI, nested and in the flat key older hosts read; app_only:
 * visible to the viewer's page alone. */
void mcp_viewer_tool_meta(struct json *j, bool app_only);

/* What a read gave: text or blob (base64), with its MIME type; both owned. app_origin: the viewer's, the
 * http:// origin of botdesk web that its Content-Security-Policy must let in (owned; NULL: none). */
struct mcp_resource_contents {
        const char *mime;
        char *text;
        char *blob;
        char *app_origin;
};

void mcp_resource_contents_done(struct mcp_resource_contents *c);

/* Which one MCP_RESOURCE_* uri names, among profile's; 0 for any other URI. */
unsigned mcp_resource_of(const char *profile, const char *uri);

/* The resource's name ("lease"...), for one MCP_RESOURCE_* bit. */
const char *mcp_resource_name(unsigned one);

/* The URI of each resource in what (MCP_RESOURCE_* bits), as JSON strings through j. */
void mcp_resource_uris(struct json *j, const char *profile, unsigned what);

/* resources/list's "resources" member: profile's. */
void mcp_resources_list(struct json *j, const char *profile);

/* resources/read's "contents" member: c of the one resource one. */
void mcp_resource_contents_write(struct json *j, const char *profile, unsigned one,
                                 const struct mcp_resource_contents *c);
