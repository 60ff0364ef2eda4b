/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The two action schemas (action.h), and the toolset's members on the
 * Anthropic rows. Each action is a row: the arguments it requires and
 * those it allows; everything else in the object is an error that names
 * the action's valid form.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "tools.h"
#include "util.h"

enum {
        ARG_COORDINATE,
        ARG_START_COORDINATE,
        ARG_TEXT,
        ARG_SCROLL_DIRECTION,
        ARG_SCROLL_AMOUNT,
        ARG_DURATION,
        ARG_REGION,
        ARG_X,
        ARG_Y,
        ARG_BUTTON,
        ARG_PATH,
        ARG_KEYS,
        ARG_SCROLL_X,
        ARG_SCROLL_Y,
        ARG_REPEAT,
        ARG_SINCE_REVISION,
        ARG_CHANGED_REGION,
        _ARG_MAX,
};

#define A(id) (1u << (id))

static const char *const arg_names[_ARG_MAX] = {
        [ARG_COORDINATE] = "coordinate",
        [ARG_START_COORDINATE] = "start_coordinate",
        [ARG_TEXT] = "text",
        [ARG_SCROLL_DIRECTION] = "scroll_direction",
        [ARG_SCROLL_AMOUNT] = "scroll_amount",
        [ARG_DURATION] = "duration",
        [ARG_REGION] = "region",
        [ARG_X] = "x",
        [ARG_Y] = "y",
        [ARG_BUTTON] = "button",
        [ARG_PATH] = "path",
        [ARG_KEYS] = "keys",
        [ARG_SCROLL_X] = "scroll_x",
        [ARG_SCROLL_Y] = "scroll_y",
        [ARG_REPEAT] = "repeat",
        [ARG_SINCE_REVISION] = "since_revision",
        [ARG_CHANGED_REGION] = "changed_region",
};

struct form {
        const char *name;
        enum mcp_act kind;
        unsigned required, allowed;
        unsigned button, clicks;
        const char *usage;              /* the valid form, for the error */
};

static const struct form anthropic_forms[] = {
        { "key", MCP_ACT_KEY, A(ARG_TEXT), 0, 0, 0, "{\"action\": \"key\", \"text\": \"ctrl+s\"}" },
        { "type", MCP_ACT_TYPE, A(ARG_TEXT), 0, 0, 0, "{\"action\": \"type\", \"text\": \"Hello\"}" },
        { "mouse_move", MCP_ACT_MOVE, A(ARG_COORDINATE), 0, 0, 0,
          "{\"action\": \"mouse_move\", \"coordinate\": [x, y]}" },
        { "left_click", MCP_ACT_CLICK, 0, A(ARG_COORDINATE) | A(ARG_TEXT), 1, 1,
          "{\"action\": \"left_click\", \"coordinate\": [x, y] (optional), \"text\": \"shift\" (optional held keys)}" },
        { "right_click", MCP_ACT_CLICK, 0, A(ARG_COORDINATE) | A(ARG_TEXT), 3, 1,
          "{\"action\": \"right_click\", \"coordinate\": [x, y] (optional), \"text\": \"shift\" (optional held keys)}" },
        { "middle_click", MCP_ACT_CLICK, 0, A(ARG_COORDINATE) | A(ARG_TEXT), 2, 1,
          "{\"action\": \"middle_click\", \"coordinate\": [x, y] (optional), \"text\": \"shift\" (optional held keys)}" },
        { "double_click", MCP_ACT_CLICK, 0, A(ARG_COORDINATE) | A(ARG_TEXT), 1, 2,
          "{\"action\": \"double_click\", \"coordinate\": [x, y] (optional), \"text\": \"shift\" (optional held keys)}" },
        { "triple_click", MCP_ACT_CLICK, 0, A(ARG_COORDINATE) | A(ARG_TEXT), 1, 3,
          "{\"action\": \"triple_click\", \"coordinate\": [x, y] (optional), \"text\": \"shift\" (optional held keys)}" },
        { "left_click_drag", MCP_ACT_DRAG, A(ARG_START_COORDINATE) | A(ARG_COORDINATE), 0, 1, 0,
          "{\"action\": \"left_click_drag\", \"start_coordinate\": [x, y], \"coordinate\": [x, y]}" },
        { "left_mouse_down", MCP_ACT_DOWN, 0, A(ARG_COORDINATE), 1, 0,
          "{\"action\": \"left_mouse_down\", \"coordinate\": [x, y] (optional)}" },
        { "left_mouse_up", MCP_ACT_UP, 0, A(ARG_COORDINATE), 1, 0,
          "{\"action\": \"left_mouse_up\", \"coordinate\": [x, y] (optional)}" },
        { "scroll", MCP_ACT_SCROLL, A(ARG_SCROLL_DIRECTION) | A(ARG_SCROLL_AMOUNT), A(ARG_COORDINATE) | A(ARG_TEXT), 0, 0,
          "{\"action\": \"scroll\", \"scroll_direction\": \"up|down|left|right\", \"scroll_amount\": 1-1000, "
          "\"coordinate\": [x, y] (optional), \"text\": \"ctrl\" (optional held keys)}" },
        { "hold_key", MCP_ACT_HOLD_KEY, A(ARG_TEXT) | A(ARG_DURATION), 0, 0, 0,
          "{\"action\": \"hold_key\", \"text\": \"shift\", \"duration\": seconds (0-100)}" },
        { "wait", MCP_ACT_WAIT, A(ARG_DURATION), 0, 0, 0, "{\"action\": \"wait\", \"duration\": seconds (0-100)}" },
        { "cursor_position", MCP_ACT_CURSOR_POSITION, 0, 0, 0, 0, "{\"action\": \"cursor_position\"}" },
        { "screenshot", MCP_ACT_SCREENSHOT, 0, A(ARG_SINCE_REVISION), 0, 0,
          "{\"action\": \"screenshot\", \"since_revision\": \"RUN.HASH\" (optional: \"unchanged\" without a picture "
          "when the screen is as it was then)}" },
        { "zoom", MCP_ACT_ZOOM, A(ARG_REGION), 0, 0, 0, "{\"action\": \"zoom\", \"region\": [x0, y0, x1, y1]}" },
};

static const struct form openai_forms[] = {
        { "click", MCP_ACT_CLICK, A(ARG_X) | A(ARG_Y), A(ARG_BUTTON) | A(ARG_KEYS), 1, 1,
          "{\"type\": \"click\", \"x\": x, \"y\": y, \"button\": \"left|right|wheel|back|forward\" (optional), "
          "\"keys\": [\"SHIFT\"] (optional, held)}" },
        { "double_click", MCP_ACT_CLICK, A(ARG_X) | A(ARG_Y), A(ARG_KEYS), 1, 2,
          "{\"type\": \"double_click\", \"x\": x, \"y\": y, \"keys\": [\"SHIFT\"] (optional, held)}" },
        { "drag", MCP_ACT_DRAG, A(ARG_PATH), A(ARG_KEYS), 1, 0,
          "{\"type\": \"drag\", \"path\": [{\"x\": x, \"y\": y}, ...] (2-64 points), \"keys\": [\"SHIFT\"] (optional, held)}" },
        { "keypress", MCP_ACT_KEY, A(ARG_KEYS), 0, 0, 0, "{\"type\": \"keypress\", \"keys\": [\"CTRL\", \"C\"]}" },
        { "move", MCP_ACT_MOVE, A(ARG_X) | A(ARG_Y), A(ARG_KEYS), 0, 0,
          "{\"type\": \"move\", \"x\": x, \"y\": y, \"keys\": [\"SHIFT\"] (optional, held)}" },
        { "scroll", MCP_ACT_SCROLL, A(ARG_X) | A(ARG_Y) | A(ARG_SCROLL_X) | A(ARG_SCROLL_Y), A(ARG_KEYS), 0, 0,
          "{\"type\": \"scroll\", \"x\": x, \"y\": y, \"scroll_x\": pixels, \"scroll_y\": pixels, "
          "\"keys\": [\"CTRL\"] (optional, held)}" },
        { "type", MCP_ACT_TYPE, A(ARG_TEXT), 0, 0, 0, "{\"type\": \"type\", \"text\": \"Hello\"}" },
        { "wait", MCP_ACT_WAIT, 0, 0, 0, 0, "{\"type\": \"wait\"}" },
        { "screenshot", MCP_ACT_SCREENSHOT, 0, A(ARG_SINCE_REVISION), 0, 0,
          "{\"type\": \"screenshot\", \"since_revision\": \"RUN.HASH\" (optional: \"unchanged\" without a picture "
          "when the screen is as it was then)}" },
};

/*
 * Botdesk's own, on every action that hands back a screenshot (all but
 * zoom and cursor_position): since_revision and changed_region judge that
 * picture (the schemas' tables above name them on screenshot alone, where
 * a model looks for them).
 */
static unsigned form_allowed(const struct form *f) {
        bool picture = f->kind != MCP_ACT_ZOOM && f->kind != MCP_ACT_CURSOR_POSITION;

        return f->allowed | (picture ? A(ARG_SINCE_REVISION) | A(ARG_CHANGED_REGION) : 0);
}

_printf_(2, 3) static int fail(char **ret_error, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        *ret_error = strdup_vprintf(fmt, ap);
        va_end(ap);
        return *ret_error ? -EINVAL : -ENOMEM;
}

static int arg_find(const char *key) {
        for (int i = 0; i < _ARG_MAX; i++)
                if (streq(arg_names[i], key))
                        return i;
        return -1;
}

static const struct json_value *arg(const struct json_value *args, int id) {
        const struct json_value *v = json_get(args, arg_names[id]);

        /* A null argument is an absent one: clients fill unused fields with null. */
        return v && v->type != JSON_NULL ? v : NULL;
}

/* A point of the picture, as a screen pixel. */
static int point(const struct mcp_space *s, long long x, long long y, unsigned *rx, unsigned *ry, const struct form *f,
                 char **ret_error) {
        if (mcp_space_to_screen(s, x, y, rx, ry) < 0)
                return fail(ret_error, "%s: the point %lld,%lld is outside the screenshot (%ux%u: x 0-%u, y 0-%u). Use: %s",
                            f->name, x, y, s->image_w, s->image_h, s->image_w - 1, s->image_h - 1, f->usage);
        return 0;
}

static int coordinate(const struct json_value *v, const struct mcp_space *s, unsigned *rx, unsigned *ry,
                      const struct form *f, const char *what, char **ret_error) {
        long long x, y;

        if (!v || v->type != JSON_ARRAY || v->n != 2 || json_get_int(&v->items[0], -1000000000, 1000000000, &x) < 0 ||
            json_get_int(&v->items[1], -1000000000, 1000000000, &y) < 0)
                return fail(ret_error, "%s: %s must be [x, y], two whole numbers. Use: %s", f->name, what, f->usage);
        return point(s, x, y, rx, ry, f, ret_error);
}

static int duration(const struct json_value *v, const struct form *f, unsigned *ret, char **ret_error) {
        if (v->type != JSON_NUMBER || v->number < 0 || v->number > MCP_DURATION_MAX_MS / 1000.0)
                return fail(ret_error, "%s: duration must be a number of seconds from 0 to %u. Use: %s", f->name,
                            MCP_DURATION_MAX_MS / 1000, f->usage);
        *ret = (unsigned) (v->number * 1000.0 + 0.5);
        return 0;
}

static int text(const struct json_value *v, const struct form *f, const char **ret, char **ret_error) {
        if (v->type != JSON_STRING || !*v->string)
                return fail(ret_error, "%s: text must be a non-empty string. Use: %s", f->name, f->usage);
        *ret = v->string;
        return 0;
}

static int parse_anthropic(const struct json_value *args, const struct form *f, const struct mcp_space *s,
                           struct mcp_action *a, char **ret_error) {
        const struct json_value *v;
        long long n;
        int r;

        if ((v = arg(args, ARG_COORDINATE))) {
                r = coordinate(v, s, &a->x, &a->y, f, "coordinate", ret_error);
                if (r < 0)
                        return r;
                a->have_point = true;
        }
        if ((v = arg(args, ARG_TEXT))) {
                r = text(v, f, &a->text, ret_error);
                if (r < 0)
                        return r;
        }
        if ((v = arg(args, ARG_DURATION))) {
                r = duration(v, f, &a->duration_ms, ret_error);
                if (r < 0)
                        return r;
        }
        if ((v = arg(args, ARG_REPEAT)) && json_get_int(v, 1, MCP_REPEAT_MAX, &n) < 0)
                return fail(ret_error, "%s: repeat must be a whole number from 1 to %d. Use: %s", f->name, MCP_REPEAT_MAX,
                            f->usage);
        if (v)
                a->repeat = (unsigned) n;
        switch (a->kind) {
        case MCP_ACT_DRAG:
                r = coordinate(arg(args, ARG_START_COORDINATE), s, &a->path[0][0], &a->path[0][1], f, "start_coordinate",
                               ret_error);
                if (r < 0)
                        return r;
                a->path[1][0] = a->x;
                a->path[1][1] = a->y;
                a->n_path = 2;
                a->have_point = false;
                break;
        case MCP_ACT_SCROLL: {
                const char *dir;

                v = arg(args, ARG_SCROLL_DIRECTION);
                dir = v && v->type == JSON_STRING ? v->string : "";
                if (json_get_int(arg(args, ARG_SCROLL_AMOUNT), 1, MCP_SCROLL_MAX, &n) < 0)
                        return fail(ret_error, "scroll: scroll_amount must be a whole number from 1 to %d. Use: %s",
                                    MCP_SCROLL_MAX, f->usage);
                if (streq(dir, "up"))
                        a->dy = -n;
                else if (streq(dir, "down"))
                        a->dy = n;
                else if (streq(dir, "left"))
                        a->dx = -n;
                else if (streq(dir, "right"))
                        a->dx = n;
                else
                        return fail(ret_error, "scroll: scroll_direction must be up, down, left or right. Use: %s", f->usage);
                break;
        }
        case MCP_ACT_ZOOM: {
                long long c[4];

                v = arg(args, ARG_REGION);
                if (!v || v->type != JSON_ARRAY || v->n != 4)
                        return fail(ret_error, "zoom: region must be [x0, y0, x1, y1]. Use: %s", f->usage);
                for (size_t i = 0; i < 4; i++)
                        if (json_get_int(&v->items[i], -1000000000, 1000000000, &c[i]) < 0)
                                return fail(ret_error, "zoom: region must be four whole numbers. Use: %s", f->usage);
                if (c[2] <= c[0] || c[3] <= c[1])
                        return fail(ret_error, "zoom: region needs x1 > x0 and y1 > y0. Use: %s", f->usage);
                /* The far corner is the last pixel inside the region. */
                r = point(s, c[0], c[1], &a->region[0], &a->region[1], f, ret_error);
                if (r >= 0)
                        r = point(s, c[2] - 1, c[3] - 1, &a->region[2], &a->region[3], f, ret_error);
                if (r < 0)
                        return r;
                break;
        }
        default:
                break;
        }
        return 0;
}

static int openai_button(const struct json_value *v, unsigned *ret, const struct form *f, char **ret_error) {
        static const struct {
                const char *name;
                unsigned button;
        } buttons[] = { { "left", 1 }, { "wheel", 2 }, { "middle", 2 }, { "right", 3 }, { "back", 8 }, { "forward", 9 } };

        if (v->type == JSON_STRING)
                for (size_t i = 0; i < ELEMENTSOF(buttons); i++)
                        if (streq(v->string, buttons[i].name)) {
                                *ret = buttons[i].button;
                                return 0;
                        }
        return fail(ret_error, "click: button must be left, right, wheel, back or forward. Use: %s", f->usage);
}

/* Pixels of OpenAI's scroll as wheel steps: any movement at least one step. */
static long long scroll_steps(long long pixels) {
        long long steps = (pixels < 0 ? -pixels : pixels) + MCP_SCROLL_PIXELS_PER_STEP / 2;

        steps /= MCP_SCROLL_PIXELS_PER_STEP;
        if (steps == 0 && pixels != 0)
                steps = 1;
        if (steps > MCP_SCROLL_MAX)
                steps = MCP_SCROLL_MAX;
        return pixels < 0 ? -steps : steps;
}

static int parse_openai(const struct json_value *args, const struct form *f, const struct mcp_space *s,
                        struct mcp_action *a, char **ret_error) {
        const struct json_value *v;
        long long x, y;
        int r;

        if (f->required & A(ARG_X)) {
                if (json_get_int(arg(args, ARG_X), -1000000000, 1000000000, &x) < 0 ||
                    json_get_int(arg(args, ARG_Y), -1000000000, 1000000000, &y) < 0)
                        return fail(ret_error, "%s: x and y must be whole numbers. Use: %s", f->name, f->usage);
                r = point(s, x, y, &a->x, &a->y, f, ret_error);
                if (r < 0)
                        return r;
                a->have_point = true;
        }
        if ((v = arg(args, ARG_BUTTON))) {
                r = openai_button(v, &a->button, f, ret_error);
                if (r < 0)
                        return r;
        }
        if ((v = arg(args, ARG_TEXT))) {
                r = text(v, f, &a->text, ret_error);
                if (r < 0)
                        return r;
        }
        /* keypress's keys are pressed together; any other action's are held while it runs. */
        if ((v = arg(args, ARG_KEYS))) {
                if (v->type != JSON_ARRAY || v->n > MCP_KEYS_MAX)
                        return fail(ret_error, "%s: keys must hold at most %d key names. Use: %s", f->name, MCP_KEYS_MAX,
                                    f->usage);
                for (size_t i = 0; i < v->n; i++) {
                        if (v->items[i].type != JSON_STRING || !*v->items[i].string)
                                return fail(ret_error, "%s: each key must be a non-empty string. Use: %s", f->name,
                                            f->usage);
                        a->keys[i] = v->items[i].string;
                }
                a->n_keys = v->n;
        }
        switch (a->kind) {
        case MCP_ACT_DRAG:
                v = arg(args, ARG_PATH);
                if (!v || v->type != JSON_ARRAY || v->n < 2 || v->n > MCP_PATH_MAX)
                        return fail(ret_error, "drag: path must hold 2 to %d points. Use: %s", MCP_PATH_MAX, f->usage);
                for (size_t i = 0; i < v->n; i++) {
                        const struct json_value *p = &v->items[i];

                        if (p->type != JSON_OBJECT || p->n != 2 || json_get_int(json_get(p, "x"), -1000000000, 1000000000, &x) < 0 ||
                            json_get_int(json_get(p, "y"), -1000000000, 1000000000, &y) < 0)
                                return fail(ret_error, "drag: each point of path must be {\"x\": x, \"y\": y}. Use: %s",
                                            f->usage);
                        r = point(s, x, y, &a->path[i][0], &a->path[i][1], f, ret_error);
                        if (r < 0)
                                return r;
                }
                a->n_path = v->n;
                break;
        case MCP_ACT_KEY:
                v = arg(args, ARG_KEYS);
                if (!v || v->type != JSON_ARRAY || v->n < 1)
                        return fail(ret_error, "keypress: keys must hold 1 to %d key names. Use: %s", MCP_KEYS_MAX, f->usage);
                break;
        case MCP_ACT_SCROLL:
                if (json_get_int(arg(args, ARG_SCROLL_X), -1000000, 1000000, &x) < 0 ||
                    json_get_int(arg(args, ARG_SCROLL_Y), -1000000, 1000000, &y) < 0)
                        return fail(ret_error, "scroll: scroll_x and scroll_y must be whole numbers of pixels. Use: %s",
                                    f->usage);
                a->dx = scroll_steps(x);
                a->dy = scroll_steps(y);
                break;
        case MCP_ACT_WAIT:
                /* OpenAI's wait names no time: a second, as its reference loop waits. */
                a->duration_ms = 1000;
                break;
        default:
                break;
        }
        return 0;
}

static const char *forms_list(const struct form *forms, size_t n, char *buf, size_t size) {
        size_t o = 0;

        buf[0] = 0;
        for (size_t i = 0; i < n && o < size; i++) {
                int w = snprintf(buf + o, size - o, "%s%s", i ? ", " : "", forms[i].name);
                if (w < 0)
                        break;
                o += (size_t) w;
        }
        return buf;
}

/* args' members checked against f (skip: the member that names the action, or NULL), then parsed. */
static int parse_form(const struct json_value *args, const struct form *f, bool openai, const char *skip,
                      const struct mcp_space *s, struct mcp_action *ret, char **ret_error) {
        struct screen_since since = {};
        const struct json_value *v;

        /* Every member is one the action takes, and every one it needs is there. */
        for (size_t i = 0; i < args->n; i++) {
                const char *key = args->items[i].key;
                int id;

                /* epoch: the gate's pin of the call (tools.h), not the action's. */
                if ((skip && streq(key, skip)) || streq(key, "epoch") || args->items[i].type == JSON_NULL)
                        continue;
                id = arg_find(key);
                if (id < 0 || !((f->required | form_allowed(f)) & A(id)))
                        return fail(ret_error, "%s does not take \"%s\". Use: %s", f->name, key, f->usage);
        }
        for (int id = 0; id < _ARG_MAX; id++)
                if ((f->required & A(id)) && !arg(args, id))
                        return fail(ret_error, "%s needs \"%s\". Use: %s", f->name, arg_names[id], f->usage);

        /* Botdesk's own, on either schema's screenshot: judged before anything else of the action. */
        v = arg(args, ARG_SINCE_REVISION);
        if (v) {
                if (v->type != JSON_STRING || screen_revision_parse(v->string, since.run_id, &since.hash) < 0)
                        return fail(ret_error, "%s: since_revision must be %s. Use: %s", f->name, SCREEN_REVISION_FORM,
                                    f->usage);
                since.given = true;
        }
        v = arg(args, ARG_CHANGED_REGION);
        if (v && v->type != JSON_TRUE && v->type != JSON_FALSE)
                return fail(ret_error, "%s: changed_region must be true or false. Use: %s", f->name, f->usage);
        if (v && v->type == JSON_TRUE && !since.given)
                return fail(ret_error, "%s: changed_region needs since_revision, the revision of the picture the "
                            "change is counted from. Use: %s", f->name, f->usage);
        *ret = (struct mcp_action) {
                .since = since,
                .changed_region = v && v->type == JSON_TRUE,
                .kind = f->kind,
                .schema = openai ? MCP_SCHEMA_OPENAI : MCP_SCHEMA_ANTHROPIC,
                .name = f->name,
                .button = f->button,
                .clicks = f->clicks,
                .repeat = 1,
        };
        return openai ? parse_openai(args, f, s, ret, ret_error) : parse_anthropic(args, f, s, ret, ret_error);
}

int mcp_action_parse(const struct json_value *args, const struct mcp_space *s, struct mcp_action *ret, char **ret_error) {
        const struct json_value *action, *type, *name;
        const struct form *forms, *f = NULL;
        size_t n_forms;
        bool openai;
        char list[512];


        *ret_error = NULL;
        if (!args || args->type != JSON_OBJECT)
                return fail(ret_error, "An action must be an object: {\"action\": ...} (Anthropic's computer tool) or "
                            "{\"type\": ...} (OpenAI's computer actions).");
        action = json_get(args, "action");
        type = json_get(args, "type");
        if (!!action == !!type)
                return fail(ret_error, "An action names itself with either \"action\" (Anthropic's computer tool) or "
                            "\"type\" (OpenAI's computer actions), and only one of them.");
        openai = !!type;
        name = openai ? type : action;
        forms = openai ? openai_forms : anthropic_forms;
        n_forms = openai ? ELEMENTSOF(openai_forms) : ELEMENTSOF(anthropic_forms);
        for (size_t i = 0; name->type == JSON_STRING && i < n_forms; i++)
                if (streq(forms[i].name, name->string))
                        f = &forms[i];
        if (!f)
                return fail(ret_error, "Unknown %s \"%s\"; the actions are: %s.", openai ? "type" : "action",
                            name->type == JSON_STRING ? name->string : "(not a string)",
                            forms_list(forms, n_forms, list, sizeof list));

        return parse_form(args, f, openai, openai ? "type" : "action", s, ret, ret_error);
}

/*
 * The toolset's changes to a 2025 action's arguments (action.h), and the
 * usage its errors name: the member with its input.
 */
static const struct {
        const char *name;
        unsigned allowed, removed;
} member_changes[] = {
        { "key", A(ARG_REPEAT), 0 },
        { "left_click_drag", A(ARG_TEXT), 0 },
        { "left_mouse_down", 0, A(ARG_COORDINATE) },
        { "left_mouse_up", 0, A(ARG_COORDINATE) },
};

/* What each member does, for a tool's description (tools.c): botdesk's words, the SDK's facts. */
static const struct {
        const char *name, *summary;
} member_summaries[] = {
        { "key", "Press a key or a combination (xdotool's names: ctrl+s, Return, alt+Tab), \"repeat\" times." },
        { "hold_key", "Hold a key or combination down for \"duration\" seconds." },
        { "type", "Type text, as a keyboard would." },
        { "cursor_position", "Where the mouse pointer is, in screenshot pixels." },
        { "mouse_move", "Move the mouse pointer to coordinate." },
        { "left_mouse_down", "Press the left mouse button where the pointer is, and keep it down." },
        { "left_mouse_up", "Let go of the left mouse button where the pointer is." },
        { "left_click", "Click the left button at coordinate, or where the pointer is; \"text\" holds keys (shift)." },
        { "left_click_drag", "Press the left button at start_coordinate, move to coordinate, let go." },
        { "right_click", "Click the right button at coordinate, or where the pointer is." },
        { "middle_click", "Click the middle button at coordinate, or where the pointer is." },
        { "double_click", "Double-click the left button at coordinate, or where the pointer is." },
        { "triple_click", "Triple-click the left button at coordinate (a line of text), or where the pointer is." },
        { "scroll", "Turn the wheel scroll_amount steps toward scroll_direction, at coordinate or the pointer." },
        { "wait", "Do nothing for \"duration\" seconds, then look again." },
        { "screenshot", "A picture of the whole screen." },
        { "zoom", "A picture of region [x0, y0, x1, y1] of the screen, at full detail." },
};

/* Each argument's JSON Schema, for a member's input schema. */
static const char *const arg_schemas[_ARG_MAX] = {
        [ARG_COORDINATE] = "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 2, \"maxItems\": 2}",
        [ARG_START_COORDINATE] =
                "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 2, \"maxItems\": 2}",
        [ARG_TEXT] = "{\"type\": \"string\"}",
        [ARG_SCROLL_DIRECTION] = "{\"type\": \"string\", \"enum\": [\"up\", \"down\", \"left\", \"right\"]}",
        [ARG_SCROLL_AMOUNT] = "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 1000}",
        [ARG_DURATION] = "{\"type\": \"number\", \"minimum\": 0, \"maximum\": 100}",
        [ARG_REGION] = "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 4, \"maxItems\": 4}",
        [ARG_REPEAT] = "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100}",
        [ARG_SINCE_REVISION] = MCP_SINCE_REVISION_SCHEMA,
        [ARG_CHANGED_REGION] = "{\"type\": \"boolean\"}",
};

/* Member i's form, with the toolset's changes to its 2025 action's. */
static struct form member_form(size_t i) {
        struct form f = anthropic_forms[i];

        for (size_t k = 0; k < ELEMENTSOF(member_changes); k++)
                if (streq(member_changes[k].name, f.name)) {
                        f.allowed = (f.allowed | member_changes[k].allowed) & ~member_changes[k].removed;
                        f.required &= ~member_changes[k].removed;
                }
        f.allowed = form_allowed(&f);
        return f;
}

size_t mcp_members_count(void) {
        return ELEMENTSOF(anthropic_forms);
}

int mcp_members_mask(const char *words, uint32_t *ret_mask, char **ret_bad) {
        uint32_t mask = 0;

        *ret_bad = NULL;
        for (const char *p = words ?: ""; *p;) {
                size_t n = strcspn(p, " \t"), i;

                if (n == 0) {
                        p++;
                        continue;
                }
                for (i = 0; i < ELEMENTSOF(anthropic_forms); i++)
                        if (strlen(anthropic_forms[i].name) == n && strncmp(anthropic_forms[i].name, p, n) == 0)
                                break;
                if (i == ELEMENTSOF(anthropic_forms)) {
                        *ret_bad = strndup(p, n);
                        return *ret_bad ? -EINVAL : -ENOMEM;
                }
                mask |= UINT32_C(1) << i;
                p += n;
        }
        *ret_mask = mask;
        return 0;
}

const char *mcp_member_name(size_t i) {
        return i < ELEMENTSOF(anthropic_forms) ? anthropic_forms[i].name : NULL;
}

const char *mcp_member_summary(size_t i) {
        for (size_t k = 0; i < ELEMENTSOF(anthropic_forms) && k < ELEMENTSOF(member_summaries); k++)
                if (streq(member_summaries[k].name, anthropic_forms[i].name))
                        return member_summaries[k].summary;
        return NULL;
}

void mcp_member_schema_write(struct json *j, size_t i, const char *epoch_schema) {
        struct form f = member_form(i);

        json_object_begin(j);
        json_kv_string(j, "type", "object");
        json_key(j, "properties");
        json_object_begin(j);
        for (int id = 0; id < _ARG_MAX; id++)
                if ((f.required | f.allowed) & A(id)) {
                        json_key(j, arg_names[id]);
                        json_raw(j, arg_schemas[id]);
                }
        if (epoch_schema) {
                json_key(j, "epoch");
                json_raw(j, epoch_schema);
        }
        json_object_end(j);
        json_key(j, "required");
        json_array_begin(j);
        for (int id = 0; id < _ARG_MAX; id++)
                if (f.required & A(id))
                        json_string(j, arg_names[id]);
        json_array_end(j);
        json_object_end(j);
}

/* {"action": "NAME", REST as NAME with input {REST; {"action": "NAME"} as NAME with input {}. */
static void member_usage(const struct form *f, char *buf, size_t size) {
        const char *rest = strchr(f->usage, ',');

        if (!rest)
                snprintf(buf, size, "%s with input {}", f->name);
        else
                snprintf(buf, size, "%s with input {%s", f->name, rest + 2);
}

int mcp_action_parse_member(const char *member, const struct json_value *input, const struct mcp_space *s,
                            struct mcp_action *ret, char **ret_error) {
        struct form mf;
        char usage[512], list[512];
        size_t i;

        *ret_error = NULL;
        for (i = 0; i < ELEMENTSOF(anthropic_forms); i++)
                if (streq_ptr(anthropic_forms[i].name, member))
                        break;
        if (i == ELEMENTSOF(anthropic_forms))
                return fail(ret_error, "Unknown member \"%s\" of the computer toolset; its members are: %s.", strnull(member),
                            forms_list(anthropic_forms, ELEMENTSOF(anthropic_forms), list, sizeof list));
        mf = member_form(i);
        member_usage(&mf, usage, sizeof usage);
        mf.usage = usage;
        if (!input || input->type != JSON_OBJECT)
                return fail(ret_error, "%s: the input must be an object. Use: %s", member, mf.usage);
        return parse_form(input, &mf, false, NULL, s, ret, ret_error);
}

