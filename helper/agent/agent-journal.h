/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "agent.h"

struct lease;

/*
 * The journal entries of an agent's actions through botdesk mcp and act
 * (journal-hook.h): what agent_run() did, in screen pixels, as `journal
 * replay` sends it again; and a clipboard_write or clipboard_read, its type
 * and length only.
 * A refused action (a human holds control) is not the agent's: none.
 */
void agent_journal_action(struct agent *a, const struct mcp_action *act, const struct agent_outcome *o);
void agent_journal_clipboard_write(struct agent *a, const struct lease *admitted, bool png, size_t size,
                                   const struct agent_outcome *o);
void agent_journal_clipboard_read(struct agent *a, bool png, size_t size, const struct agent_outcome *o);
