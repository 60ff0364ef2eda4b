/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Gemini's predefined computer-use functions (gemini.h): each a row of the
 * arguments it requires and allows, then the actions it is.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gemini.h"
#include "util.h"

enum {
        G_X,
        G_Y,
        G_TEXT,
        G_PRESS_ENTER,
        G_CLEAR,
        G_KEYS,
        G_DIRECTION,
        G_MAGNITUDE,
        G_DEST_X,
        G_DEST_Y,
        _G_MAX,
};

#define G(id) (1u << (id))

static const char *const g_names[_G_MAX] = {
        [G_X] = "x",
        [G_Y] = "y",
        [G_TEXT] = "text",
        [G_PRESS_ENTER] = "press_enter",
        [G_CLEAR] = "clear_before_typing",
        [G_KEYS] = "keys",
        [G_DIRECTION] = "direction",
        [G_MAGNITUDE] = "magnitude",
        [G_DEST_X] = "destination_x",
        [G_DEST_Y] = "destination_y",
};

enum g_kind { G_CLICK_AT, G_HOVER_AT, G_TYPE_TEXT_AT, G_KEY_COMBINATION, G_SCROLL_DOCUMENT, G_SCROLL_AT,
              G_DRAG_AND_DROP, G_WAIT_5_SECONDS, G_BROWSER };

static const struct g_form {
        const char *name;
        enum g_kind kind;
        unsigned required, allowed;
        const char *usage;              /* the valid form; for a browser function, the desktop's way */
} g_forms[] = {
        { "click_at", G_CLICK_AT, G(G_X) | G(G_Y), 0, "click_at(x, y), x and y from 0 to 999" },
        { "hover_at", G_HOVER_AT, G(G_X) | G(G_Y), 0, "hover_at(x, y), x and y from 0 to 999" },
        { "type_text_at", G_TYPE_TEXT_AT, G(G_X) | G(G_Y) | G(G_TEXT), G(G_PRESS_ENTER) | G(G_CLEAR),
          "type_text_at(x, y, text, press_enter = false, clear_before_typing = true)" },
        { "key_combination", G_KEY_COMBINATION, G(G_KEYS), 0, "key_combination(keys), keys such as \"Control+C\"" },
        { "scroll_document", G_SCROLL_DOCUMENT, G(G_DIRECTION), 0,
          "scroll_document(direction), direction up, down, left or right" },
        { "scroll_at", G_SCROLL_AT, G(G_X) | G(G_Y) | G(G_DIRECTION), G(G_MAGNITUDE),
          "scroll_at(x, y, direction, magnitude = 800), direction up, down, left or right, magnitude 0 to 999" },
        { "drag_and_drop", G_DRAG_AND_DROP, G(G_X) | G(G_Y) | G(G_DEST_X) | G(G_DEST_Y), 0,
          "drag_and_drop(x, y, destination_x, destination_y), each from 0 to 999" },
        { "wait_5_seconds", G_WAIT_5_SECONDS, 0, 0, "wait_5_seconds()" },
        { "open_web_browser", G_BROWSER, 0, ~0u,
          "a botdesk desktop is a whole desktop, already open: click_at the browser in its dock" },
        { "navigate", G_BROWSER, 0, ~0u,
          "a botdesk desktop has no address bar of its own: in the browser, key_combination(\"Control+L\"), then "
          "type_text_at the address bar with the URL and press_enter" },
        { "search", G_BROWSER, 0, ~0u,
          "in the desktop's browser, key_combination(\"Control+L\"), then type_text_at the address bar with the "
          "words and press_enter" },
        { "go_back", G_BROWSER, 0, ~0u, "in the desktop's browser, key_combination(\"Alt+Left\")" },
        { "go_forward", G_BROWSER, 0, ~0u, "in the desktop's browser, key_combination(\"Alt+Right\")" },
};

_printf_(2, 3) static int fail(char **ret_error, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        *ret_error = strdup_vprintf(fmt, ap);
        va_end(ap);
        return *ret_error ? -EINVAL : -ENOMEM;
}

static const struct json_value *g_arg(const struct json_value *args, int id) {
        const struct json_value *v = args ? json_get(args, g_names[id]) : NULL;

        return v && v->type != JSON_NULL ? v : NULL;
}

/* A point of the 0-999 grid as a screen pixel: the reference agent's int(v / 1000 * size). */
static int grid(const struct json_value *v, unsigned size, unsigned *ret) {
        long long n;

        if (json_get_int(v, 0, MCP_GEMINI_GRID - 1, &n) < 0)
                return -ERANGE;
        *ret = (unsigned) ((unsigned long long) n * size / MCP_GEMINI_GRID);
        return 0;
}

static int point(const struct json_value *args, int xid, int yid, const struct mcp_space *s, unsigned *rx,
                 unsigned *ry, const struct g_form *f, char **ret_error) {
        if (grid(g_arg(args, xid), s->screen_w, rx) < 0 || grid(g_arg(args, yid), s->screen_h, ry) < 0)
                return fail(ret_error, "%s: %s and %s must be whole numbers from 0 to 999 (the screen scaled to "
                            "1000x1000). Use: %s", f->name, g_names[xid], g_names[yid], f->usage);
        return 0;
}

static int flag(const struct json_value *args, int id, bool def, bool *ret, const struct g_form *f, char **ret_error) {
        const struct json_value *v = g_arg(args, id);

        if (!v) {
                *ret = def;
                return 0;
        }
        if (v->type != JSON_TRUE && v->type != JSON_FALSE)
                return fail(ret_error, "%s: %s must be true or false. Use: %s", f->name, g_names[id], f->usage);
        *ret = v->type == JSON_TRUE;
        return 0;
}

/* A direction as wheel steps right and down. */
static int direction(const struct json_value *args, long long steps, long long *dx, long long *dy,
                     const struct g_form *f, char **ret_error) {
        const struct json_value *v = g_arg(args, G_DIRECTION);
        const char *d = v && v->type == JSON_STRING ? v->string : "";

        *dx = *dy = 0;
        if (streq(d, "up"))
                *dy = -steps;
        else if (streq(d, "down"))
                *dy = steps;
        else if (streq(d, "left"))
                *dx = -steps;
        else if (streq(d, "right"))
                *dx = steps;
        else
                return fail(ret_error, "%s: direction must be up, down, left or right. Use: %s", f->name, f->usage);
        return 0;
}

/* One key name of Gemini's (Control, Meta, ArrowLeft, C) as the action table's (ctrl, super, Left, c). */
static const char *key_name(const char *k, char *buf, size_t size) {
        static const struct {
                const char *from, *to;
        } names[] = {
                { "Command", "super" }, { "Cmd", "super" }, { "Option", "alt" }, { "ArrowLeft", "Left" },
                { "ArrowRight", "Right" }, { "ArrowUp", "Up" }, { "ArrowDown", "Down" },
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcasecmp(k, names[i].from) == 0)
                        return names[i].to;
        /* "C" names the key, not the capital letter (which would add Shift). */
        if (k[0] && !k[1] && isupper((unsigned char) k[0])) {
                snprintf(buf, size, "%c", tolower((unsigned char) k[0]));
                return buf;
        }
        return k;
}

static int key_combination(const struct json_value *args, struct mcp_gemini_call *c, const struct g_form *f,
                           char **ret_error) {
        const struct json_value *v = g_arg(args, G_KEYS);
        size_t o = 0;

        if (!v || v->type != JSON_STRING || !*v->string || strlen(v->string) >= 128 || strchr(v->string, ' '))
                return fail(ret_error, "key_combination: keys must be one combination of key names joined by +. Use: %s",
                            f->usage);
        for (const char *p = v->string; *p;) {
                size_t n = strcspn(p, "+");
                char part[64], one[2];
                int w;

                /* "Control++" and "+": the plus key itself. */
                if (n == 0)
                        n = 1;
                if (n >= sizeof part)
                        return fail(ret_error, "key_combination: a key name is too long. Use: %s", f->usage);
                memcpy(part, p, n);
                part[n] = 0;
                w = snprintf(c->combo + o, sizeof c->combo - o, "%s%s", o ? "+" : "", key_name(part, one, sizeof one));
                if (w < 0 || (size_t) w >= sizeof c->combo - o)
                        return fail(ret_error, "key_combination: too many keys. Use: %s", f->usage);
                o += (size_t) w;
                p += n;
                if (*p == '+' && p[1])
                        p++;
        }
        return 0;
}

static struct mcp_action *step(struct mcp_gemini_call *c, enum mcp_act kind, const char *name) {
        struct mcp_action *a = &c->steps[c->n_steps++];

        *a = (struct mcp_action) { .kind = kind, .schema = MCP_SCHEMA_ANTHROPIC, .name = name, .repeat = 1 };
        return a;
}

const char *mcp_gemini_excluded(size_t i) {
        for (size_t k = 0; k < ELEMENTSOF(g_forms); k++)
                if (g_forms[k].kind == G_BROWSER && i-- == 0)
                        return g_forms[k].name;
        return NULL;
}

int mcp_gemini_parse(const char *name, const struct json_value *args, const struct mcp_space *s,
                     struct mcp_gemini_call *ret, char **ret_error) {
        const struct g_form *f = NULL;
        struct mcp_gemini_call *c = ret;
        struct mcp_action *a;
        unsigned x = 0, y = 0;
        char list[512];
        size_t o = 0;
        int r;

        *ret_error = NULL;
        for (size_t i = 0; name && i < ELEMENTSOF(g_forms); i++)
                if (streq(g_forms[i].name, name))
                        f = &g_forms[i];
        if (!f) {
                list[0] = 0;
                for (size_t i = 0; i < ELEMENTSOF(g_forms) && o < sizeof list; i++)
                        if (g_forms[i].kind != G_BROWSER) {
                                int w = snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", g_forms[i].name);
                                o += w > 0 ? (size_t) w : 0;
                        }
                return fail(ret_error, "Unknown function \"%s\"; the desktop's computer-use functions are: %s.",
                            strnull(name), list);
        }
        if (f->kind == G_BROWSER)
                return fail(ret_error, "%s is a browser's function: %s.", f->name, f->usage);
        if (args && args->type != JSON_OBJECT)
                return fail(ret_error, "%s: args must be an object. Use: %s", f->name, f->usage);

        *c = (struct mcp_gemini_call) { .name = f->name };
        for (size_t i = 0; args && i < args->n; i++) {
                const char *key = args->items[i].key;
                bool known = false;

                /* The model's own words about the step, and the safety system's: not the action's. */
                if (streq(key, "intent") || args->items[i].type == JSON_NULL)
                        continue;
                if (streq(key, "safety_decision")) {
                        c->safety_decision = true;
                        continue;
                }
                for (int id = 0; id < _G_MAX; id++)
                        if (streq(key, g_names[id]) && ((f->required | f->allowed) & G(id)))
                                known = true;
                if (!known)
                        return fail(ret_error, "%s does not take \"%s\". Use: %s", f->name, key, f->usage);
        }
        for (int id = 0; id < _G_MAX; id++)
                if ((f->required & G(id)) && !g_arg(args, id))
                        return fail(ret_error, "%s needs \"%s\". Use: %s", f->name, g_names[id], f->usage);
        if (f->required & G(G_X)) {
                r = point(args, G_X, G_Y, s, &x, &y, f, ret_error);
                if (r < 0)
                        return r;
        }

        switch (f->kind) {
        case G_CLICK_AT:
                a = step(c, MCP_ACT_CLICK, f->name);
                a->have_point = true, a->x = x, a->y = y, a->button = 1, a->clicks = 1;
                break;
        case G_HOVER_AT:
                a = step(c, MCP_ACT_MOVE, f->name);
                a->have_point = true, a->x = x, a->y = y;
                break;
        case G_TYPE_TEXT_AT: {
                const struct json_value *t = g_arg(args, G_TEXT);
                bool enter = false, clear = true;

                if (!t || t->type != JSON_STRING)
                        return fail(ret_error, "type_text_at: text must be a string. Use: %s", f->usage);
                if ((r = flag(args, G_PRESS_ENTER, false, &enter, f, ret_error)) < 0 ||
                    (r = flag(args, G_CLEAR, true, &clear, f, ret_error)) < 0)
                        return r;
                a = step(c, MCP_ACT_CLICK, f->name);
                a->have_point = true, a->x = x, a->y = y, a->button = 1, a->clicks = 1;
                if (clear) {
                        a = step(c, MCP_ACT_KEY, f->name);
                        a->text = "ctrl+a BackSpace";
                }
                if (*t->string) {
                        a = step(c, MCP_ACT_TYPE, f->name);
                        a->text = t->string;
                }
                if (enter) {
                        a = step(c, MCP_ACT_KEY, f->name);
                        a->text = "Return";
                }
                break;
        }
        case G_KEY_COMBINATION:
                r = key_combination(args, c, f, ret_error);
                if (r < 0)
                        return r;
                a = step(c, MCP_ACT_KEY, f->name);
                a->text = c->combo;
                break;
        case G_SCROLL_DOCUMENT:
                a = step(c, MCP_ACT_SCROLL, f->name);
                r = direction(args, MCP_GEMINI_DOCUMENT_STEPS, &a->dx, &a->dy, f, ret_error);
                if (r < 0)
                        return r;
                a->have_point = true, a->x = s->screen_w / 2, a->y = s->screen_h / 2;
                break;
        case G_SCROLL_AT: {
                const struct json_value *m = g_arg(args, G_MAGNITUDE);
                long long magnitude = MCP_GEMINI_SCROLL_MAGNITUDE_DEFAULT, pixels, steps;
                const struct json_value *d = g_arg(args, G_DIRECTION);
                bool vertical = d && d->type == JSON_STRING && (streq(d->string, "up") || streq(d->string, "down"));

                if (m && json_get_int(m, 0, MCP_GEMINI_GRID - 1, &magnitude) < 0)
                        return fail(ret_error, "scroll_at: magnitude must be a whole number from 0 to 999. Use: %s",
                                    f->usage);
                /* The grid's units as pixels along the direction, then as wheel steps (action.h). */
                pixels = magnitude * (long long) (vertical ? s->screen_h : s->screen_w) / MCP_GEMINI_GRID;
                steps = (pixels + MCP_SCROLL_PIXELS_PER_STEP / 2) / MCP_SCROLL_PIXELS_PER_STEP;
                a = step(c, MCP_ACT_SCROLL, f->name);
                r = direction(args, steps > 0 ? steps : 1, &a->dx, &a->dy, f, ret_error);
                if (r < 0)
                        return r;
                a->have_point = true, a->x = x, a->y = y;
                break;
        }
        case G_DRAG_AND_DROP:
                a = step(c, MCP_ACT_DRAG, f->name);
                a->button = 1;
                a->path[0][0] = x, a->path[0][1] = y;
                r = point(args, G_DEST_X, G_DEST_Y, s, &a->path[1][0], &a->path[1][1], f, ret_error);
                if (r < 0)
                        return r;
                a->n_path = 2;
                break;
        case G_WAIT_5_SECONDS:
                a = step(c, MCP_ACT_WAIT, f->name);
                a->duration_ms = 5000;
                break;
        case G_BROWSER:
                break;
        }
        return 0;
}
