/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verbs of botdesk-x11.so (x11-verbs.h), by the names of their rows in verb-table.c. */
#include "verbs.h"
#include "x11-verbs.h"

const struct x11_verb_row x11_module_rows[] = {
        { "thumbnail", verb_thumbnail },
        { "input", verb_input },
        { "windows", verb_windows },
        { "cursor", verb_cursor },
        { "settle", verb_settle },
        { "wait", verb_wait },
        { "clipboard", verb_clipboard },
        { "act", verb_act },
        { "mcp", verb_mcp },
        { "a11y", verb_a11y },
        { "journal", verb_journal },
        { NULL, NULL },
};
