/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's actions in a build without xcb-xtest and xkbcommon. */
#include "cli.h"
#include "verbs.h"
#include "log.h"

/* main.c's parser has answered --help. */
static int unsupported_args(const struct cli_args *a) {
        log_error("This botdesk was built without agent input: botdesk %s needs meson -Dinput "
                  "(xcb-xtest and xkbcommon, and thumbnail support).", a->verb);
        return EXIT_FAILED;
}

int verb_input(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_windows(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_cursor(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_mcp(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_settle(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_wait(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_act(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_clipboard(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_journal(const struct cli_args *a) {
        return unsupported_args(a);
}

int verb_a11y(const struct cli_args *a) {
        return unsupported_args(a);
}
