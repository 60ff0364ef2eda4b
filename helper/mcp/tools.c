/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "action.h"
#include "tools.h"
#include "util.h"

/*
 * One object schema for both action shapes: Anthropic's names itself with
 * "action", OpenAI's with "type" (oneOf). Kept permissive on the members
 * (action.c judges them, with messages that name the valid form): a
 * client that validates before sending would otherwise send nothing and
 * never see them.
 */
#define POINT "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 2, \"maxItems\": 2}"
#define ACTION_PROPERTIES                                                                                              \
        "\"action\": {\"type\": \"string\", \"enum\": [\"key\", \"type\", \"mouse_move\", \"left_click\", "           \
        "\"left_click_drag\", \"right_click\", \"middle_click\", \"double_click\", \"triple_click\", "                  \
        "\"left_mouse_down\", \"left_mouse_up\", \"scroll\", \"hold_key\", \"wait\", \"cursor_position\", "             \
        "\"screenshot\", \"zoom\"]}, "                                                                                  \
        "\"coordinate\": " POINT ", "                                                                                   \
        "\"start_coordinate\": " POINT ", "                                                                             \
        "\"text\": {\"type\": \"string\"}, "                                                                            \
        "\"scroll_direction\": {\"type\": \"string\", \"enum\": [\"up\", \"down\", \"left\", \"right\"]}, "             \
        "\"scroll_amount\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 1000}, "                                \
        "\"duration\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 100}, "                                      \
        "\"region\": {\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 4, \"maxItems\": 4}, "     \
        "\"type\": {\"type\": \"string\", \"enum\": [\"click\", \"double_click\", \"drag\", \"keypress\", \"move\", "   \
        "\"scroll\", \"type\", \"wait\", \"screenshot\"]}, "                                                            \
        "\"x\": {\"type\": \"integer\"}, "                                                                              \
        "\"y\": {\"type\": \"integer\"}, "                                                                              \
        "\"button\": {\"type\": \"string\", \"enum\": [\"left\", \"right\", \"wheel\", \"back\", \"forward\"]}, "       \
        "\"path\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {\"x\": {\"type\": "         \
        "\"integer\"}, \"y\": {\"type\": \"integer\"}}, \"required\": [\"x\", \"y\"]}, \"minItems\": 2}, "              \
        "\"keys\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}, \"minItems\": 1}, "                         \
        "\"scroll_x\": {\"type\": \"integer\"}, "                                                                       \
        "\"scroll_y\": {\"type\": \"integer\"}"
#define ACTION_SCHEMA                                                                                                  \
        "{\"type\": \"object\", \"properties\": {" ACTION_PROPERTIES "}, "                                              \
        "\"oneOf\": [{\"required\": [\"action\"]}, {\"required\": [\"type\"]}]}"
/* Every tool that acts on the desktop takes the lease epoch a gateway approved it at. */
#define EPOCH_SCHEMA "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 9007199254740991}"
#define EPOCH_PROPERTY "\"epoch\": " EPOCH_SCHEMA

static const char computer_schema[] =
        "{\"type\": \"object\", \"properties\": {" ACTION_PROPERTIES ", " EPOCH_PROPERTY "}, "
        "\"oneOf\": [{\"required\": [\"action\"]}, {\"required\": [\"type\"]}]}";
static const char batch_schema[] =
        "{\"type\": \"object\", \"properties\": {\"actions\": {\"type\": \"array\", \"items\": " ACTION_SCHEMA
        ", \"minItems\": 1, \"maxItems\": 64}, " EPOCH_PROPERTY "}, \"required\": [\"actions\"]}";
static const char empty_schema[] = "{\"type\": \"object\", \"properties\": {}}";
static const char epoch_schema[] = "{\"type\": \"object\", \"properties\": {" EPOCH_PROPERTY "}}";

static const char *const names[] = { "computer", "batch", "windows", "status", "ask_human", "clipboard_read",
                                     "clipboard_write", "a11y_tree", "a11y_find", "a11y_do" };
static const char clip_read_schema[] =
        "{\"type\": \"object\", \"properties\": {\"type\": {\"type\": \"string\", \"enum\": [\"text/plain\", "
        "\"image/png\"]}, " EPOCH_PROPERTY "}}";
static const char clip_write_schema[] =
        "{\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}, " EPOCH_PROPERTY "}, "
        "\"required\": [\"text\"]}";
#define A11Y_READ_PROPERTIES                                                                                           \
        "\"window\": {\"type\": [\"integer\", \"string\"]}, "                                                          \
        "\"max_nodes\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100000}"
static const char a11y_tree_schema[] =
        "{\"type\": \"object\", \"properties\": {" A11Y_READ_PROPERTIES ", " EPOCH_PROPERTY "}}";
static const char a11y_find_schema[] =
        "{\"type\": \"object\", \"properties\": {\"find\": {\"type\": \"string\", \"minLength\": 1}, "
        A11Y_READ_PROPERTIES ", " EPOCH_PROPERTY "}, \"required\": [\"find\"]}";
static const char a11y_do_schema[] =
        "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}, \"action\": {\"type\": "
        "\"string\"}, \"text\": {\"type\": \"string\"}, " EPOCH_PROPERTY "}, \"required\": [\"id\", \"action\"]}";
static const char ask_schema[] =
        "{\"type\": \"object\", \"properties\": {\"reason\": {\"type\": \"string\", \"minLength\": 1, "
        "\"maxLength\": 256}, \"timeout\": {\"type\": \"number\", \"minimum\": 1, \"maximum\": 3600}}, "
        "\"required\": [\"reason\"]}";

/* computer and batch: the 2025 single tool's. */
static bool single_tool(const char *name) {
        return streq(name, "computer") || streq(name, "batch");
}

/* Whether member i is offered in set. */
static bool member_on(const struct mcp_tool_set *set, size_t i) {
        return set->kind != MCP_TOOLS_COMPUTER && !(set->members_off & (UINT32_C(1) << i));
}

bool mcp_tool_is_member(const char *name, const struct mcp_tool_set *set) {
        for (size_t i = 0; i < mcp_members_count(); i++)
                if (streq(mcp_member_name(i), name))
                        return member_on(set, i);
        return false;
}

bool mcp_tool_known(const char *name, const struct mcp_tool_set *set) {
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(names[i], name))
                        return set->kind != MCP_TOOLS_MEMBERS || !single_tool(name);
        return mcp_tool_is_member(name, set);
}

char *mcp_tool_names(const struct mcp_tool_set *set) {
        _cleanup_free_ char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        const char *sep = "";

        if (!f)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (set->kind != MCP_TOOLS_MEMBERS || !single_tool(names[i])) {
                        fprintf(f, "%s%s", sep, names[i]);
                        sep = ", ";
                }
        for (size_t i = 0; i < mcp_members_count(); i++)
                if (member_on(set, i))
                        fprintf(f, ", %s", mcp_member_name(i));
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(out);
}

static void tool(struct json *j, const char *name, const char *description, const char *schema) {
        json_object_begin(j);
        json_kv_string(j, "name", name);
        json_kv_string(j, "description", description);
        json_key(j, "inputSchema");
        json_raw(j, schema);
        json_object_end(j);
}

/* One tool per member of the toolset, its name and input the member's. */
static void member_tools(struct json *j, const struct mcp_space *space, const struct mcp_tool_set *set) {
        for (size_t i = 0; i < mcp_members_count(); i++) {
                if (!member_on(set, i))
                        continue;
                _cleanup_free_ char *description = NULL;

                description = strdup_printf(
                        "%s Anthropic's computer toolset member %s: coordinates are pixels of the %ux%u screenshots "
                        "botdesk returns (the %ux%u screen at scale %.6g). botdesk waits until the screen settles and "
                        "returns a screenshot; refused while a human has control.",
                        mcp_member_summary(i) ?: "", mcp_member_name(i), space->image_w, space->image_h,
                        space->screen_w, space->screen_h, mcp_space_scale(space));

                json_object_begin(j);
                json_kv_string(j, "name", mcp_member_name(i));
                json_kv_string(j, "description", description ?: mcp_member_name(i));
                json_key(j, "inputSchema");
                mcp_member_schema_write(j, i, EPOCH_SCHEMA);
                json_object_end(j);
        }
}

void mcp_tools_write(struct json *j, const struct mcp_space *space, const struct mcp_tool_set *set) {
        _cleanup_free_ char *computer = NULL;

        computer = strdup_printf(
                "The desktop's screen, mouse and keyboard. Screenshots are %ux%u pixels (the %ux%u screen at scale "
                "%.6g); every coordinate is a pixel of that screenshot. Takes Anthropic's computer actions "
                "({\"action\": \"left_click\", \"coordinate\": [x, y]}, key, type, mouse_move, left_click_drag, "
                "right_click, middle_click, double_click, triple_click, left_mouse_down, left_mouse_up, scroll, "
                "hold_key, wait, cursor_position, screenshot, zoom) or OpenAI's ({\"type\": \"click\", \"x\": x, "
                "\"y\": y, \"button\": \"left\"}, double_click, drag, keypress, move, scroll, type, wait, "
                "screenshot). After each action botdesk waits until the screen settles and returns a screenshot. "
                "While a human has control, every action is refused; with \"epoch\": N (every tool that acts "
                "takes it) an action is also refused (suppressed: epoch_moved) once the lease epoch is no longer N.",
                space->image_w, space->image_h, space->screen_w, space->screen_h, mcp_space_scale(space));
        if (set->kind != MCP_TOOLS_MEMBERS) {
                tool(j, "computer", computer ?: "The desktop's screen, mouse and keyboard.", computer_schema);
                tool(j, "batch",
                     "Run a list of computer actions in order (either schema), stopping at the first that fails or "
                     "is refused; one screenshot at the end.",
                     batch_schema);
        }
        tool(j, "windows", "The window manager's windows: id, title, class, geometry (screen pixels), active.",
             epoch_schema);
        tool(j, "status", "The desktop: who has control (agent or human), the lease epoch, the screen and "
                          "screenshot sizes and scale.",
             empty_schema);
        tool(j, "ask_human",
             "Hand the desktop to a human, with the reason (a login, a captcha, a decision): the request is shown "
             "to the people watching; returns once a human took control and handed it back (outcome returned), or "
             "after timeout seconds (default 50; outcome timeout).",
             ask_schema);
        tool(j, "clipboard_read", "The desktop's clipboard: text (default) or a PNG image (type image/png).",
             clip_read_schema);
        tool(j, "clipboard_write", "Make text the desktop's clipboard (to paste with ctrl+v).", clip_write_schema);
        tool(j, "a11y_tree",
             "The accessibility tree of the screen, or of one window (an id of the windows tool): each element's id, "
             "role, name, states, actions, text (never a password's) and bounds, on the screen and in screenshot "
             "pixels (screenshot_bounds: click its centre with the computer tool). At most max_nodes (default "
             "2000); cut says when there were more.",
             a11y_tree_schema);
        tool(j, "a11y_find",
             "Elements of the accessibility tree that match find: comma-separated role=ROLE, name=TEXT (contains), "
             "name==TEXT (exactly), state=STATE or state=!STATE, e.g. \"role=push button,name==Save\".",
             a11y_find_schema);
        tool(j, "a11y_do",
             "Act on an element by its id (from a11y_tree or a11y_find): action is one it offers (click, press, "
             "activate, ...) or set-text with text.",
             a11y_do_schema);
        member_tools(j, space, set);
}
