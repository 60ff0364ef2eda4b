/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coords.h"
#include "json.h"
#include "screen-revision.h"

/*
 * One agent action, from either schema agents speak:
 *   Anthropic's computer tool (computer_20251124): {"action": "left_click", "coordinate": [x, y], ...}
 *   OpenAI's computer actions: {"type": "click", "x": .., "y": .., "button": "left"}
 * told apart by "action" against "type"; or a member of Anthropic's
 * computer toolset (computer_toolset_20260801, @anthropic-ai/sdk 1.16.0
 * resources/messages/messages.d.ts, the Computer*Input types): the member's
 * name and its input, which is the 2025 action's arguments without
 * "action" (mcp_action_parse_member()). OpenAI's actions take the GA
 * computer tool's fields as well (openai 7.60.0
 * resources/responses/responses.d.ts, ResponseComputerToolCall): "keys"
 * held during a click, double_click, drag, move or scroll. Parsing checks everything (names,
 * arguments present and none extra, coordinates inside the picture,
 * durations) and maps every coordinate to the screen through the one
 * function of coords.h, so that an action that parses is one that can run,
 * and one that does not parse sends nothing. Pure: no X.
 */

#define MCP_DURATION_MAX_MS 100000u   /* hold_key, wait: 100 s */
#define MCP_SCROLL_MAX 1000           /* wheel steps */
#define MCP_PATH_MAX 64               /* points of a drag */
#define MCP_KEYS_MAX 16               /* keys of an OpenAI keypress, or held */
#define MCP_REPEAT_MAX 100            /* a toolset key's repeat */
/* OpenAI's scroll_x/scroll_y are pixels; X scrolls in wheel steps, which
 * toolkits turn into about this many pixels each. */
#define MCP_SCROLL_PIXELS_PER_STEP 100

enum mcp_act {
        MCP_ACT_KEY,            /* text: combos separated by spaces (xdotool's key syntax) */
        MCP_ACT_TYPE,           /* text */
        MCP_ACT_MOVE,
        MCP_ACT_CLICK,          /* button, clicks, optional point, optional held keys in text */
        MCP_ACT_DRAG,           /* path, button 1 */
        MCP_ACT_DOWN,
        MCP_ACT_UP,
        MCP_ACT_SCROLL,         /* optional point, dx/dy steps, optional held keys */
        MCP_ACT_HOLD_KEY,       /* text, duration_ms */
        MCP_ACT_WAIT,           /* duration_ms */
        MCP_ACT_CURSOR_POSITION,
        MCP_ACT_SCREENSHOT,
        MCP_ACT_ZOOM,           /* region (screen pixels, inclusive corners) */
};

enum mcp_schema {
        MCP_SCHEMA_ANTHROPIC,
        MCP_SCHEMA_OPENAI,
};

struct mcp_action {
        enum mcp_act kind;
        enum mcp_schema schema;
        const char *name;               /* as the agent named it (borrowed from the message) */
        bool have_point;
        unsigned x, y;                  /* screen pixels */
        unsigned path[MCP_PATH_MAX][2]; /* drag: screen pixels, at least 2 */
        size_t n_path;
        unsigned button;                /* X button: 1 left, 2 middle, 3 right, 8 back, 9 forward */
        unsigned clicks;                /* 1-3 */
        const char *text;               /* borrowed: type's text, key's combos, held modifiers */
        const char *keys[MCP_KEYS_MAX]; /* OpenAI keypress: pressed together; else held during the action */
        size_t n_keys;
        unsigned repeat;                /* key: the combos this many times (1 unless the toolset said) */
        long long dx, dy;               /* scroll: wheel steps, right and down positive */
        unsigned duration_ms;
        unsigned region[4];             /* zoom: x0 y0 x1 y1 on the screen */
        struct screen_since since;      /* the picture's since_revision, when given */
        bool changed_region;            /* with since: only the part that changed, when little did (agent-picture.h) */
};

/*
 * Parse args (one action object) in the coordinate space s. 0 with *ret
 * filled (its strings point into args, which must outlive it); -EINVAL
 * with a message naming the valid form in *ret_error (new string), or
 * -ENOMEM.
 */
int mcp_action_parse(const struct json_value *args, const struct mcp_space *s, struct mcp_action *ret, char **ret_error);

/*
 * The same for a member call of Anthropic's computer toolset: member (a
 * tool_use block's "name") with input (its "input", an object). A member
 * takes its 2025 action's arguments, except that key also takes "repeat",
 * left_click_drag a held "text", and left_mouse_down and left_mouse_up
 * nothing. -EINVAL names the member's valid input in *ret_error.
 */
int mcp_action_parse_member(const char *member, const struct json_value *input, const struct mcp_space *s,
                            struct mcp_action *ret, char **ret_error);

/* The toolset's members, in its order: name, what it does, and its input's JSON Schema (with "epoch" when
 * epoch_schema is not NULL: the gate's pin, as the tools that act take it). */
size_t mcp_members_count(void);
/*
 * The members named in words (separated by spaces; NULL or empty: none) as
 * a mask of their indices. -EINVAL with the first word that names no member
 * in *ret_bad (new string); -ENOMEM.
 */
int mcp_members_mask(const char *words, uint32_t *ret_mask, char **ret_bad);
const char *mcp_member_name(size_t i);
const char *mcp_member_summary(size_t i);
void mcp_member_schema_write(struct json *j, size_t i, const char *epoch_schema);

/* The action's name in the results: as given. */
static inline const char *mcp_action_name(const struct mcp_action *a) {
        return a->name;
}
