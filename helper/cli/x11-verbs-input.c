/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's input verbs by name (x11-verbs.h): verb-input.c and
 * verb-windows.c, or verb-input-fallback.c in a build without XTEST. */
#include "verbs.h"
#include "util.h"
#include "x11-verbs.h"

x11_args_fn x11_input_args_verb(const char *name) {
        if (streq(name, "input"))
                return verb_input;
        if (streq(name, "windows"))
                return verb_windows;
        if (streq(name, "cursor"))
                return verb_cursor;
        if (streq(name, "mcp"))
                return verb_mcp;
        if (streq(name, "act"))
                return verb_act;
        if (streq(name, "clipboard"))
                return verb_clipboard;
        if (streq(name, "settle"))
                return verb_settle;
        if (streq(name, "wait"))
                return verb_wait;
        if (streq(name, "a11y"))
                return verb_a11y;
        if (streq(name, "journal"))
                return verb_journal;
        return NULL;
}
