/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "a11y-bus.h"
#include "a11y.h"
#include "bus-cleanup.h"
#include "util.h"

#define ATSPI_PATH_PREFIX "/org/a11y/atspi/accessible/"
#define ATSPI_ACCESSIBLE "org.a11y.atspi.Accessible"
#define REGISTRY_NAME "org.a11y.atspi.Registry"
#define REGISTRY_ROOT ATSPI_PATH_PREFIX "root"
/* Enough of a field's text to read it; a document's whole text is not a node's value. */
#define TEXT_MAX_CHARS 1024

static const char *const state_names[_A11Y_STATE_MAX] = {
        [1] = "active", [2] = "armed", [3] = "busy", [4] = "checked", [5] = "collapsed", [6] = "defunct",
        [7] = "editable", [8] = "enabled", [9] = "expandable", [10] = "expanded", [11] = "focusable",
        [12] = "focused", [13] = "has-tooltip", [14] = "horizontal", [15] = "iconified", [16] = "modal",
        [17] = "multi-line", [18] = "multiselectable", [19] = "opaque", [20] = "pressed", [21] = "resizable",
        [22] = "selectable", [23] = "selected", [24] = "sensitive", [25] = "showing", [26] = "single-line",
        [27] = "stale", [28] = "transient", [29] = "vertical", [30] = "visible", [31] = "manages-descendants",
        [32] = "indeterminate", [33] = "required", [34] = "truncated", [35] = "animated", [36] = "invalid-entry",
        [37] = "supports-autocompletion", [38] = "selectable-text", [39] = "is-default", [40] = "visited",
        [41] = "checkable", [42] = "has-popup", [43] = "read-only",
};

const char *a11y_state_name(unsigned n) {
        return n < _A11Y_STATE_MAX ? state_names[n] : NULL;
}

int a11y_state_from_name(const char *name) {
        for (unsigned i = 0; i < _A11Y_STATE_MAX; i++)
                if (state_names[i] && strcasecmp(state_names[i], name) == 0)
                        return (int) i;
        return -EINVAL;
}

bool a11y_role_is_password(const char *role) {
        return role && strcasecmp(role, "password text") == 0;
}

static void node_done(struct a11y_node *n) {
        free(n->bus);
        free(n->path);
        free(n->id);
        free(n->role);
        free(n->name);
        free(n->description);
        strv_free(n->actions);
        free(n->text);
        free(n->children);
}

void a11y_tree_done(struct a11y_tree *t) {
        for (size_t i = 0; i < t->n; i++)
                node_done(&t->nodes[i]);
        free(t->nodes);
        *t = (struct a11y_tree) {};
}

static char *id_make(const char *bus, const char *path) {
        const char *tail = startswith(path, ATSPI_PATH_PREFIX);

        if (bus[0] == ':')
                bus++;
        return tail && *tail && !strchr(tail, '/') ? strdup_printf("%s:%s", bus, tail) : strdup_printf("%s:%s", bus, path);
}

int a11y_id_parse(const char *id, char **ret_bus, char **ret_path) {
        const char *colon = strchr(id, ':');
        _cleanup_free_ char *bus = NULL, *path = NULL;

        if (!colon || colon == id || !colon[1])
                return -EINVAL;
        for (const char *p = id; p < colon; p++)
                if (!(*p >= '0' && *p <= '9') && *p != '.')
                        return -EINVAL;
        bus = strdup_printf(":%.*s", (int) (colon - id), id);
        path = colon[1] == '/' ? strdup(colon + 1) : strdup_printf(ATSPI_PATH_PREFIX "%s", colon + 1);
        if (!bus || !path)
                return -ENOMEM;
        if (!sd_bus_object_path_is_valid(path))
                return -EINVAL;
        *ret_bus = TAKE_PTR(bus);
        *ret_path = TAKE_PTR(path);
        return 0;
}

int a11y_error_errno(const sd_bus_error *e, int r) {
        if (sd_bus_error_has_names(e, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT))
                return -ETIMEDOUT;
        if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                                   SD_BUS_ERROR_UNKNOWN_OBJECT, SD_BUS_ERROR_UNKNOWN_METHOD,
                                   SD_BUS_ERROR_UNKNOWN_INTERFACE))
                return -ENOENT;
        return r < 0 ? r : -EIO;
}

int a11y_method_call_newv(sd_bus *bus, sd_bus_message **ret, const char *dest, const char *path, const char *iface,
                          const char *member, const char *types, va_list ap) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, dest, path, iface, member);
        if (r < 0)
                return r;
        r = sd_bus_message_set_auto_start(m, false);
        if (r < 0)
                return r;
        if (types) {
                r = sd_bus_message_appendv(m, types, ap);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(m);
        return 0;
}

int a11y_method_call(sd_bus *bus, sd_bus_message **ret, const char *dest, const char *path, const char *iface,
                     const char *member, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = a11y_method_call_newv(bus, ret, dest, path, iface, member, types, ap);
        va_end(ap);
        return r;
}

/* ---- reading the tree: every request of what is known sent before any reply is read ---- */

enum call_kind { CALL_REGISTRY, CALL_APP_ADDRESS, CALL_APP_PID, CALL_ROLE, CALL_STATE, CALL_IFACES, CALL_PROPS,
                 CALL_CHILDREN, CALL_EXTENTS, CALL_ACTIONS, CALL_TEXT };

/*
 * An application's own connection: AT-SPI applications answer on a socket
 * of theirs (org.a11y.atspi.Application.GetApplicationBusAddress) as well
 * as through the accessibility bus. Straight to the application, a request
 * costs no bus daemon routing it both ways, which on a tree of a thousand
 * elements was most of the time.
 */
struct app_conn {
        char *name;             /* its unique name on the accessibility bus */
        char *path;             /* its root, as the registry (or the caller) names it */
        sd_bus *conn;           /* NULL: through the bus */
        char *address;          /* what it said its own socket is, until both replies are in */
        uint32_t pid;           /* its pid as the bus knows it; 0: unknown */
        unsigned waiting;       /* replies to come: its address, its pid */
        bool timed_out;         /* it did not say its address in time */
        bool refused;           /* its address or the peer there is not its own: nothing read */
};

#define APPS_MAX 256

struct reader {
        sd_bus *bus;
        const char *token;      /* the desktop's BOTDESK_TOKEN: every application's peer carries it */
        struct app_conn apps[APPS_MAX];
        size_t n_apps;
        struct a11y_tree *t;
        unsigned max_nodes, max_depth;
        uint64_t timeout;
        size_t pending;
        int error;              /* the first fatal one (memory, the bus) */
        int root_error;         /* the root's first call failed: it does not exist */
};

struct call {
        struct reader *r;
        long node;              /* CALL_APP_*: the index in apps[] */
        enum call_kind kind;
};

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

/* The application called name in apps[], or -1. */
static long app_find(const struct reader *rd, const char *name) {
        for (size_t i = 0; i < rd->n_apps; i++)
                if (streq(rd->apps[i].name, name))
                        return (long) i;
        return -1;
}

/* The direct connection to the application called name, or NULL. */
static sd_bus *app_conn(const struct reader *rd, const char *name) {
        long i = app_find(rd, name);

        return i >= 0 ? rd->apps[i].conn : NULL;
}

static void apps_done(struct reader *rd) {
        for (size_t i = 0; i < rd->n_apps; i++) {
                free(rd->apps[i].name);
                free(rd->apps[i].path);
                free(rd->apps[i].address);
                if (rd->apps[i].conn)
                        sd_bus_close_unref(rd->apps[i].conn);
        }
        rd->n_apps = 0;
}

static int send_call(struct reader *rd, long node, enum call_kind kind, const char *dest, const char *path,
                     const char *iface, const char *member, const char *types, ...) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL;
        /* An application's own questions go through the bus: its socket is not known (or trusted) yet. */
        sd_bus *conn = node >= 0 && kind != CALL_APP_ADDRESS && kind != CALL_APP_PID ? app_conn(rd, dest) : NULL;
        sd_bus_slot *slot = NULL;
        struct call *c;
        va_list ap;
        int r;

        /* A connection to the application alone has no destinations: its messages name none. An
         * application's address is asked of its root, whatever node the reading starts from. */
        va_start(ap, types);
        r = a11y_method_call_newv(conn ?: rd->bus, &m, conn ? NULL : dest,
                                  kind == CALL_APP_ADDRESS ? ATSPI_PATH_PREFIX "root" : path, iface, member, types, ap);
        va_end(ap);
        if (r < 0)
                return r;
        c = malloc(sizeof *c);
        if (!c)
                return -ENOMEM;
        *c = (struct call) { rd, node, kind };
        r = sd_bus_call_async(conn ?: rd->bus, &slot, m, on_reply, c, rd->timeout);
        if (r < 0) {
                free(c);
                return r;
        }
        /* The bus frees c with the slot, after the reply (or the timeout's) was handled. */
        (void) sd_bus_slot_set_destroy_callback(slot, free);
        (void) sd_bus_slot_set_floating(slot, true);
        sd_bus_slot_unref(slot);
        rd->pending++;
        return 0;
}

static int node_calls(struct reader *rd, long i) {
        const struct a11y_node *n = &rd->t->nodes[i];
        const char *b = n->bus, *p = n->path;
        int r;

        /* In this order: the role is known when the interfaces' reply decides whether to read the text. */
        if ((r = send_call(rd, i, CALL_ROLE, b, p, ATSPI_ACCESSIBLE, "GetRoleName", NULL)) < 0 ||
            (r = send_call(rd, i, CALL_STATE, b, p, ATSPI_ACCESSIBLE, "GetState", NULL)) < 0 ||
            (r = send_call(rd, i, CALL_PROPS, b, p, "org.freedesktop.DBus.Properties", "GetAll", "s",
                           ATSPI_ACCESSIBLE)) < 0 ||
            (r = send_call(rd, i, CALL_IFACES, b, p, ATSPI_ACCESSIBLE, "GetInterfaces", NULL)) < 0)
                return r;
        /* The children are asked for once the properties say there are any: most elements are leaves. */
        return 0;
}

static int children_call(struct reader *rd, long i) {
        const struct a11y_node *n = &rd->t->nodes[i];

        if (rd->max_depth > 0 && n->depth >= rd->max_depth)
                return 0;
        return send_call(rd, i, CALL_CHILDREN, n->bus, n->path, ATSPI_ACCESSIBLE, "GetChildren", NULL);
}

/*
 * A new node (bus, path) under parent, read unless unresponsive or refused;
 * its index, or -errno. -ENOSPC when max_nodes is reached.
 */
static long node_add(struct reader *rd, const char *bus, const char *path, long parent, bool unresponsive,
                     bool refused) {
        struct a11y_tree *t = rd->t;
        struct a11y_node *n;
        long i;
        int r;

        if (t->n >= rd->max_nodes) {
                t->cut = true;
                return -ENOSPC;
        }
        if (ARRAY_GROW(t->nodes, t->n, t->allocated, 64) < 0)
                return -ENOMEM;
        i = (long) t->n;
        n = &t->nodes[t->n++];
        *n = (struct a11y_node) {
                .bus = strdup(bus), .path = strdup(path), .id = id_make(bus, path), .parent = parent,
                .depth = parent >= 0 ? t->nodes[parent].depth + 1 : 0,
        };
        if (!n->bus || !n->path || !n->id)
                return -ENOMEM;
        if (parent >= 0) {
                struct a11y_node *pn = &t->nodes[parent];
                long *c = reallocarray(pn->children, pn->n_children + 1, sizeof *c);

                if (!c)
                        return -ENOMEM;
                c[pn->n_children++] = i;
                pn->children = c;
        }
        if (unresponsive || refused) {
                n->unresponsive = unresponsive;
                n->refused = refused;
                return i;
        }
        r = node_calls(rd, i);
        return r < 0 ? r : i;
}

/*
 * An application at (name, path): its own socket's address asked of it, and
 * its pid of the bus, both before either reply is read; app_done() judges
 * when both are in. Past APPS_MAX, read through the bus.
 */
static int app_begin(struct reader *rd, const char *name, const char *path) {
        struct app_conn *a;
        long k = (long) rd->n_apps;
        int r;

        if (rd->n_apps >= APPS_MAX) {
                long i = node_add(rd, name, path, -1, false, false);

                return i == -ENOSPC ? 0 : i < 0 ? (int) i : 0;
        }
        a = &rd->apps[rd->n_apps++];
        *a = (struct app_conn) { .name = strdup(name), .path = strdup(path), .waiting = 2 };
        if (!a->name || !a->path)
                return -ENOMEM;
        r = send_call(rd, k, CALL_APP_ADDRESS, name, path, "org.a11y.atspi.Application", "GetApplicationBusAddress",
                      NULL);
        if (r < 0)
                return r;
        return send_call(rd, k, CALL_APP_PID, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                         "GetConnectionUnixProcessID", "s", name);
}

/*
 * Both replies are in: the application's own socket, when it named one, is
 * connected to only when the address is one Unix socket (bus-address.h: an
 * application may say unixexec: or tcp:, which sd-bus would run or reach)
 * and the process there is the application and the desktop's (a11y-bus.c). An
 * application refused is one node, marked refused, and nothing more is
 * read of it, not even through the bus: reading it there could not make us
 * run or connect anything (no address is ever asked of what it reports),
 * but an application that names someone else's socket or a command is
 * lying, and what it says of itself is not worth showing. A socket that
 * merely does not answer is no lie (an application in another mount
 * namespace): it is read through the bus, as one that named no socket.
 */
static int app_done(struct reader *rd, long k) {
        struct app_conn *a = &rd->apps[k];
        long i;
        int r;

        if (a->address) {
                r = a11y_app_connect(a->address, a->pid > INT32_MAX ? 0 : (pid_t) a->pid, rd->token, rd->timeout,
                                     &a->conn);
                if (r == -ENOMEM)
                        return r;
                a->refused = r < 0 && r != -ENOTCONN;
                free(a->address);
                a->address = NULL;
        }
        /* One that did not answer in time is not asked again, once for each thing. */
        i = node_add(rd, a->name, a->path, -1, a->timed_out, a->refused);
        return i == -ENOSPC ? 0 : i < 0 ? (int) i : 0;
}

static int app_reply(struct reader *rd, const struct call *c, sd_bus_message *m, const sd_bus_error *e) {
        struct app_conn *a = &rd->apps[c->node];

        if (c->kind == CALL_APP_ADDRESS) {
                const char *address;

                /* An application that does not say is read through the bus. */
                if (e)
                        a->timed_out = a11y_error_errno(e, -EIO) == -ETIMEDOUT;
                else if (sd_bus_message_read(m, "s", &address) > 0 && *address && !(a->address = strdup(address)))
                        return -ENOMEM;
        } else if (!e) {
                uint32_t pid;

                if (sd_bus_message_read(m, "u", &pid) > 0)
                        a->pid = pid;
        }
        return --a->waiting > 0 ? 0 : app_done(rd, c->node);
}

/* a(so): each a node under parent (-1: applications). */
static int read_children(struct reader *rd, sd_bus_message *m, long parent) {
        const char *bus, *path;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(so)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(so)", &bus, &path)) > 0) {
                long i;

                /* GTK names the application itself with an empty bus name. */
                if (!*bus && parent >= 0)
                        bus = rd->t->nodes[parent].bus;
                if (!*bus || streq(path, "/org/a11y/atspi/null"))
                        continue;
                if (parent < 0) {
                        /* An application: its own connection first, then its nodes through it. */
                        long k = app_find(rd, bus);

                        if (k < 0)
                                r = app_begin(rd, bus, path);
                        else if (rd->apps[k].waiting == 0)
                                r = (int) node_add(rd, bus, path, -1, false, rd->apps[k].refused);
                        else
                                continue;       /* listed twice: judged once */
                        if (r == -ENOSPC)
                                return 0;
                        if (r < 0)
                                return r;
                        continue;
                }
                i = node_add(rd, bus, path, parent, false, false);
                if (i == -ENOSPC)
                        return 0;
                if (i < 0)
                        return (int) i;
        }
        return r;
}

static int read_props(struct a11y_node *n, sd_bus_message *m, int32_t *ret_child_count) {
        const char *key;
        int r;

        *ret_child_count = -1;
        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                char **field = NULL;
                const char *s;

                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                if (streq(key, "Name"))
                        field = &n->name;
                else if (streq(key, "Description"))
                        field = &n->description;
                if (field && sd_bus_message_read(m, "v", "s", &s) > 0) {
                        free(*field);
                        *field = strdup(s);
                        if (!*field)
                                return -ENOMEM;
                } else if (streq(key, "ChildCount") && sd_bus_message_read(m, "v", "i", ret_child_count) > 0)
                        ;
                else if ((r = sd_bus_message_skip(m, "v")) < 0)
                        return r;
                if ((r = sd_bus_message_exit_container(m)) < 0)
                        return r;
        }
        return r;
}

static int read_ifaces(struct reader *rd, long i, sd_bus_message *m) {
        struct a11y_node *n = &rd->t->nodes[i];
        _cleanup_strv_free_ char **ifaces = NULL;
        bool text = false;
        int r;

        r = sd_bus_message_read_strv(m, &ifaces);
        if (r < 0)
                return r;
        for (char **s = ifaces; s && *s; s++) {
                if (streq(*s, "org.a11y.atspi.Component"))
                        n->has_component = true;
                else if (streq(*s, "org.a11y.atspi.Action"))
                        n->has_action = true;
                else if (streq(*s, "org.a11y.atspi.Text"))
                        text = true;
                else if (streq(*s, "org.a11y.atspi.EditableText"))
                        n->editable = true;
        }
        n->has_text = text;
        if (n->has_component &&
            (r = send_call(rd, i, CALL_EXTENTS, n->bus, n->path, "org.a11y.atspi.Component", "GetExtents", "u",
                           (uint32_t) 0 /* ATSPI_COORD_TYPE_SCREEN */)) < 0)
                return r;
        n = &rd->t->nodes[i];
        if (n->has_action &&
            (r = send_call(rd, i, CALL_ACTIONS, n->bus, n->path, "org.a11y.atspi.Action", "GetActions", NULL)) < 0)
                return r;
        n = &rd->t->nodes[i];
        /* A password field's text is never asked for; nor anything's whose role is not known. */
        if (text && n->role && !a11y_role_is_password(n->role) &&
            (r = send_call(rd, i, CALL_TEXT, n->bus, n->path, "org.a11y.atspi.Text", "GetText", "ii", (int32_t) 0,
                           (int32_t) TEXT_MAX_CHARS)) < 0)
                return r;
        return 0;
}

static int read_actions(struct a11y_node *n, sd_bus_message *m) {
        const char *name, *desc, *keys;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(sss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(sss)", &name, &desc, &keys)) > 0) {
                char *lower = strdup(name);

                if (!lower)
                        return -ENOMEM;
                for (char *p = lower; *p; p++)
                        if (*p >= 'A' && *p <= 'Z')
                                *p = (char) (*p - 'A' + 'a');
                r = strv_push(&n->actions, lower);
                if (r < 0)
                        return r;
        }
        return r;
}

static int handle_reply(struct call *c, sd_bus_message *m) {
        struct reader *rd = c->r;
        struct a11y_node *n = c->node >= 0 ? &rd->t->nodes[c->node] : NULL;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        const char *s;
        int r;

        if (c->kind == CALL_APP_ADDRESS || c->kind == CALL_APP_PID)
                return app_reply(rd, c, m, e);
        if (e) {
                r = a11y_error_errno(e, -EIO);
                if (c->kind == CALL_REGISTRY)
                        return r == -ENOENT ? -ENXIO : r;
                if (r == -ETIMEDOUT)
                        n->unresponsive = true;
                else if (c->kind == CALL_PROPS)
                        return children_call(rd, c->node);
                else if (c->node == 0 && c->kind == CALL_ROLE && rd->root_error == 0)
                        rd->root_error = r;
                return 0;
        }
        switch (c->kind) {
        case CALL_APP_ADDRESS:
        case CALL_APP_PID:
                return 0;
        case CALL_REGISTRY:
                return read_children(rd, m, -1);
        case CALL_CHILDREN:
                return read_children(rd, m, c->node);
        case CALL_ROLE:
                r = sd_bus_message_read(m, "s", &s);
                if (r > 0 && !(n->role = strdup(s)))
                        return -ENOMEM;
                return 0;
        case CALL_STATE: {
                const uint32_t *words;
                size_t size;

                r = sd_bus_message_read_array(m, 'u', (const void **) &words, &size);
                if (r < 0)
                        return 0;
                for (size_t k = 0; k < size / sizeof *words && k < 2; k++)
                        n->states |= (uint64_t) words[k] << (32 * k);
                return 0;
        }
        case CALL_PROPS: {
                int32_t count;

                r = read_props(n, m, &count);
                if (r == -ENOMEM)
                        return r;
                /* Unknown (-1): asked anyway. */
                return count != 0 ? children_call(rd, c->node) : 0;
        }
        case CALL_IFACES:
                return read_ifaces(rd, c->node, m);
        case CALL_EXTENTS: {
                int32_t x, y, w, h;

                if (sd_bus_message_read(m, "(iiii)", &x, &y, &w, &h) > 0) {
                        n->x = x, n->y = y, n->width = w, n->height = h;
                        n->have_bounds = true;
                }
                return 0;
        }
        case CALL_ACTIONS:
                r = read_actions(n, m);
                return r == -ENOMEM ? r : 0;
        case CALL_TEXT:
                r = sd_bus_message_read(m, "s", &s);
                if (r > 0 && !(n->text = strdup(s)))
                        return -ENOMEM;
                return 0;
        }
        return 0;
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct call *c = userdata;
        int r;

        c->r->pending--;
        if (c->r->error < 0)
                return 0;
        r = handle_reply(c, m);
        if (r < 0)
                c->r->error = r;
        return 0;
}

/* Run the bus and the applications' connections until every call was answered (each has its deadline). */
static int wait_replies(struct reader *rd) {
        while (rd->pending > 0) {
                struct pollfd fds[APPS_MAX + 1];
                sd_bus *buses[APPS_MAX + 1];
                uint64_t until = UINT64_MAX, now;
                struct timespec left;
                size_t n = 0;
                bool progress = false;
                int r;

                buses[n++] = rd->bus;
                for (size_t i = 0; i < rd->n_apps; i++)
                        if (rd->apps[i].conn)
                                buses[n++] = rd->apps[i].conn;
                for (size_t i = 0; i < n && rd->pending > 0; i++) {
                        r = sd_bus_process(buses[i], NULL);
                        /* An application that went away fails its own calls; the bus going is the end. */
                        if (r < 0 && i == 0)
                                return r;
                        progress = progress || r > 0;
                }
                /* A timeout's callback run by sd_bus_process() may still make it return 0: look again. */
                if (progress || rd->pending == 0)
                        continue;
                for (size_t i = 0; i < n; i++) {
                        uint64_t t;
                        int fd = sd_bus_get_fd(buses[i]), events = sd_bus_get_events(buses[i]);

                        fds[i] = (struct pollfd) { .fd = fd < 0 || events < 0 ? -1 : fd,
                                                   .events = (short) (events < 0 ? 0 : events) };
                        if (sd_bus_get_timeout(buses[i], &t) >= 0 && t < until)
                                until = t;
                }
                now = now_usec();
                left = usec_timespec(until > now ? until - now : 0);
                r = ppoll(fds, n, until == UINT64_MAX ? NULL : &left, NULL);
                if (r < 0 && errno != EINTR)
                        return negative_errno();
        }
        return 0;
}

int a11y_tree_read(sd_bus *bus, const char *token, const char *root, unsigned max_nodes, unsigned max_depth,
                   uint64_t timeout_usec, struct a11y_tree *ret) {
        struct a11y_tree t = {};
        struct reader rd = {
                .bus = bus, .token = token, .t = &t, .max_nodes = max_nodes ?: 1, .max_depth = max_depth, .timeout = timeout_usec,
        };
        int r;

        if (root) {
                _cleanup_free_ char *b = NULL, *p = NULL;

                r = a11y_id_parse(root, &b, &p);
                if (r < 0)
                        return -ENOENT;
                r = app_begin(&rd, b, p);
        } else
                r = send_call(&rd, -1, CALL_REGISTRY, REGISTRY_NAME, REGISTRY_ROOT, ATSPI_ACCESSIBLE, "GetChildren",
                              NULL);
        if (r < 0)
                rd.error = r;
        r = wait_replies(&rd);
        if (r < 0 && rd.error == 0)
                rd.error = r;
        apps_done(&rd);
        if (rd.error == 0 && rd.root_error < 0)
                rd.error = -ENOENT;
        if (rd.error < 0) {
                a11y_tree_done(&t);
                return rd.error;
        }
        *ret = t;
        return 0;
}
