/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's actions in a build without xcb-xtest and xkbcommon. */
#include "cli.h"
#include "verbs.h"
#include "log.h"

/* argv[0] is the verb; its --help still prints its lines of the usage. */
static int unsupported(int argc, char **argv) {
        if (cli_words_ask_help(argc, argv))
                return cli_verb_usage(argv[0]);
        log_error("This botdesk was built without agent input: botdesk %s needs meson -Dinput "
                  "(xcb-xtest and xkbcommon, and thumbnail support).", argv[0]);
        return EXIT_FAILED;
}

int verb_input(int argc, char **argv) {
        return unsupported(argc, argv);
}

/* main.c's parser has answered --help. */
static int unsupported_args(const struct cli_args *a) {
        log_error("This botdesk was built without agent input: botdesk %s needs meson -Dinput "
                  "(xcb-xtest and xkbcommon, and thumbnail support).", a->verb);
        return EXIT_FAILED;
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
