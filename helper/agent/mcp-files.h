/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "agent.h"
#include "json.h"
#include "server.h"

/*
 * The MCP tools file_upload ({"path", "content" (base64), "force"}),
 * file_download ({"path"}: the bytes as an embedded resource blob with a
 * MIME type), file_list ({"path"}) and downloads ({"since", "wait_ms"}):
 * botdesk files (files.h) for an agent, behind the lease gate, journaled,
 * capped at [files] mcp_max_bytes. Their rows' handler (mcp-tools.c),
 * userdata the struct agent. 0 with the result in *res, or -ENOMEM.
 */
int mcp_files_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res);

/* Their input schemas. */
extern const char mcp_file_upload_schema[], mcp_file_download_schema[], mcp_file_list_schema[], mcp_downloads_schema[];
