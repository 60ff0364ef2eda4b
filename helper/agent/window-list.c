/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The window manager's windows, read over the desktop's own X connection:
 * its EWMH client list (_NET_CLIENT_LIST), each window with its title
 * (_NET_WM_NAME, else WM_NAME), WM_CLASS, geometry in root coordinates, and
 * whether it is _NET_ACTIVE_WINDOW. Every request of a listing is sent
 * before the first reply is read: a few round trips in all, not a few per
 * window. `botdesk windows`, the agent's windows tool and the waits for a
 * window all read it here.
 */
#include <xcb/xcb.h>

#include "cli-desktop.h"
#include "json.h"
#include "log.h"
#include "term-escape.h"
#include "util.h"
#include "window-list.h"

/* More than any desktop shows; a longer list is cut, not refused. */
#define WINDOWS_MAX 4096
#define PROPERTY_MAX_WORDS 1024   /* 4 KiB of title or class */

struct x_atoms {
        xcb_atom_t client_list, active, net_wm_name, utf8;
};

static xcb_atom_t atom_reply(xcb_connection_t *c, xcb_intern_atom_cookie_t ck) {
        xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, ck, NULL);
        xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;

        free(r);
        return a;
}

static void atoms_get(xcb_connection_t *c, struct x_atoms *a) {
        static const char *const names[] = { "_NET_CLIENT_LIST", "_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "UTF8_STRING" };
        xcb_intern_atom_cookie_t ck[ELEMENTSOF(names)];
        xcb_atom_t *out[] = { &a->client_list, &a->active, &a->net_wm_name, &a->utf8 };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                ck[i] = xcb_intern_atom(c, true, (uint16_t) strlen(names[i]), names[i]);
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                *out[i] = atom_reply(c, ck[i]);
}

static xcb_get_property_cookie_t get_prop(xcb_connection_t *c, xcb_window_t w, xcb_atom_t prop, xcb_atom_t type) {
        return xcb_get_property(c, false, w, prop, type, 0, PROPERTY_MAX_WORDS);
}

/* The property's bytes as a string (NUL-terminated copy), or NULL. */
static char *prop_string(xcb_connection_t *c, xcb_get_property_cookie_t ck, size_t *ret_len) {
        xcb_get_property_reply_t *r = xcb_get_property_reply(c, ck, NULL);
        char *s = NULL;

        if (r && r->format == 8 && r->type != XCB_ATOM_NONE) {
                size_t len = (size_t) xcb_get_property_value_length(r);

                s = malloc(len + 1);
                if (s) {
                        memcpy(s, xcb_get_property_value(r), len);
                        s[len] = 0;
                        if (ret_len)
                                *ret_len = len;
                }
        }
        free(r);
        return s;
}

/* The window ids of a 32-bit WINDOW property, up to max; -1 when the property is absent. */
static ssize_t prop_windows(xcb_connection_t *c, xcb_get_property_cookie_t ck, xcb_window_t *ret, size_t max) {
        xcb_get_property_reply_t *r = xcb_get_property_reply(c, ck, NULL);
        ssize_t n = -1;

        if (r && r->format == 32 && r->type == XCB_ATOM_WINDOW) {
                n = xcb_get_property_value_length(r) / 4;
                if ((size_t) n > max)
                        n = (ssize_t) max;
                memcpy(ret, xcb_get_property_value(r), (size_t) n * sizeof *ret);
        }
        free(r);
        return n;
}

void window_list_free(struct wm_window *w, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(w[i].title);
                free(w[i].instance);
                free(w[i].class);
        }
        free(w);
}

/* Titles, classes and geometry of ids[0..n), requests pipelined. */
static struct wm_window *windows_describe(xcb_connection_t *c, xcb_window_t root, const struct x_atoms *a,
                                    const xcb_window_t *ids, size_t n) {
        struct wm_window *w = calloc(n ?: 1, sizeof *w);
        _cleanup_free_ xcb_get_property_cookie_t *net_name = calloc(n ?: 1, sizeof *net_name),
                                                 *name = calloc(n ?: 1, sizeof *name),
                                                 *class = calloc(n ?: 1, sizeof *class);
        _cleanup_free_ xcb_get_geometry_cookie_t *geo = calloc(n ?: 1, sizeof *geo);
        _cleanup_free_ xcb_translate_coordinates_cookie_t *tr = calloc(n ?: 1, sizeof *tr);

        if (!w || !net_name || !name || !class || !geo || !tr) {
                free(w);
                return NULL;
        }
        for (size_t i = 0; i < n; i++) {
                net_name[i] = get_prop(c, ids[i], a->net_wm_name, a->utf8);
                name[i] = get_prop(c, ids[i], XCB_ATOM_WM_NAME, XCB_ATOM_ANY);
                class[i] = get_prop(c, ids[i], XCB_ATOM_WM_CLASS, XCB_ATOM_STRING);
                geo[i] = xcb_get_geometry(c, ids[i]);
                tr[i] = xcb_translate_coordinates(c, ids[i], root, 0, 0);
        }
        for (size_t i = 0; i < n; i++) {
                xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(c, geo[i], NULL);
                xcb_translate_coordinates_reply_t *t = xcb_translate_coordinates_reply(c, tr[i], NULL);
                size_t len = 0;
                char *cls;

                w[i].id = ids[i];
                w[i].title = prop_string(c, net_name[i], NULL);
                if (!w[i].title)
                        w[i].title = prop_string(c, name[i], NULL);
                else
                        xcb_discard_reply(c, name[i].sequence);
                /* WM_CLASS is "instance\0class\0". */
                cls = prop_string(c, class[i], &len);
                if (cls) {
                        size_t il = strnlen(cls, len);

                        w[i].instance = strdup(cls);
                        w[i].class = il + 1 < len ? strdup(cls + il + 1) : NULL;
                        free(cls);
                }
                /* A window gone between the list and the questions has no geometry: left out. */
                w[i].ok = g && t;
                if (w[i].ok) {
                        w[i].x = t->dst_x;
                        w[i].y = t->dst_y;
                        w[i].width = g->width;
                        w[i].height = g->height;
                }
                free(g);
                free(t);
        }
        return w;
}

static void windows_write_json(FILE *f, const char *profile, const struct wm_window *w, size_t n, xcb_window_t active,
                               bool wm, unsigned long long epoch) {
        struct json j;

        json_init(&j, f);
        {
                json_object_begin(&j);
                json_kv_string(&j, "profile", profile);
                json_kv_bool(&j, "window_manager", wm);
                json_key(&j, "windows");
                json_array_begin(&j);
                for (size_t i = 0; i < n; i++) {
                        if (!w[i].ok)
                                continue;
                        json_object_begin(&j);
                        json_kv_int(&j, "id", w[i].id);
                        json_kv_string(&j, "title", w[i].title);
                        json_kv_string(&j, "class", w[i].class);
                        json_kv_string(&j, "instance", w[i].instance);
                        json_kv_int(&j, "x", w[i].x);
                        json_kv_int(&j, "y", w[i].y);
                        json_kv_int(&j, "width", w[i].width);
                        json_kv_int(&j, "height", w[i].height);
                        json_kv_bool(&j, "active", w[i].id == active);
                        json_object_end(&j);
                }
                json_array_end(&j);
                json_kv_int(&j, "epoch", (long long) epoch);
                json_object_end(&j);
        }
}

void window_list_print(const char *profile, const struct wm_window *w, size_t n, xcb_window_t active, bool wm,
                       unsigned long long epoch, bool json) {
        if (json) {
                windows_write_json(stdout, profile, w, n, active, wm, epoch);
                putchar('\n');
                return;
        }
        if (!wm)
                printf("%s: no window manager publishes a client list (_NET_CLIENT_LIST).\n", profile);
        for (size_t i = 0; i < n; i++)
                if (w[i].ok) {
                        /* Titles and classes are the applications' words: no control reaches a terminal. */
                        _cleanup_free_ char *class = NULL, *title = NULL;

                        printf("0x%08x %c %dx%d%+d%+d %s \"%s\"\n", (unsigned) w[i].id, w[i].id == active ? '*' : ' ',
                               w[i].width, w[i].height, w[i].x, w[i].y, term_field(stdout, w[i].class, &class) ?: "-",
                               term_field(stdout, w[i].title, &title) ?: "");
                }
}

/* The client list and its windows described: *ret_w (n of them, some maybe
 * not ok) or NULL on -ENOMEM. */
int window_list_read(xcb_connection_t *c, xcb_window_t root, struct wm_window **ret_w, size_t *ret_n,
                     xcb_window_t *ret_active, bool *ret_wm) {
        _cleanup_free_ xcb_window_t *ids = calloc(WINDOWS_MAX, sizeof *ids);
        struct x_atoms a = {};
        xcb_window_t active = XCB_NONE;
        size_t n = 0;
        bool wm = false;

        *ret_w = NULL;
        *ret_n = 0;
        if (!ids)
                return -ENOMEM;
        atoms_get(c, &a);
        if (a.client_list != XCB_ATOM_NONE) {
                xcb_get_property_cookie_t list = xcb_get_property(c, false, root, a.client_list, XCB_ATOM_WINDOW, 0,
                                                                   WINDOWS_MAX);
                xcb_get_property_cookie_t act = xcb_get_property(c, false, root, a.active, XCB_ATOM_WINDOW, 0, 1);

                ssize_t k = prop_windows(c, list, ids, WINDOWS_MAX);

                wm = k >= 0;
                n = k > 0 ? (size_t) k : 0;
                if (a.active == XCB_ATOM_NONE || prop_windows(c, act, &active, 1) <= 0)
                        active = XCB_NONE;
        }
        *ret_w = windows_describe(c, root, &a, ids, n);
        *ret_n = n;
        *ret_active = active;
        *ret_wm = wm;
        return *ret_w ? 0 : -ENOMEM;
}

int cli_windows_json(xcb_connection_t *c, xcb_window_t root, const char *profile, unsigned long long epoch, FILE *f) {
        struct wm_window *w = NULL;
        xcb_window_t active;
        size_t n;
        bool wm;
        int r;

        r = window_list_read(c, root, &w, &n, &active, &wm);
        if (r < 0)
                return r;
        if (xcb_connection_has_error(c)) {
                window_list_free(w, n);
                return -EIO;
        }
        windows_write_json(f, profile, w, n, active, wm, epoch);
        window_list_free(w, n);
        return 0;
}

int cli_windows_titles(xcb_connection_t *c, xcb_window_t root, struct cli_window_title **ret, size_t *ret_n,
                       bool *ret_wm) {
        struct cli_window_title *t;
        struct wm_window *w = NULL;
        xcb_window_t active;
        size_t n, k = 0;
        int r;

        *ret = NULL;
        *ret_n = 0;
        r = window_list_read(c, root, &w, &n, &active, ret_wm);
        if (r < 0)
                return r;
        if (xcb_connection_has_error(c)) {
                window_list_free(w, n);
                return -EIO;
        }
        t = calloc(n ?: 1, sizeof *t);
        if (!t) {
                window_list_free(w, n);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                if (w[i].ok) {
                        t[k].id = w[i].id;
                        t[k++].title = TAKE_PTR(w[i].title);
                }
        window_list_free(w, n);
        *ret = t;
        *ret_n = k;
        return 0;
}

void cli_window_titles_free(struct cli_window_title *t, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(t[i].title);
        free(t);
}
