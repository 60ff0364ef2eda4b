/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A build without thumbnails has no botdesk-x11.so: each verb that speaks X
 * says what the build lacks (x11-verbs.h).
 */
#include "verb-table.h"
#include "x11-verbs.h"

int x11_verb_run_args(const struct verb *v, const struct cli_args *a) {
        return x11_verb_missing(v);
}

/* No verb of the module ran: what was said is the CLI's own. */
const char *x11_verb_first_error(void) {
        return NULL;
}

bool x11_verb_json_stdout_used(void) {
        return false;
}
