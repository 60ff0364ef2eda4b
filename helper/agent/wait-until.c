/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli-desktop.h"
#include "window-list.h"
#include "lease-watch.h"
#include "util.h"
#include "wait-until.h"

static const char *const kind_names[] = {
        [WAIT_WINDOW] = "window",
        [WAIT_GONE] = "gone",
        [WAIT_A11Y] = "a11y",
        [WAIT_TEXT] = "text",
        [WAIT_QUIET] = "quiet",
        [WAIT_CHANGED] = "changed",
};

const char *wait_kind_name(enum wait_kind k) {
        return kind_names[k];
}

/* a11y=ROLE:NAME as the query a11y-find.h matches: "role=ROLE,name=NAME", either left out when empty. */
static int parse_a11y(const char *v, struct wait_condition *c, char **ret_error) {
        _cleanup_free_ char *role = NULL, *expr = NULL, *why = NULL;
        const char *colon = strchr(v, ':'), *name;

        if (!colon)
                return problemf(ret_error, "a11y=%s has no colon: give a11y=ROLE:NAME (push button:Save, :Save, "
                                           "dialog:).", v);
        role = strndup(v, (size_t) (colon - v));
        if (!role)
                return -ENOMEM;
        name = colon + 1;
        if (!*role && !*name)
                return problemf(ret_error, "a11y=%s names nothing: give a role, a name or both (push button:Save).",
                                v);
        if (strchr(v, ','))
                return problemf(ret_error, "a11y=%s holds a comma, which no role or name here can: give "
                                           "a11y=ROLE:NAME.", v);
        expr = strdup_printf("%s%s%s%s%s", *role ? "role=" : "", role, *role && *name ? "," : "", *name ? "name=" : "",
                             name);
        if (!expr)
                return -ENOMEM;
        if (a11y_query_parse(expr, &c->query, &why) < 0) {
                *ret_error = strdup_printf("a11y=%s: %s", v, why ?: "not a valid query");
                return *ret_error ? -EINVAL : -ENOMEM;
        }
        return 0;
}

int wait_condition_parse(const char *spec, struct wait_condition *ret, char **ret_error) {
        struct wait_condition c = {};
        const char *v;
        int r;

        if ((v = startswith(spec, "window=")))
                c.kind = WAIT_WINDOW;
        else if ((v = startswith(spec, "gone=")))
                c.kind = WAIT_GONE;
        else if ((v = startswith(spec, "a11y=")))
                c.kind = WAIT_A11Y;
        else if ((v = startswith(spec, "text=")))
                c.kind = WAIT_TEXT;
        else if (streq(spec, "quiet") || (v = startswith(spec, "quiet="))) {
                unsigned long long ms = SETTLE_QUIET_MS_DEFAULT;

                if (v && (parse_uint(v, WAIT_QUIET_MS_MAX, &ms) < 0 || ms == 0))
                        return problemf(ret_error, "Invalid quiet time in %s: give quiet or quiet=MS, MS 1-60000.",
                                        spec);
                c.kind = WAIT_QUIET;
                c.quiet_ms = (unsigned) ms;
        } else if (streq(spec, "changed"))
                c.kind = WAIT_CHANGED;
        else
                return problemf(ret_error, "Unknown condition \"%s\": give " WAIT_CONDITIONS ".", spec);

        if (c.kind <= WAIT_TEXT && !*v)
                return problemf(ret_error, "Empty %s in %s: give %s.",
                                c.kind == WAIT_TEXT ? "STRING" : c.kind == WAIT_A11Y ? "ROLE:NAME" : "title", spec,
                                c.kind == WAIT_TEXT ? "the text to wait for"
                                : c.kind == WAIT_A11Y ? "a11y=ROLE:NAME"
                                                         : "the text the window's title contains");
        c.value = v;
        if (c.kind == WAIT_A11Y) {
                r = parse_a11y(v, &c, ret_error);
                if (r < 0) {
                        wait_condition_done(&c);
                        return r;
                }
        }
        *ret = c;
        return 0;
}

void wait_condition_done(struct wait_condition *c) {
        a11y_query_done(&c->query);
}

void wait_match_done(struct wait_match *m) {
        free(m->title);
        free(m->node_id);
        free(m->role);
        free(m->name);
        *m = (struct wait_match) {};
}

/* ---- windows: the window manager's list and the clients' titles ---------------------------- */

struct windows {
        xcb_atom_t client_list, net_wm_name;
        xcb_window_t *watched;  /* the clients whose title changes are selected */
        size_t n_watched;
};

static bool watched(const struct windows *w, xcb_window_t id) {
        for (size_t i = 0; i < w->n_watched; i++)
                if (w->watched[i] == id)
                        return true;
        return false;
}

/* Select the title changes of the clients not yet selected: how many were new, or -ENOMEM. */
static ssize_t watch_clients(xcb_connection_t *c, struct windows *w, const struct cli_window_title *t, size_t n) {
        static const uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
        ssize_t added = 0;

        for (size_t i = 0; i < n; i++) {
                xcb_window_t *grown;

                if (watched(w, t[i].id))
                        continue;
                grown = realloc(w->watched, (w->n_watched + 1) * sizeof *grown);
                if (!grown)
                        return -ENOMEM;
                w->watched = grown;
                w->watched[w->n_watched++] = t[i].id;
                /* A window gone meanwhile answers BadWindow, an error event, ignored. */
                xcb_change_window_attributes(c, t[i].id, XCB_CW_EVENT_MASK, &mask);
                added++;
        }
        return added;
}

/* The clients' selections undone: a long-lived connection (botdesk mcp) is not woken by titles any more. */
static void unwatch_clients(xcb_connection_t *c, struct windows *w) {
        static const uint32_t none = 0;

        for (size_t i = 0; i < w->n_watched; i++)
                xcb_change_window_attributes(c, w->watched[i], XCB_CW_EVENT_MASK, &none);
        free(w->watched);
        *w = (struct windows) {};
}

/* Whether window= or gone= holds now: 1 (window=: its match in *m), 0, or -errno. */
static int look_windows(const struct wait_target *t, struct windows *w, const struct wait_condition *c,
                        struct wait_match *m) {
        for (;;) {
                struct cli_window_title *titles = NULL;
                size_t n = 0;
                ssize_t added;
                bool wm;
                int r;

                r = cli_windows_titles(t->conn, t->root, &titles, &n, &wm);
                if (r < 0)
                        return r;
                added = watch_clients(t->conn, w, titles, n);
                if (added < 0) {
                        cli_window_titles_free(titles, n);
                        return (int) added;
                }
                /* A title set between the read and the selection is missed
                 * by both: read again once every listed client is selected. */
                if (added > 0) {
                        cli_window_titles_free(titles, n);
                        continue;
                }
                for (size_t i = 0; i < n; i++)
                        if (titles[i].title && strstr(titles[i].title, c->value)) {
                                if (c->kind == WAIT_WINDOW) {
                                        m->id = titles[i].id;
                                        m->title = TAKE_PTR(titles[i].title);
                                }
                                cli_window_titles_free(titles, n);
                                return c->kind == WAIT_WINDOW;
                        }
                cli_window_titles_free(titles, n);
                return c->kind == WAIT_GONE;
        }
}

/* Whether ev may change what look_windows() finds. */
static bool window_event(const struct windows *w, xcb_window_t root, const xcb_generic_event_t *ev) {
        const xcb_property_notify_event_t *p;

        if ((ev->response_type & 0x7f) != XCB_PROPERTY_NOTIFY)
                return false;
        p = (const xcb_property_notify_event_t *) ev;
        if (p->window == root)
                return p->atom == w->client_list;
        return p->atom == w->net_wm_name || p->atom == XCB_ATOM_WM_NAME;
}

/* ---- the accessibility tree --------------------------------------------------------------- */

static bool contains_nocase(const char *haystack, const char *needle) {
        return haystack && strcasestr(haystack, needle);
}

static bool node_matches(const struct wait_condition *c, const struct a11y_node *n) {
        if (c->kind == WAIT_A11Y)
                return a11y_query_match(&c->query, n);
        return contains_nocase(n->name, c->value) || contains_nocase(n->text, c->value);
}

/* Whether a11y= or text= holds now: 1 with the element in *m, 0, -ENODATA when the tree cannot be read (why in
 * *ret_error), or -ENOMEM. */
static int look_a11y(const struct wait_target *t, const struct wait_condition *c, struct wait_match *m,
                     char **ret_error) {
        _cleanup_(a11y_result_done) struct a11y_result res = {};
        int r;

        r = a11y_agent_read(t->a11y, NULL, NULL, A11Y_MAX_NODES_MAX, &res, ret_error);
        if (r != EXIT_OK)
                return *ret_error ? -ENODATA : -ENOMEM;
        for (size_t i = 0; i < res.tree.n; i++) {
                const struct a11y_node *n = &res.tree.nodes[i];

                if (n->parent < 0 || !node_matches(c, n))
                        continue;
                m->node_id = strdup(n->id);
                m->role = n->role ? strdup(n->role) : NULL;
                m->name = n->name ? strdup(n->name) : NULL;
                if (!m->node_id || (n->role && !m->role) || (n->name && !m->name))
                        return -ENOMEM;
                m->have_bounds = n->have_bounds;
                m->x = n->x;
                m->y = n->y;
                m->width = n->width;
                m->height = n->height;
                return 1;
        }
        return 0;
}

/* ---- the wait ----------------------------------------------------------------------------- */

/* Hand the events next() gives to settle and the window watch: whether there were any. */
static bool take_events(const struct wait_target *t, const struct windows *w,
                        xcb_generic_event_t *(*next)(xcb_connection_t *c), bool screen, bool by_windows, bool *dirty) {
        xcb_generic_event_t *ev;
        bool any = false;

        while ((ev = next(t->conn))) {
                any = true;
                if (screen)
                        settle_event(t->settle, ev);
                if (by_windows && window_event(w, t->root, ev))
                        *dirty = true;
                free(ev);
        }
        return any;
}

static int poll_ms(unsigned long long now, unsigned long long until) {
        unsigned long long ms = until > now ? (until - now + 999) / 1000 : 0;

        return ms > INT32_MAX ? INT32_MAX : (int) ms;
}

int wait_until(const struct wait_target *t, const struct wait_condition *c, unsigned long long deadline,
               enum wait_outcome *ret, struct wait_match *m, char **ret_error) {
        static const uint32_t root_mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
        bool screen = c->kind >= WAIT_A11Y, tree = c->kind == WAIT_A11Y || c->kind == WAIT_TEXT;
        bool by_windows = c->kind <= WAIT_GONE || tree;
        /* Look at the start; then whenever what the condition reads may have changed. */
        bool dirty = true;
        unsigned long long start = now_usec(), seen_change = 0;
        struct windows w = {};
        xcb_get_window_attributes_reply_t *attrs = NULL;
        int r = 0;

        *m = (struct wait_match) {};
        if (screen && (!t->settle || !t->settle->damage))
                return -EOPNOTSUPP;
        if (tree && !t->a11y)
                return -EOPNOTSUPP;
        if (screen)
                settle_begin(t->settle);
        if (by_windows) {
                /* Selected before the first read, as each client's is (look_windows()); the root's own
                 * selection restored at the end. */
                attrs = xcb_get_window_attributes_reply(t->conn, xcb_get_window_attributes(t->conn, t->root), NULL);
                uint32_t mask = root_mask | (attrs ? attrs->your_event_mask : 0);

                xcb_change_window_attributes(t->conn, t->root, XCB_CW_EVENT_MASK, &mask);
                w.client_list = cli_intern_atom(t->conn, "_NET_CLIENT_LIST");
                w.net_wm_name = cli_intern_atom(t->conn, "_NET_WM_NAME");
        }

        for (;;) {
                struct pollfd p[2] = {
                        { .fd = xcb_get_file_descriptor(t->conn), .events = POLLIN },
                        { .fd = t->lease_watch, .events = POLLIN },
                };
                unsigned long long now, until = deadline, again;

                if (dirty) {
                        if (c->kind <= WAIT_GONE)
                                r = look_windows(t, &w, c, m);
                        else if (tree)
                                /* What is drawn while the tree is read wakes the next look: the
                                 * damage waits in the connection's queue. */
                                r = look_a11y(t, c, m, ret_error);
                        if (r < 0 || r == 1)
                                break;
                        dirty = false;
                }

                take_events(t, &w, xcb_poll_for_event, screen, by_windows, &dirty);
                if (xcb_connection_has_error(t->conn)) {
                        r = -EIO;
                        break;
                }
                (void) inotify_drain(t->lease_watch, NULL, NULL);
                if (!cli_action_still_valid(t->dirfd, t->admitted)) {
                        *ret = WAIT_SUPPRESSED;
                        r = 0;
                        goto out;
                }
                now = now_usec();
                if (screen) {
                        struct settle *s = t->settle;
                        unsigned long long quiet_end;

                        again = settle_poll(s);
                        now = now_usec();
                        if (c->kind == WAIT_CHANGED && s->last_change) {
                                r = 1;
                                break;
                        }
                        quiet_end = (s->last_change ?: s->since) + (unsigned long long) (c->quiet_ms ?: SETTLE_QUIET_MS_DEFAULT) * 1000ull;
                        if (c->kind == WAIT_QUIET && now >= quiet_end && s->n_pending == 0) {
                                r = 1;
                                break;
                        }
                        if (tree && s->last_change != seen_change) {
                                /* Drawn: look again now, and once more when it has gone quiet. */
                                seen_change = s->last_change;
                                dirty = true;
                                continue;
                        }
                        if (tree && seen_change && now >= quiet_end && s->n_pending == 0) {
                                /* Quiet after a change: the last look of this change. */
                                dirty = true;
                                seen_change = 0;
                                settle_rearm(s);
                                continue;
                        }
                        if (again && again < until)
                                until = again;
                        if ((c->kind == WAIT_QUIET || (tree && seen_change)) && quiet_end < until)
                                until = quiet_end;
                }
                if (dirty)
                        continue;
                if (now >= deadline) {
                        *ret = WAIT_TIMED_OUT;
                        r = 0;
                        goto out;
                }
                /* Replies read since the drain (settle_poll()'s) may have queued events the socket no longer
                 * announces: those first. */
                if (take_events(t, &w, xcb_poll_for_queued_event, screen, by_windows, &dirty))
                        continue;
                xcb_flush(t->conn);
                if (poll(p, ELEMENTSOF(p), poll_ms(now, until)) < 0 && errno != EINTR) {
                        r = negative_errno();
                        break;
                }
        }
        /* Out of the loop: matched (1) or failed (-errno). */
        if (r == 1) {
                *ret = WAIT_MATCHED;
                r = 0;
        }
out:
        m->ms = (unsigned) ((now_usec() - start) / 1000);
        if (by_windows) {
                uint32_t mask = attrs ? attrs->your_event_mask : 0;

                xcb_change_window_attributes(t->conn, t->root, XCB_CW_EVENT_MASK, &mask);
                unwatch_clients(t->conn, &w);
                xcb_flush(t->conn);
        }
        free(attrs);
        return r;
}

void wait_match_fields(struct json *j, const struct wait_condition *c, const struct wait_match *m) {
        json_kv_string(j, "matched", wait_kind_name(c->kind));
        switch (c->kind) {
        case WAIT_WINDOW:
                json_kv_string(j, "title", m->title);
                json_kv_int(j, "id", m->id);
                break;
        case WAIT_GONE:
                json_kv_string(j, "title", c->value);
                json_kv_null(j, "id");
                break;
        case WAIT_A11Y:
        case WAIT_TEXT:
                json_key(j, "element");
                json_object_begin(j);
                json_kv_string(j, "id", m->node_id);
                json_kv_string(j, "role", m->role);
                json_kv_string(j, "name", m->name);
                if (m->have_bounds) {
                        json_key(j, "bounds");
                        json_array_begin(j);
                        json_int(j, m->x);
                        json_int(j, m->y);
                        json_int(j, m->width);
                        json_int(j, m->height);
                        json_array_end(j);
                }
                json_object_end(j);
                break;
        case WAIT_QUIET:
                json_kv_int(j, "quiet_ms", c->quiet_ms);
                break;
        case WAIT_CHANGED:
                break;
        }
        json_kv_int(j, "ms", m->ms);
}
