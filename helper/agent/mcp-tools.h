/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "agent.h"
#include "server.h"
#include "tools.h"

/*
 * The MCP tools of a desktop (mcp/tools.h: one row per tool): computer and
 * batch (either action schema), windows, status, ask_human, the clipboard,
 * the accessibility tree and the toolset's members. All but status and
 * ask_human act: they take "epoch" and pass the lease gate.
 */
struct lease;

extern const struct mcp_tool mcp_desktop_tools[];
extern const size_t mcp_desktop_tools_n;

/*
 * The lease gate of a tool that answers JSON of its own (the a11y and file
 * tools), pinned to the call's epoch: true to go on; false with the
 * refusal ({"ok": false, "suppressed", "epoch", "error"}) as the error
 * result and *ret 0, or -ENOMEM.
 */
bool mcp_tool_admit(struct agent *a, const char *tool, struct lease *admitted, struct mcp_result *res, int *ret);

/*
 * The error result of such a tool whose control moved while it ran:
 * {"ok": false, "suppressed": "human_has_control", "error": "A human took
 * control of this screen while TOOL ran; VOIDED."}. Returns 0, or -ENOMEM.
 */
int mcp_tool_voided(struct mcp_result *res, const char *tool, const char *voided);

/* s serving a's desktop with those rows, offered as a's [agent] mcp_tools says. */
void mcp_desktop_server_init(struct mcp_server *s, struct agent *a);
