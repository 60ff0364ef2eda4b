/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/*
 * The accessibility tree of a desktop, read from the AT-SPI D-Bus
 * interfaces through sd-bus (no libatspi: its calls are one blocking round
 * trip each, where here every request of a level of the tree is sent before
 * the first reply is read). Every call carries a deadline: an application
 * that does not answer costs that deadline once and its node is reported
 * unresponsive.
 *
 * A node's id is "BUS:TAIL": the application's unique name on the
 * accessibility bus without its ':' and the last element of the object's
 * path ("1.42:17"; "1.42:/full/path" for a path outside AT-SPI's usual
 * /org/a11y/atspi/accessible/). A unique name is never reused while the
 * bus runs and GTK numbers its objects from a counter, so an id names one
 * element for the element's life and is not given to another after it.
 */

#define A11Y_CALL_TIMEOUT_USEC_DEFAULT (1000ULL * 1000ULL)
#define A11Y_MAX_NODES_DEFAULT 2000u
/* a11y's --max-nodes N and the wait for an element: at most this many. */
#define A11Y_MAX_NODES_MAX 100000u

/* AT-SPI's state numbers (AtspiStateType), the ones named in the output. */
enum {
        A11Y_STATE_ACTIVE = 1,
        A11Y_STATE_CHECKED = 4,
        A11Y_STATE_EDITABLE = 7,
        A11Y_STATE_ENABLED = 8,
        A11Y_STATE_FOCUSED = 12,
        A11Y_STATE_SENSITIVE = 24,
        A11Y_STATE_SHOWING = 25,
        A11Y_STATE_VISIBLE = 30,
        _A11Y_STATE_MAX = 64,
};

struct a11y_node {
        char *bus;              /* the application's unique name, ":1.42" */
        char *path;
        char *id;
        long parent;            /* index in the tree, -1 for an application */
        unsigned depth;
        char *role, *name, *description;
        uint64_t states;        /* bit n: AT-SPI state n */
        char **actions;         /* lower case */
        char *text;             /* NULL: none, or a password field's (never read) */
        bool has_text, editable, has_action, has_component;
        bool have_bounds;
        int x, y, width, height; /* screen coordinates */
        bool unresponsive;      /* a call timed out: what is known of it may be partial */
        bool refused;           /* an application whose own socket's address, or the peer there, was not
                                 * its own (a11y-bus.h): nothing of it is read, it has no children */
        long *children;         /* indices, in the application's order */
        size_t n_children;
};

struct a11y_tree {
        struct a11y_node *nodes;
        size_t n, allocated;
        bool cut;               /* max_nodes reached: more exist */
};

void a11y_tree_done(struct a11y_tree *t);

/* The name of AT-SPI state n ("focused"), or NULL. */
const char *a11y_state_name(unsigned n);
/* The state called name, or -EINVAL. */
int a11y_state_from_name(const char *name);

/* Whether role is a password field's: its text is never read. */
bool a11y_role_is_password(const char *role);

/*
 * Connect to the accessibility bus of the desktop whose session bus is at
 * session_address and whose processes carry BOTDESK_TOKEN=token: asks a
 * running org.a11y.Bus for the address (never starting it: nothing the
 * reader sends activates a service). -ENXIO when the session has no
 * accessibility bus running; -EINVAL or -EPROTONOSUPPORT when either
 * address is refused (bus_address_sanitize(): anything but one Unix
 * socket), -EPERM when the process at either socket is not one of the
 * desktop's (a11y-bus.c).
 */
int a11y_bus_open(const char *session_address, const char *token, uint64_t timeout_usec, sd_bus **ret);

/*
 * Read the tree: every application the registry knows, or only the nodes
 * under the node with id root (NULL: all), breadth first, at most max_nodes
 * nodes, none deeper than max_depth (0: any depth; 1: the applications and
 * their windows). Each call waits at most timeout_usec. An application
 * whose own socket's address is refused, or whose peer there is not the
 * application of the desktop whose token is token (a11y-bus.h), is one node, refused, with nothing of it read
 * and no children. 0, -ENOENT for a
 * root that does not exist (any more), -ENXIO when no registry answers, or
 * another error.
 */
int a11y_tree_read(sd_bus *bus, const char *token, const char *root, unsigned max_nodes, unsigned max_depth,
                   uint64_t timeout_usec, struct a11y_tree *ret);

/* The errno of a failed call (e, or r): -ETIMEDOUT when it had no answer in time, -ENOENT when the object or its application is gone. */
int a11y_error_errno(const sd_bus_error *e, int r);

/*
 * A new method call to dest (NULL: none) with its arguments appended by
 * types and ap (types NULL: none). It never starts a service: whatever bus
 * the reader ends up on, it runs no program for the reader (the flag
 * NO_AUTO_START).
 */
int a11y_method_call_newv(sd_bus *bus, sd_bus_message **ret, const char *dest, const char *path, const char *iface,
                          const char *member, const char *types, va_list ap);
int a11y_method_call(sd_bus *bus, sd_bus_message **ret, const char *dest, const char *path, const char *iface,
                     const char *member, const char *types, ...);

/* Split an id into its bus name and object path (new strings). -EINVAL for one that is not an id. */
int a11y_id_parse(const char *id, char **ret_bus, char **ret_path);

/*
 * Act on the node with id: action is one of the node's actions (case does
 * not matter; click, press and activate stand in for each other when the
 * node offers only another of them), or "set-text" with text. Returns 0;
 * -ENOENT for an element that does not exist (any more), -EOPNOTSUPP for an
 * action it does not offer (nothing done), -ETIMEDOUT when its application
 * did not answer, or another error.
 */
int a11y_do(sd_bus *bus, const char *id, const char *action, const char *text, uint64_t timeout_usec);

/* Whether action is one a11y_do() knows how to ask for (any action name, or set-text). */
bool a11y_action_valid(const char *action);
