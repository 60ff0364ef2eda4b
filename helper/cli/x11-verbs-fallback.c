/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A build without thumbnails has no botdesk-x11.so: the verbs that speak X
 * are the fallbacks linked into the CLI, which say what the build lacks
 * (x11-verbs.h).
 */
#include <errno.h>

#include "verbs.h"
#include "util.h"
#include "x11-verbs.h"

int x11_verb_run_args(const struct cli_args *a) {
        x11_args_fn run = streq(a->verb, "thumbnail") ? verb_thumbnail : x11_input_args_verb(a->verb);

        if (!run)
                return -ENOENT;
        return run(a);
}

/* The verbs are linked in: what they say is the CLI's own. */
const char *x11_verb_first_error(void) {
        return NULL;
}

bool x11_verb_json_stdout_used(void) {
        return false;
}
