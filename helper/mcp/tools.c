/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "action.h"
#include "resources.h"
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
        "\"scroll_y\": {\"type\": \"integer\"}, "                                                                    \
        "\"since_revision\": " MCP_SINCE_REVISION_SCHEMA ", "                                                         \
        "\"changed_region\": {\"type\": \"boolean\"}"
#define ACTION_SCHEMA                                                                                                  \
        "{\"type\": \"object\", \"properties\": {" ACTION_PROPERTIES "}, "                                              \
        "\"oneOf\": [{\"required\": [\"action\"]}, {\"required\": [\"type\"]}]}"
const char mcp_computer_schema[] =
        "{\"type\": \"object\", \"properties\": {" ACTION_PROPERTIES ", " MCP_EPOCH_PROPERTY "}, "
        "\"oneOf\": [{\"required\": [\"action\"]}, {\"required\": [\"type\"]}]}";
const char mcp_batch_schema[] =
        "{\"type\": \"object\", \"properties\": {\"actions\": {\"type\": \"array\", \"items\": " ACTION_SCHEMA
        ", \"minItems\": 1, \"maxItems\": 64}, \"screenshot\": {\"type\": \"boolean\"}, " MCP_EPOCH_PROPERTY
        "}, \"required\": [\"actions\"]}";

/* Whether member i is offered in set. */
static bool member_on(const struct mcp_tool_set *set, size_t i) {
        return set->kind != MCP_TOOLS_COMPUTER && !(set->members_off & (UINT32_C(1) << i));
}

/* Whether row is offered in set (a members row: whether any member could be). */
static bool row_on(const struct mcp_tool *row, const struct mcp_tool_set *set) {
        if (row->flags & set->flags_off)
                return false;
        if (row->flags & MCP_TOOL_MEMBERS)
                return set->kind != MCP_TOOLS_COMPUTER;
        return set->kind != MCP_TOOLS_MEMBERS || !(row->flags & MCP_TOOL_SINGLE);
}

const struct mcp_tool *mcp_tool_find(const struct mcp_tool_table *t, const char *name) {
        const struct mcp_tool *members = NULL;

        for (size_t i = 0; i < t->n; i++) {
                if (!row_on(&t->rows[i], &t->set))
                        continue;
                if (t->rows[i].flags & MCP_TOOL_MEMBERS)
                        members = &t->rows[i];
                else if (streq(t->rows[i].name, name))
                        return &t->rows[i];
        }
        for (size_t i = 0; members && i < mcp_members_count(); i++)
                if (streq(mcp_member_name(i), name))
                        return member_on(&t->set, i) ? members : NULL;
        return NULL;
}

char *mcp_tool_names(const struct mcp_tool_table *t) {
        _cleanup_free_ char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        const char *sep = "";

        if (!f)
                return NULL;
        for (size_t i = 0; i < t->n; i++) {
                const struct mcp_tool *row = &t->rows[i];

                /* The viewer page's own tools are not the model's to call. */
                if (!row_on(row, &t->set) || (row->flags & MCP_TOOL_APP))
                        continue;
                if (!(row->flags & MCP_TOOL_MEMBERS)) {
                        fprintf(f, "%s%s", sep, row->name);
                        sep = ", ";
                        continue;
                }
                for (size_t m = 0; m < mcp_members_count(); m++)
                        if (member_on(&t->set, m)) {
                                fprintf(f, "%s%s", sep, mcp_member_name(m));
                                sep = ", ";
                        }
        }
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(out);
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
                mcp_member_schema_write(j, i, MCP_EPOCH_SCHEMA);
                json_object_end(j);
        }
}

char *mcp_computer_describe(const struct mcp_space *space) {
        return strdup_printf(
                "The desktop's screen, mouse and keyboard. Screenshots are %ux%u pixels (the %ux%u screen at scale "
                "%.6g); every coordinate is a pixel of that screenshot. Takes Anthropic's computer actions "
                "({\"action\": \"left_click\", \"coordinate\": [x, y]}, key, type, mouse_move, left_click_drag, "
                "right_click, middle_click, double_click, triple_click, left_mouse_down, left_mouse_up, scroll, "
                "hold_key, wait, cursor_position, screenshot, zoom) or OpenAI's ({\"type\": \"click\", \"x\": x, "
                "\"y\": y, \"button\": \"left\"}, double_click, drag, keypress, move, scroll, type, wait, "
                "screenshot). After each action botdesk waits until the screen settles and returns a screenshot, "
                "its \"revision\" in the text; any action or screenshot with \"since_revision\": that revision "
                "says \"unchanged\": true and carries no image when the screen is the same, and with "
                "\"changed_region\": true as well, when little changed, shows only that part: "
                "\"changed_region\": [x0, y0, x1, y1] of the screenshot, at its scale. "
                "While a human has control, every action is refused; with \"epoch\": N (every tool that acts "
                "takes it) an action is also refused (suppressed: epoch_moved) once the lease epoch is no longer N.",
                space->image_w, space->image_h, space->screen_w, space->screen_h, mcp_space_scale(space));
}

void mcp_tools_write(struct json *j, const struct mcp_space *space, const struct mcp_tool_table *t) {
        for (size_t i = 0; i < t->n; i++) {
                const struct mcp_tool *row = &t->rows[i];
                _cleanup_free_ char *described = NULL;

                if (!row_on(row, &t->set))
                        continue;
                if (row->flags & MCP_TOOL_MEMBERS) {
                        member_tools(j, space, &t->set);
                        continue;
                }
                if (row->describe)
                        described = row->describe(space);
                json_object_begin(j);
                json_kv_string(j, "name", row->name);
                json_kv_string(j, "description", described ?: row->description ?: row->name);
                json_key(j, "inputSchema");
                json_raw(j, row->schema);
                if (row->flags & MCP_TOOL_VIEWER)
                        mcp_viewer_tool_meta(j, row->flags & MCP_TOOL_APP);
                json_object_end(j);
        }
}
