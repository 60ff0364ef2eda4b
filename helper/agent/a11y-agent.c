/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

#include "a11y-agent.h"
#include "a11y-find.h"
#include "bus-cleanup.h"
#include "cli.h"
#include "log.h"
#include "profile.h"
#include "running.h"
#include "util.h"

#define NO_BUS_MESSAGE(p)                                                                                              \
        strdup_printf("Desktop %s runs without the accessibility bus ([session] accessibility = no); set "          \
                      "accessibility = yes and restart it: botdesk restart %s", (p), (p))

void a11y_source_done(struct a11y_source *s) {
        config_done(&s->cfg);
        strv_free(s->env);
        helper_record_done(&s->rec);
        *s = (struct a11y_source) {};
}

int a11y_source_load(const char *profile, int dirfd, struct a11y_source *ret) {
        _cleanup_(paths_done) struct bd_paths p = {};
        int r;

        if (cli_load_config(profile, &ret->cfg) < 0)
                return EXIT_USAGE;
        r = paths_for_profile(profile, &p);
        if (r < 0) {
                log_error_errno(r, "Cannot work out the paths of profile %s: %m", profile);
                return EXIT_FAILED;
        }
        r = running_desktop_env(profile, dirfd, &p, &ret->env);
        if (r != EXIT_OK)
                return r;
        return running_desktop_helper(profile, dirfd, &ret->rec);
}

void a11y_source_desktop(const struct a11y_source *s, const char *profile, xcb_connection_t *c, xcb_window_t root,
                         const struct mcp_space *space, struct a11y_desktop *ret) {
        *ret = (struct a11y_desktop) {
                .profile = profile,
                .bus_address = strv_env_get(s->env, "DBUS_SESSION_BUS_ADDRESS"),
                .token = s->rec.token,
                .enabled = s->cfg.accessibility,
                .conn = c,
                .root = root,
                .space = *space,
                .timeout_usec = A11Y_CALL_TIMEOUT_USEC_DEFAULT,
        };
}

void a11y_result_done(struct a11y_result *r) {
        a11y_tree_done(&r->tree);
        free(r->shown);
        *r = (struct a11y_result) {};
}

static int fail(char **ret_error, int code, char *message) {
        *ret_error = message;
        return code;
}

static int bus_open(const struct a11y_desktop *d, sd_bus **ret, char **ret_error) {
        int r;

        if (!d->enabled || !d->bus_address)
                return fail(ret_error, EXIT_FAILED, NO_BUS_MESSAGE(d->profile));
        r = a11y_bus_open(d->bus_address, d->token, d->timeout_usec, ret);
        if (r == -ENXIO)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Desktop %s has no accessibility bus running: a GTK or Qt application "
                                          "starts it when it starts, and botdesk never starts one itself.",
                                          d->profile));
        if (r == -EINVAL || r == -EPROTONOSUPPORT)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Refused the bus address of desktop %s (its session bus's, in its runtime "
                                          "dir's env file, or the accessibility bus's, as org.a11y.Bus gives it): "
                                          "botdesk connects only to one unix:path= or unix:abstract= socket.",
                                          d->profile));
        if (r == -EPERM)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Refused the bus of desktop %s: the process at its socket is not one "
                                          "of the desktop's (another user's, or a program outside it).",
                                          d->profile));
        if (r < 0)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Cannot reach the accessibility bus of desktop %s: %s", d->profile,
                                          strerror(-r)));
        return EXIT_OK;
}

static int window_parse(const char *s, xcb_window_t *ret) {
        unsigned long long v;
        char *end;

        errno = 0;
        v = strtoull(s, &end, 0);
        if (errno != 0 || end == s || *end || *s == '-' || v == 0 || v > UINT32_MAX)
                return -EINVAL;
        *ret = (xcb_window_t) v;
        return 0;
}

/* Window w's title (_NET_WM_NAME, else WM_NAME) and its rectangle on the screen; -ENOENT when there is no such window. */
static int window_describe(const struct a11y_desktop *d, xcb_window_t w, char **ret_title, int rect[4]) {
        xcb_intern_atom_cookie_t ca = xcb_intern_atom(d->conn, 0, strlen("_NET_WM_NAME"), "_NET_WM_NAME");
        xcb_intern_atom_cookie_t cu = xcb_intern_atom(d->conn, 0, strlen("UTF8_STRING"), "UTF8_STRING");
        xcb_get_geometry_cookie_t cg = xcb_get_geometry(d->conn, w);
        xcb_translate_coordinates_cookie_t ct = xcb_translate_coordinates(d->conn, w, d->root, 0, 0);
        _cleanup_free_ xcb_intern_atom_reply_t *a = xcb_intern_atom_reply(d->conn, ca, NULL);
        _cleanup_free_ xcb_intern_atom_reply_t *u = xcb_intern_atom_reply(d->conn, cu, NULL);
        _cleanup_free_ xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(d->conn, cg, NULL);
        _cleanup_free_ xcb_translate_coordinates_reply_t *t = xcb_translate_coordinates_reply(d->conn, ct, NULL);
        _cleanup_free_ xcb_get_property_reply_t *p = NULL;

        if (!g || !t)
                return -ENOENT;
        rect[0] = t->dst_x, rect[1] = t->dst_y, rect[2] = g->width, rect[3] = g->height;
        if (a && u)
                p = xcb_get_property_reply(d->conn, xcb_get_property(d->conn, 0, w, a->atom, u->atom, 0, 1024), NULL);
        if (!p || xcb_get_property_value_length(p) <= 0) {
                free(p);
                p = xcb_get_property_reply(
                        d->conn, xcb_get_property(d->conn, 0, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 0, 1024), NULL);
        }
        *ret_title = p ? strndup(xcb_get_property_value(p), (size_t) xcb_get_property_value_length(p)) : strdup("");
        return *ret_title ? 0 : -ENOMEM;
}

/* The id of the application's window (a child of an application) that is X window w: same title, nearest rectangle. */
static int window_node(const struct a11y_desktop *d, sd_bus *bus, const char *window, char **ret_id,
                       char **ret_error) {
        _cleanup_(a11y_tree_done) struct a11y_tree t = {};
        _cleanup_free_ char *title = NULL;
        long best = -1, best_score = 0;
        xcb_window_t w;
        int rect[4] = {}, r;

        if (window_parse(window, &w) < 0)
                return fail(ret_error, EXIT_USAGE,
                            strdup_printf("--window \"%s\" is not a window id (as botdesk windows prints them).",
                                          window));
        r = window_describe(d, w, &title, rect);
        if (r == -ENOMEM)
                return fail(ret_error, EXIT_FAILED, strdup("Out of memory."));
        if (r < 0)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Desktop %s has no window %s; botdesk windows %s lists them.", d->profile,
                                          window, d->profile));
        r = a11y_tree_read(bus, d->token, NULL, 100000, 1, d->timeout_usec, &t);
        if (r < 0)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Cannot read the accessibility tree: %s", strerror(-r)));
        for (size_t i = 0; i < t.n; i++) {
                const struct a11y_node *n = &t.nodes[i];
                long score;

                if (n->depth != 1 || !n->have_bounds)
                        continue;
                /* Decorations and GTK's client-side shadows move a window's edges by a few pixels. */
                score = labs((long) n->x - rect[0]) + labs((long) n->y - rect[1]) + labs((long) n->width - rect[2]) +
                        labs((long) n->height - rect[3]);
                if (!streq_ptr(n->name, title))
                        score += 100000;
                if (best < 0 || score < best_score)
                        best = (long) i, best_score = score;
        }
        if (best < 0 || best_score >= 100000 + 200)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Window %s (\"%s\") exports no accessibility tree (not a GTK or Qt "
                                          "application, or one started with accessibility off).",
                                          window, title));
        *ret_id = strdup(t.nodes[best].id);
        return *ret_id ? EXIT_OK : fail(ret_error, EXIT_FAILED, strdup("Out of memory."));
}

int a11y_agent_read(const struct a11y_desktop *d, const char *window, const char *find, unsigned max_nodes,
                    struct a11y_result *ret, char **ret_error) {
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(a11y_query_done) struct a11y_query q = {};
        _cleanup_free_ char *root = NULL;
        struct a11y_result res = { .find = !!find, .max_nodes = max_nodes };
        int r;

        *ret_error = NULL;
        if (find && a11y_query_parse(find, &q, ret_error) < 0)
                return EXIT_USAGE;
        r = bus_open(d, &bus, ret_error);
        if (r != EXIT_OK)
                return r;
        if (window) {
                r = window_node(d, bus, window, &root, ret_error);
                if (r != EXIT_OK)
                        return r;
        }
        r = a11y_tree_read(bus, d->token, root, max_nodes, 0, d->timeout_usec, &res.tree);
        if (r == -ENOENT)
                return fail(ret_error, EXIT_FAILED, strdup_printf("The window's element %s went away.", root));
        if (r == -ENXIO)
                return fail(ret_error, EXIT_FAILED, strdup("The accessibility registry does not answer."));
        if (r < 0)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Cannot read the accessibility tree: %s", strerror(-r)));
        res.shown = calloc(res.tree.n ?: 1, sizeof *res.shown);
        if (!res.shown) {
                a11y_result_done(&res);
                return fail(ret_error, EXIT_FAILED, strdup("Out of memory."));
        }
        for (size_t i = 0; i < res.tree.n; i++) {
                res.shown[i] = !find || a11y_query_match(&q, &res.tree.nodes[i]);
                res.n_shown += res.shown[i];
        }
        *ret = res;
        return EXIT_OK;
}

int a11y_agent_do(const struct a11y_desktop *d, const char *id, const char *action, const char *text,
                  char **ret_error) {
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *b = NULL, *p = NULL;
        int r;

        *ret_error = NULL;
        if (a11y_id_parse(id, &b, &p) < 0)
                return fail(ret_error, EXIT_USAGE,
                            strdup_printf("\"%s\" is not an element id (botdesk a11y prints them, e.g. 1.42:17).", id));
        if (!a11y_action_valid(action))
                return fail(ret_error, EXIT_USAGE, strdup("The action must be an action name (click, press, "
                                                          "activate, ...) or set-text TEXT."));
        if (streq(action, "set-text") && !text)
                return fail(ret_error, EXIT_USAGE, strdup("set-text needs the TEXT."));
        r = bus_open(d, &bus, ret_error);
        if (r != EXIT_OK)
                return r;
        r = a11y_do(bus, id, action, text, d->timeout_usec);
        if (r == -ENOENT)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("No element %s: it went away (or never was); read the tree again.", id));
        if (r == -EOPNOTSUPP)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Element %s offers no %s; botdesk a11y lists each element's actions "
                                          "(set-text needs an editable text).",
                                          id, action));
        if (r == -ETIMEDOUT)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("The application of element %s did not answer in time (unresponsive).", id));
        if (r < 0)
                return fail(ret_error, EXIT_FAILED,
                            strdup_printf("Element %s refused %s: %s", id, action, strerror(-r)));
        return EXIT_OK;
}

static void bounds_json(struct json *j, const char *key, int x, int y, int w, int h) {
        json_key(j, key);
        json_object_begin(j);
        json_kv_int(j, "x", x);
        json_kv_int(j, "y", y);
        json_kv_int(j, "width", w);
        json_kv_int(j, "height", h);
        json_object_end(j);
}

static void node_json(struct json *j, const struct a11y_desktop *d, const struct a11y_tree *t,
                      const struct a11y_node *n) {
        json_object_begin(j);
        json_kv_string(j, "id", n->id);
        json_kv_string(j, "parent", n->parent >= 0 ? t->nodes[n->parent].id : NULL);
        json_kv_int(j, "depth", n->depth);
        json_kv_string(j, "role", n->role);
        json_kv_string(j, "name", n->name ?: "");
        json_kv_string(j, "description", n->description ?: "");
        json_key(j, "states");
        json_array_begin(j);
        for (unsigned s = 0; s < _A11Y_STATE_MAX; s++)
                if ((n->states & (UINT64_C(1) << s)) && a11y_state_name(s))
                        json_string(j, a11y_state_name(s));
        json_array_end(j);
        json_key(j, "actions");
        json_array_begin(j);
        for (char **a = n->actions; a && *a; a++)
                json_string(j, *a);
        json_array_end(j);
        if (n->editable)
                json_kv_bool(j, "editable_text", true);
        if (a11y_role_is_password(n->role))
                json_kv_bool(j, "password", true);
        else if (n->text)
                json_kv_string(j, "text", n->text);
        if (n->have_bounds) {
                unsigned pic[4];

                bounds_json(j, "bounds", n->x, n->y, n->width, n->height);
                /* None for an element off the screen (a closed menu's items). */
                if (mcp_space_rect_from_screen(&d->space, n->x, n->y, n->width, n->height, pic))
                        bounds_json(j, "screenshot_bounds", (int) pic[0], (int) pic[1], (int) pic[2], (int) pic[3]);
        }
        if (n->unresponsive)
                json_kv_bool(j, "unresponsive", true);
        if (n->refused)
                json_kv_bool(j, "refused", true);
        json_object_end(j);
}

void a11y_result_json(struct json *j, const struct a11y_desktop *d, const struct a11y_result *r) {
        json_object_begin(j);
        json_kv_string(j, "profile", d->profile);
        json_kv_size(j, "screen", d->space.screen_w, d->space.screen_h);
        json_kv_size(j, "screenshot", d->space.image_w, d->space.image_h);
        json_kv_int(j, "nodes_read", (long long) r->tree.n);
        json_kv_int(j, "count", (long long) r->n_shown);
        json_kv_bool(j, "cut", r->tree.cut);
        json_kv_int(j, "max_nodes", r->max_nodes);
        json_key(j, "nodes");
        json_array_begin(j);
        for (size_t i = 0; i < r->tree.n; i++)
                if (r->shown[i])
                        node_json(j, d, &r->tree, &r->tree.nodes[i]);
        json_array_end(j);
        json_object_end(j);
}

static void node_text(FILE *f, const struct a11y_desktop *d, const struct a11y_node *n, unsigned indent) {
        fprintf(f, "%*s%s %s \"%s\"", (int) indent * 2, "", n->id, n->role ?: "?", n->name ?: "");
        if (n->have_bounds) {
                unsigned pic[4];

                fprintf(f, " %dx%d+%d+%d", n->width, n->height, n->x, n->y);
                if (mcp_space_rect_from_screen(&d->space, n->x, n->y, n->width, n->height, pic))
                        fprintf(f, " (screenshot %ux%u+%u+%u)", pic[2], pic[3], pic[0], pic[1]);
                else
                        fputs(" (off screen)", f);
        }
        fputs(" [", f);
        for (unsigned s = 0, first = 1; s < _A11Y_STATE_MAX; s++)
                if ((n->states & (UINT64_C(1) << s)) && a11y_state_name(s)) {
                        fprintf(f, "%s%s", first ? "" : " ", a11y_state_name(s));
                        first = 0;
                }
        fputc(']', f);
        if (n->actions) {
                fputs(" actions:", f);
                for (char **a = n->actions; *a; a++)
                        fprintf(f, "%s%s", a == n->actions ? "" : ",", *a);
        }
        if (a11y_role_is_password(n->role))
                fputs(" (password)", f);
        else if (n->text && *n->text)
                fprintf(f, " text: \"%s\"", n->text);
        if (n->description && *n->description)
                fprintf(f, " (%s)", n->description);
        if (n->unresponsive)
                fputs(" UNRESPONSIVE", f);
        /* Its bus address (a command, a host, someone else's socket) is no one's business here. */
        if (n->refused)
                fputs(" REFUSED (its bus address is not its own socket: not read)", f);
        fputc('\n', f);
}

void a11y_result_text(FILE *f, const struct a11y_desktop *d, const struct a11y_result *r) {
        /* Depth first: a node's children follow it. */
        _cleanup_free_ long *stack = malloc(sizeof(long) * (r->tree.n + 1));
        size_t top = 0;

        if (!stack)
                return;
        for (size_t k = r->tree.n; k-- > 0;)
                if (r->tree.nodes[k].parent < 0)
                        stack[top++] = (long) k;
        while (top > 0) {
                const struct a11y_node *n = &r->tree.nodes[stack[--top]];

                if (r->shown[n - r->tree.nodes])
                        node_text(f, d, n, r->find ? 0 : n->depth);
                for (size_t c = n->n_children; c-- > 0;)
                        stack[top++] = n->children[c];
        }
        if (r->find)
                fprintf(f, "%zu found among %zu nodes.\n", r->n_shown, r->tree.n);
        if (r->tree.cut)
                fprintf(f, "Cut at %u nodes (--max-nodes): the tree has more.\n", r->max_nodes);
}
