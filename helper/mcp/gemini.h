/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "action.h"
#include "coords.h"
#include "json.h"

/*
 * Gemini's predefined computer-use functions (a functionCall part's name
 * and args) as the one action table's actions. The names, their arguments
 * and the 0-999 grid are not in @google/genai 3.3.0 (dist/genai.d.ts has
 * only Tool.computerUse, environment ENVIRONMENT_DESKTOP and
 * excludedPredefinedFunctions): they are Google's computer-use
 * documentation's and its reference agent's (google-gemini's
 * computer-use-preview, agent.py), which also fixes the defaults where the
 * documentation is silent or differs: type_text_at presses Enter only when
 * asked (press_enter, default false) and clears the field first unless told
 * not to (clear_before_typing, default true); scroll_at's magnitude is on
 * the same grid, default 800; key_combination's keys are one string,
 * "Control+C". Coordinates map to the screen as the reference agent does,
 * x * width / 1000, so 0 is the first pixel and 999 the last.
 *
 * A compound function is several actions, run in order: type_text_at is a
 * click, then (clearing) ctrl+a and BackSpace, the typing, then (pressing
 * Enter) Return. The browser's own functions (open_web_browser, navigate,
 * search, go_back, go_forward) are refused with the desktop's way to do it:
 * botdesk serves a whole desktop, not a page.
 */

#define MCP_GEMINI_GRID 1000
#define MCP_GEMINI_STEPS_MAX 4
#define MCP_GEMINI_SCROLL_MAGNITUDE_DEFAULT 800
/* scroll_document: the wheel steps of about half a screen on a 900-line one */
#define MCP_GEMINI_DOCUMENT_STEPS 5

struct mcp_gemini_call {
        const char *name;               /* borrowed from the message */
        struct mcp_action steps[MCP_GEMINI_STEPS_MAX];
        size_t n_steps;
        bool safety_decision;           /* args held a safety_decision: the response acknowledges it */
        char combo[256];                /* key_combination's keys in the action table's syntax */
};

/*
 * Parse one functionCall (name, args: an object or absent) for a screen of
 * s->screen_w x s->screen_h. 0 with *ret filled (its strings point into
 * args, or into ret itself); -EINVAL with the reason, naming the valid
 * form or the desktop's alternative, in *ret_error (new string); -ENOMEM.
 */
int mcp_gemini_parse(const char *name, const struct json_value *args, const struct mcp_space *s,
                     struct mcp_gemini_call *ret, char **ret_error);

/* The predefined functions botdesk does not serve (the browser's own), i from 0; NULL past the last: what a
 * Tool.computerUse declaration excludes. */
const char *mcp_gemini_excluded(size_t i);
