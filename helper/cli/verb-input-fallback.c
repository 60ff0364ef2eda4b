/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's actions in a build without xcb-xtest and xkbcommon. */
#include "cli.h"
#include "verbs.h"
#include "log.h"

static int unsupported(const char *verb) {
        log_error("This botdesk was built without agent input: botdesk %s needs meson -Dinput "
                  "(xcb-xtest and xkbcommon, and thumbnail support).", verb);
        return EXIT_FAILED;
}

int verb_input(int argc, char **argv) {
        return unsupported("input");
}

int verb_windows(int argc, char **argv) {
        return unsupported("windows");
}

int verb_cursor(int argc, char **argv) {
        return unsupported("cursor");
}
