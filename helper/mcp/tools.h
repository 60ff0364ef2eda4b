/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "coords.h"
#include "json.h"

/*
 * The tools an MCP server offers, one row each: name, description (a
 * callback where it names the coordinate space), input schema (JSON
 * Schema), flags and handler. tools/list, tools/call's dispatch, the
 * epoch rule and the usage text all read the rows, so a new tool is one
 * row and one handler. The rows of botdesk's desktop are
 * agent/mcp-tools.c's; the unit tests bring their own.
 *
 * A row flagged MCP_TOOL_MEMBERS stands for Anthropic's computer toolset:
 * one tool per member (action.h), named after it and taking its input;
 * its handler gets the member's name. Which of those are offered is the
 * tool set's (config.h, [agent] mcp_tools and toolset_disabled): with
 * MCP_TOOLS_COMPUTER none, with MCP_TOOLS_MEMBERS they are and the rows
 * flagged MCP_TOOL_SINGLE (computer, batch) are not.
 */

struct mcp_result;

enum {
        /* Acts on the desktop, behind the lease gate: takes "epoch", the
         * lease epoch a gateway approved the call at (cli.h), and the
         * schema must say so (the unit tests check). */
        MCP_TOOL_ACTS = 1u << 0,
        /* The 2025 single computer tool's (computer, batch): not offered with mcp_tools = members. */
        MCP_TOOL_SINGLE = 1u << 1,
        /* The toolset's members, one tool each (above). */
        MCP_TOOL_MEMBERS = 1u << 2,
        /* Needs what only a desktop botdesk runs has (its windows, accessibility tree, clipboard, files): not
         * offered for a VNC server botdesk did not start, which gives a framebuffer and input alone. */
        MCP_TOOL_DESKTOP = 1u << 3,
        /* Waits, for minutes if need be (a human, a condition): run as a task (tasks.h) for a client that
         * declared the Tasks extension, when the server can run tasks. */
        MCP_TOOL_LONG = 1u << 4,
        /* Its result is for the live viewer, an MCP App (resources.h: ui://botdesk/viewer): tools/list names
         * the viewer in its _meta, and a host that renders MCP Apps shows it with the result. */
        MCP_TOOL_VIEWER = 1u << 5,
        /* For the viewer's page alone, which calls it through its host: hidden from the model (MCP Apps'
         * visibility ["app"]). */
        MCP_TOOL_APP = 1u << 6,
};

/* Runs the tool named name with args (an object, or NULL) into res; as mcp_backend's call (server.h). */
typedef int (*mcp_tool_fn)(void *userdata, const char *name, const struct json_value *args, struct mcp_result *res);

struct mcp_tool {
        const char *name;
        const char *description;
        /* The description when it names the coordinate space (new string, or NULL): replaces description. */
        char *(*describe)(const struct mcp_space *space);
        const char *schema;             /* the inputSchema, a JSON object */
        unsigned flags;
        mcp_tool_fn call;
};

/* Which of the screen's tools are offered: [agent] mcp_tools, and the members [agent] toolset_disabled names. */
struct mcp_tool_set {
        enum mcp_tools_kind kind;
        uint32_t members_off;           /* a bit per member index (action.h) not offered */
        unsigned flags_off;             /* rows with any of these flags are not offered (MCP_TOOL_DESKTOP) */
};

/* A table of rows, and which of them are offered. */
struct mcp_tool_table {
        const struct mcp_tool *rows;
        size_t n;
        struct mcp_tool_set set;
};

/* Writes the "tools" array's items through j: every row offered, the members expanded. */
void mcp_tools_write(struct json *j, const struct mcp_space *space, const struct mcp_tool_table *t);

/* The row that serves the tool name (a member's name gives the MCP_TOOL_MEMBERS row), or NULL when none is offered. */
const struct mcp_tool *mcp_tool_find(const struct mcp_tool_table *t, const char *name);

/* The names of the tools offered to the model (no MCP_TOOL_APP row), "computer, batch, ..." (new string), or NULL. */
char *mcp_tool_names(const struct mcp_tool_table *t);

/*
 * The schemas and descriptions the desktop's rows share with botdesk act:
 * computer takes either action schema (action.h), batch a list of them;
 * both with epoch. MCP_EPOCH_PROPERTY is the "epoch" member every acting
 * tool's schema has.
 */
#define MCP_EPOCH_SCHEMA "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 9007199254740991}"
#define MCP_EPOCH_PROPERTY "\"epoch\": " MCP_EPOCH_SCHEMA
/* A screenshot's since_revision (screen-revision.h): a string, judged by action.c with a message that names its form. */
#define MCP_SINCE_REVISION_SCHEMA                                                                              \
        "{\"type\": \"string\", \"description\": \"screenshot only: the revision of an earlier screenshot; "  \
        "when the screen is the same, the result says unchanged and carries no image\"}"
extern const char mcp_computer_schema[];
extern const char mcp_batch_schema[];
char *mcp_computer_describe(const struct mcp_space *space);
