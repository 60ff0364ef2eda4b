/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "agent.h"
#include "json.h"
#include "vendor.h"

/*
 * botdesk act's answers in each vendor's own shape, around the one action
 * table (action.h, gemini.h) and the one runner (agent_run()): a format is
 * a parser and a printer here, never a second way to the screen.
 *
 *   Anthropic (@anthropic-ai/sdk 1.16.0, resources/messages/messages.d.ts):
 *     a tool_use block, or an array of those of one turn, answered by the
 *     matching tool_result blocks (ToolResultBlockParam), one per block,
 *     ids echoed. Members of computer_toolset_20260801 (toolset_name
 *     "computer") are rendered as the SDK's own driver does
 *     (lib/internal/toolsets/render.js): its acknowledgment line for a
 *     pure action, "X=..,Y=.." for cursor_position, an image block for
 *     screenshot and zoom. The 2025 tool's blocks (name "computer", input
 *     {"action": ...}) are answered the same way.
 *   OpenAI (openai 7.60.0, resources/responses/responses.d.ts): a
 *     computer_call item with one action or a batch of actions, answered by
 *     one computer_call_output with the screenshot after the last action
 *     and its pending safety checks as acknowledged_safety_checks.
 *   Gemini (@google/genai 3.3.0, dist/genai.d.ts; gemini.h): a part with a
 *     functionCall, an array of parts, or a Content {"role", "parts"},
 *     answered in the same shape with one functionResponse part per call,
 *     the screenshot as its parts[].inlineData.
 *
 * What bad input gets: a refusal in that vendor's shape (Anthropic: every
 * block of the turn still gets a tool_result, is_error from the first
 * refused one on, since the API needs one per tool_use; Gemini: a response
 * {"error": ...} for it and every later call). OpenAI's output item has no
 * field for an error, so there nothing is printed, the reason goes to
 * stderr and act ends with a non-zero status. Nothing
 * of a batch reaches the screen unless all of it parses; a takeover during
 * a batch leaves the actions done reported done and the rest not run.
 */

#define ACT_BATCH_MAX 64

/*
 * Answer v, a line of vendor's shape, on one line of out. screenshots:
 * an image after every action (--screenshots base64) where the shape has
 * room for one. 0; a CLI exit code (cli.h) when act must end, said on
 * stderr with nothing printed (an OpenAI item it could not answer:
 * EXIT_USAGE for one that does not parse, EXIT_REFUSED when control moved
 * to a human, EXIT_FAILED); -ENOMEM.
 */
int act_vendor_answer(struct agent *a, enum mcp_vendor vendor, const struct json_value *v, bool screenshots,
                      FILE *out);
