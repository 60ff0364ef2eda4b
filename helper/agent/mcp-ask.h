/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "agent.h"
#include "server.h"

/*
 * ask_human's rounds under MCP 2026-07-28 for a client that declared
 * elicitation (mcp-ask.c): each call answers at once, with input requests
 * or the outcome ("returned", "declined", "not_taken"), never waiting for
 * the human. A requestState that does not verify is -EBADMSG (the server
 * answers -32602); 0 otherwise, or -ENOMEM.
 */
int mcp_ask_human_rounds(struct agent *a, const char *reason, const struct mcp_call *call, struct mcp_result *res);
