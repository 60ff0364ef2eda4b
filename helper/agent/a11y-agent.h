/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <xcb/xcb.h>

#include "a11y.h"
#include "config.h"
#include "coords.h"
#include "json.h"
#include "record.h"

/*
 * The accessibility tree for the agent, whatever carries the request
 * (botdesk a11y, the MCP tools a11y_tree, a11y_find, a11y_do): the tree of
 * the screen or of one window (X ids as botdesk windows gives them), found
 * nodes, and actions on a node, with bounds in screen pixels and in the
 * agent's screenshot space (mcp/coords.h). The lease gate is the caller's.
 * Each returns a CLI exit code and, when not EXIT_OK, what went wrong in
 * *ret_error (new): EXIT_USAGE for a request that does not parse,
 * EXIT_FAILED for a window or element that does not exist (any more), an
 * action it does not offer, or a desktop without the accessibility bus.
 */

struct a11y_desktop {
        const char *profile;
        const char *bus_address;        /* the session's D-Bus */
        const char *token;              /* BOTDESK_TOKEN of the desktop's processes (its helper's record) */
        bool enabled;                   /* [session] accessibility */
        xcb_connection_t *conn;
        xcb_window_t root;
        struct mcp_space space;
        uint64_t timeout_usec;          /* each AT-SPI call's deadline */
};

/* What an a11y_desktop borrows of a running desktop: its configuration, its session's environment, its helper's
 * record (whose token tells the desktop's applications from others on the bus). */
struct a11y_source {
        struct bd_config cfg;
        char **env;
        struct helper_record rec;
};

void a11y_source_done(struct a11y_source *s);

/* Load them for profile, whose runtime dir is dirfd: a CLI exit code, said on stderr. */
int a11y_source_load(const char *profile, int dirfd, struct a11y_source *ret);

/* The desktop s describes, read on connection c (screen root, the agent's space). */
void a11y_source_desktop(const struct a11y_source *s, const char *profile, xcb_connection_t *c, xcb_window_t root,
                         const struct mcp_space *space, struct a11y_desktop *ret);

struct a11y_result {
        struct a11y_tree tree;
        bool *shown;                    /* per node: printed (a match, or the tree itself) */
        size_t n_shown;
        bool find;
        unsigned max_nodes;
};

void a11y_result_done(struct a11y_result *r);

/* window: NULL, or an X window id ("0x2a00007" or decimal); find: NULL, or a query (a11y-find.h). */
int a11y_agent_read(const struct a11y_desktop *d, const char *window, const char *find, unsigned max_nodes,
                    struct a11y_result *ret, char **ret_error);

/* action: an action name of the node, or set-text with text. */
int a11y_agent_do(const struct a11y_desktop *d, const char *id, const char *action, const char *text,
                  char **ret_error);

/* The result as one JSON object: {"nodes": [...], "count", "cut", "max_nodes", "screen", "screenshot"}. */
void a11y_result_json(struct json *j, const struct a11y_desktop *d, const struct a11y_result *r);

/* The result for people: a line a node, indented by depth (flat for a find). */
void a11y_result_text(FILE *f, const struct a11y_desktop *d, const struct a11y_result *r);
