/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk restart PROFILE: a stop, then a start. */
#include "cli.h"
#include "verbs.h"

int verb_restart(const struct cli_args *a) {
        int r = verb_stop(a);

        if (r != EXIT_OK)
                return r;
        return verb_start(a);
}
