/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Gemini's computer-use functions as actions (gemini.h): the grid, the compound calls, the refusals. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gemini.h"
#include "tap.h"

static struct mcp_space space;

/* name with args (JSON text, or NULL for none) into *c; the error into *err. */
static int call(const char *name, const char *args, struct mcp_gemini_call *c, char **err, struct json_value **v) {
        *err = NULL;
        *v = NULL;
        if (args && json_parse(args, strlen(args), v) < 0)
                return -999;
        return mcp_gemini_parse(name, *v, &space, c, err);
}

static void refused(const char *name, const char *args, const char *want, const char *what) {
        struct mcp_gemini_call c;
        struct json_value *v;
        char *err;
        int r = call(name, args, &c, &err, &v);

        if (!tap_ok(r == -EINVAL && err && strstr(err, want), "%s", what))
                printf("#   r=%d error: %s\n", r, err ? err : "(none)");
        free(err);
        json_value_free(v);
}

int main(void) {
        struct mcp_gemini_call c;
        struct json_value *v;
        char *err;

        /* The picture is scaled (0.5): Gemini's grid is the screen's, whatever the picture. */
        mcp_space_fit(1600, 1200, 800, 100000000u, &space);

        tap_ok(call("click_at", "{\"x\": 500, \"y\": 500}", &c, &err, &v) == 0 && c.n_steps == 1 &&
               c.steps[0].kind == MCP_ACT_CLICK && c.steps[0].x == 800 && c.steps[0].y == 600 && c.steps[0].button == 1,
               "click_at 500,500 is the screen's 800,600 (x * width / 1000)");
        v = json_value_free(v);
        tap_ok(call("click_at", "{\"x\": 999, \"y\": 0}", &c, &err, &v) == 0 && c.steps[0].x == 1598 && c.steps[0].y == 0,
               "999 is the last column of the grid, inside the screen");
        v = json_value_free(v);
        tap_ok(call("hover_at", "{\"x\": 10, \"y\": 20, \"intent\": \"look\"}", &c, &err, &v) == 0 &&
               c.steps[0].kind == MCP_ACT_MOVE && c.steps[0].x == 16 && c.steps[0].y == 24,
               "hover_at moves the pointer; the model's intent is not an argument of the action");
        v = json_value_free(v);
        tap_ok(call("type_text_at", "{\"x\": 100, \"y\": 100, \"text\": \"hi\"}", &c, &err, &v) == 0 && c.n_steps == 3 &&
               c.steps[0].kind == MCP_ACT_CLICK && c.steps[1].kind == MCP_ACT_KEY &&
               strcmp(c.steps[1].text, "ctrl+a BackSpace") == 0 && c.steps[2].kind == MCP_ACT_TYPE &&
               strcmp(c.steps[2].text, "hi") == 0,
               "type_text_at clicks, clears (the default) and types, and presses no Enter by default");
        v = json_value_free(v);
        tap_ok(call("type_text_at",
                    "{\"x\": 1, \"y\": 1, \"text\": \"go\", \"press_enter\": true, \"clear_before_typing\": false}", &c,
                    &err, &v) == 0 && c.n_steps == 3 && c.steps[1].kind == MCP_ACT_TYPE &&
                       strcmp(c.steps[2].text, "Return") == 0,
               "type_text_at with press_enter and without clearing: click, type, Return");
        v = json_value_free(v);
        tap_ok(call("key_combination", "{\"keys\": \"Control+Shift+T\"}", &c, &err, &v) == 0 &&
               strcmp(c.steps[0].text, "Control+Shift+t") == 0, "key_combination's keys: a letter names its key");
        v = json_value_free(v);
        tap_ok(call("key_combination", "{\"keys\": \"Command+ArrowLeft\"}", &c, &err, &v) == 0 &&
               strcmp(c.steps[0].text, "super+Left") == 0, "Command and ArrowLeft are named as the keymap names them");
        v = json_value_free(v);
        tap_ok(call("scroll_at", "{\"x\": 500, \"y\": 500, \"direction\": \"down\"}", &c, &err, &v) == 0 &&
               c.steps[0].kind == MCP_ACT_SCROLL && c.steps[0].dy == 10 && c.steps[0].dx == 0,
               "scroll_at's default magnitude 800 of a 1200-line screen is 960 pixels: 10 wheel steps");
        v = json_value_free(v);
        tap_ok(call("scroll_document", "{\"direction\": \"left\"}", &c, &err, &v) == 0 &&
               c.steps[0].dx == -MCP_GEMINI_DOCUMENT_STEPS && c.steps[0].x == 800,
               "scroll_document scrolls at the screen's centre");
        v = json_value_free(v);
        tap_ok(call("drag_and_drop", "{\"x\": 0, \"y\": 0, \"destination_x\": 500, \"destination_y\": 250}", &c, &err, &v) == 0 &&
               c.steps[0].kind == MCP_ACT_DRAG && c.steps[0].n_path == 2 && c.steps[0].path[1][0] == 800 &&
               c.steps[0].path[1][1] == 300, "drag_and_drop drags from one grid point to the other");
        v = json_value_free(v);
        tap_ok(call("wait_5_seconds", NULL, &c, &err, &v) == 0 && c.steps[0].kind == MCP_ACT_WAIT &&
               c.steps[0].duration_ms == 5000, "wait_5_seconds waits 5 s, with no args at all");
        v = json_value_free(v);
        tap_ok(call("click_at", "{\"x\": 1, \"y\": 1, \"safety_decision\": {\"decision\": \"require_confirmation\"}}", &c,
                    &err, &v) == 0 && c.safety_decision, "a safety_decision is noted, for the response to acknowledge");
        v = json_value_free(v);

        refused("click_at", "{\"x\": 1000, \"y\": 1}", "from 0 to 999", "x of 1000 is off the grid");
        refused("click_at", "{\"x\": -1, \"y\": 1}", "from 0 to 999", "a negative coordinate is off the grid");
        refused("click_at", "{\"x\": 1}", "click_at needs \"y\"", "a missing argument names the form");
        refused("click_at", "{\"x\": 1, \"y\": 1, \"button\": \"right\"}", "does not take \"button\"",
                "an argument the function does not take is refused");
        refused("type_text_at", "{\"x\": 1, \"y\": 1, \"text\": \"a\", \"press_enter\": \"yes\"}", "true or false",
                "a flag that is not a boolean is refused");
        refused("key_combination", "{\"keys\": \"\"}", "one combination", "empty keys are refused");
        refused("scroll_at", "{\"x\": 1, \"y\": 1, \"direction\": \"sideways\"}", "up, down, left or right",
                "an unknown direction is refused");
        refused("navigate", "{\"url\": \"https://example.invalid/\"}", "Control+L", "navigate names the desktop's way");
        refused("open_web_browser", NULL, "dock", "open_web_browser names the dock");
        refused("teleport", "{}", "Unknown function \"teleport\"; the desktop's computer-use functions are: click_at",
                "an unknown function is refused, naming the functions");
        refused("click_at", "[1, 2]", "args must be an object", "args that are not an object are refused");
        return tap_done();
}
