/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "action.h"
#include "tap.h"

static struct mcp_space space;

/* Parse text; the error (or NULL) into *err. */
static int parse(const char *text, struct mcp_action *a, char **err, struct json_value **v) {
        *err = NULL;
        if (json_parse(text, strlen(text), v) < 0)
                return -999;
        return mcp_action_parse(*v, &space, a, err);
}

/* A toolset member call: member with input text. */
static int member(const char *name, const char *input, struct mcp_action *a, char **err, struct json_value **v) {
        *err = NULL;
        if (json_parse(input, strlen(input), v) < 0)
                return -999;
        return mcp_action_parse_member(name, *v, &space, a, err);
}

/* The member call is refused with an error holding want. */
static void member_refused(const char *name, const char *input, const char *want, const char *what) {
        struct json_value *v = NULL;
        struct mcp_action a;
        char *err;
        int r = member(name, input, &a, &err, &v);

        if (!tap_ok(r == -EINVAL && err && strstr(err, want), "%s", what))
                printf("#   r=%d error: %s\n", r, err ? err : "(none)");
        free(err);
        json_value_free(v);
}

/* text is refused with an error holding want. */
static void refused(const char *text, const char *want, const char *what) {
        struct json_value *v = NULL;
        struct mcp_action a;
        char *err;
        int r = parse(text, &a, &err, &v);

        if (!tap_ok(r == -EINVAL && err && strstr(err, want), "%s", what))
                printf("#   r=%d error: %s\n", r, err ? err : "(none)");
        free(err);
        json_value_free(v);
}

int main(void) {
        struct json_value *v = NULL;
        struct mcp_action a;
        char *err;

        /* Scale 0.5: picture pixel x shows screen 2x..2x+1, and maps to 2x+1. */
        mcp_space_fit(1600, 1200, 800, 100000000u, &space);

        tap_ok(parse("{\"action\": \"left_click\", \"coordinate\": [100, 50]}", &a, &err, &v) == 0 && a.kind == MCP_ACT_CLICK &&
               a.button == 1 && a.clicks == 1 && a.have_point && a.x == 201 && a.y == 101,
               "left_click's coordinate is mapped to the screen (scale 0.5: 100,50 -> 201,101)");
        v = json_value_free(v);
        tap_ok(parse("{\"action\": \"triple_click\", \"coordinate\": [1, 1], \"text\": \"shift\"}", &a, &err, &v) == 0 &&
               a.clicks == 3 && a.text && strcmp(a.text, "shift") == 0,
               "triple_click clicks three times, with held keys in text");
        v = json_value_free(v);
        tap_ok(parse("{\"action\": \"right_click\"}", &a, &err, &v) == 0 && a.button == 3 && !a.have_point,
               "right_click without a coordinate clicks where the pointer is");
        v = json_value_free(v);
        tap_ok(parse("{\"action\": \"left_click_drag\", \"start_coordinate\": [0, 0], \"coordinate\": [10, 20]}", &a, &err, &v) == 0 &&
               a.kind == MCP_ACT_DRAG && a.n_path == 2 && a.path[0][0] == 1 && a.path[1][0] == 21 && a.path[1][1] == 41,
               "left_click_drag goes from start_coordinate to coordinate");
        v = json_value_free(v);
        tap_ok(parse("{\"action\": \"scroll\", \"scroll_direction\": \"up\", \"scroll_amount\": 3, \"coordinate\": [5, 5]}", &a, &err, &v) == 0 &&
               a.kind == MCP_ACT_SCROLL && a.dy == -3 && a.dx == 0,
               "scroll up 3 is three wheel steps up");
        v = json_value_free(v);
        tap_ok(parse("{\"action\": \"hold_key\", \"text\": \"shift\", \"duration\": 1.5}", &a, &err, &v) == 0 &&
               a.duration_ms == 1500, "hold_key's duration is in seconds");
        v = json_value_free(v);
        tap_ok(parse("{\"action\": \"zoom\", \"region\": [0, 0, 100, 50]}", &a, &err, &v) == 0 && a.region[0] == 1 &&
               a.region[2] == 199 && a.region[3] == 99,
               "zoom's region is mapped to screen pixels, its far corner the last pixel inside");
        v = json_value_free(v);
        tap_ok(parse("{\"action\": \"screenshot\", \"coordinate\": null}", &a, &err, &v) == 0 && a.kind == MCP_ACT_SCREENSHOT,
               "a null argument counts as absent");
        v = json_value_free(v);

        tap_ok(parse("{\"type\": \"click\", \"x\": 10, \"y\": 20, \"button\": \"right\"}", &a, &err, &v) == 0 &&
               a.schema == MCP_SCHEMA_OPENAI && a.button == 3 && a.x == 21 && a.y == 41,
               "OpenAI's click with button right, mapped like the other schema");
        v = json_value_free(v);
        tap_ok(parse("{\"type\": \"drag\", \"path\": [{\"x\": 0, \"y\": 0}, {\"x\": 5, \"y\": 5}, {\"x\": 9, \"y\": 0}]}", &a, &err, &v) == 0 &&
               a.n_path == 3 && a.path[2][0] == 19, "OpenAI's drag follows its path");
        v = json_value_free(v);
        tap_ok(parse("{\"type\": \"scroll\", \"x\": 1, \"y\": 1, \"scroll_x\": 0, \"scroll_y\": -250}", &a, &err, &v) == 0 &&
               a.dy == -3 && a.dx == 0, "OpenAI's scroll_y of -250 pixels is 3 wheel steps up");
        v = json_value_free(v);
        tap_ok(parse("{\"type\": \"keypress\", \"keys\": [\"CTRL\", \"C\"]}", &a, &err, &v) == 0 && a.n_keys == 2 &&
               strcmp(a.keys[1], "C") == 0, "OpenAI's keypress keeps its keys");
        v = json_value_free(v);
        tap_ok(parse("{\"type\": \"wait\"}", &a, &err, &v) == 0 && a.duration_ms == 1000, "OpenAI's wait is a second");
        v = json_value_free(v);

        refused("{\"action\": \"fly\"}", "Unknown action \"fly\"; the actions are: key, type, mouse_move,",
                "an unknown action lists the actions");
        refused("{\"type\": \"fly\"}", "Unknown type \"fly\"; the actions are: click, double_click, drag",
                "an unknown OpenAI type lists its actions");
        refused("{\"action\": \"click\", \"type\": \"click\"}", "either \"action\"", "both action and type is refused");
        refused("{\"coordinate\": [1, 2]}", "either \"action\"", "neither action nor type is refused");
        refused("[1, 2]", "must be an object", "an action that is not an object is refused");
        refused("{\"action\": \"mouse_move\"}", "mouse_move needs \"coordinate\". Use: {\"action\": \"mouse_move\"",
                "a missing argument names the valid form");
        refused("{\"action\": \"key\", \"text\": \"a\", \"coordinate\": [1, 1]}", "key does not take \"coordinate\"",
                "an extra argument is refused");
        refused("{\"action\": \"left_click\", \"coordinate\": [800, 0]}", "outside the screenshot (800x600: x 0-799",
                "a coordinate outside the screenshot names its bounds");
        refused("{\"action\": \"left_click\", \"coordinate\": [1.5, 2]}", "two whole numbers", "a fractional coordinate is refused");
        refused("{\"action\": \"wait\", \"duration\": 100.5}", "from 0 to 100", "a duration over 100 s is refused");
        refused("{\"action\": \"scroll\", \"scroll_direction\": \"sideways\", \"scroll_amount\": 1}", "up, down, left or right",
                "an unknown scroll direction is refused");
        refused("{\"action\": \"type\", \"text\": \"\"}", "non-empty string", "empty text is refused");
        refused("{\"action\": \"zoom\", \"region\": [10, 10, 5, 20]}", "x1 > x0", "an empty zoom region is refused");
        refused("{\"type\": \"click\", \"x\": 1, \"y\": 1, \"button\": \"fourth\"}", "left, right, wheel, back or forward",
                "an unknown OpenAI button is refused");
        refused("{\"type\": \"drag\", \"path\": [{\"x\": 1, \"y\": 1}]}", "2 to 64 points", "a drag of one point is refused");

        /* OpenAI's GA computer tool: keys held during a pointer action. */
        tap_ok(parse("{\"type\": \"click\", \"x\": 10, \"y\": 10, \"button\": \"left\", \"keys\": [\"SHIFT\", \"CTRL\"]}",
                     &a, &err, &v) == 0 && a.kind == MCP_ACT_CLICK && a.n_keys == 2 && strcmp(a.keys[1], "CTRL") == 0,
               "an OpenAI click keeps its held keys");
        v = json_value_free(v);
        tap_ok(parse("{\"type\": \"double_click\", \"x\": 10, \"y\": 10, \"keys\": null}", &a, &err, &v) == 0 &&
               a.clicks == 2 && a.n_keys == 0, "an OpenAI double_click with keys null holds none");
        v = json_value_free(v);
        refused("{\"type\": \"move\", \"x\": 1, \"y\": 1, \"keys\": [\"\"]}", "non-empty string",
                "an empty held key is refused");
        refused("{\"type\": \"keypress\", \"keys\": []}", "1 to 16", "a keypress of no key is refused");

        /* Anthropic's computer toolset: a member's name and its input. */
        tap_ok(member("left_click", "{\"coordinate\": [100, 50], \"text\": \"ctrl\"}", &a, &err, &v) == 0 &&
               a.kind == MCP_ACT_CLICK && a.x == 201 && a.y == 101 && strcmp(a.text, "ctrl") == 0 && a.repeat == 1,
               "a toolset left_click maps its coordinate and keeps its held key");
        v = json_value_free(v);
        tap_ok(member("key", "{\"text\": \"Down\", \"repeat\": 3}", &a, &err, &v) == 0 && a.kind == MCP_ACT_KEY &&
               a.repeat == 3, "a toolset key takes repeat");
        v = json_value_free(v);
        tap_ok(member("left_click_drag", "{\"start_coordinate\": [0, 0], \"coordinate\": [5, 5], \"text\": \"shift\"}",
                      &a, &err, &v) == 0 && a.kind == MCP_ACT_DRAG && a.n_path == 2 && strcmp(a.text, "shift") == 0,
               "a toolset left_click_drag takes a held key");
        v = json_value_free(v);
        tap_ok(member("screenshot", "{}", &a, &err, &v) == 0 && a.kind == MCP_ACT_SCREENSHOT, "a toolset screenshot");
        v = json_value_free(v);
        member_refused("left_mouse_down", "{\"coordinate\": [1, 1]}", "left_mouse_down does not take \"coordinate\"",
                       "the toolset's left_mouse_down takes no coordinate");
        member_refused("key", "{\"text\": \"a\", \"repeat\": 0}", "from 1 to 100", "a repeat of 0 is refused");
        member_refused("key", "{\"action\": \"key\", \"text\": \"a\"}", "key does not take \"action\". Use: key with input {",
                       "a member's input does not name an action, and the error names the member's input");
        member_refused("open_app", "{}", "Unknown member \"open_app\"", "an unknown member is refused, naming the members");
        member_refused("left_click", "[1]", "must be an object", "an input that is not an object is refused");
        member_refused("mouse_move", "{\"coordinate\": [900, 1]}", "outside the screenshot", "a member's point is checked");
        return tap_done();
}
