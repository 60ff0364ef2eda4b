/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-x11.so: the table of the verbs that speak X, its only export
 * (x11-verbs.map). See x11-verbs.h.
 */
#include "botdesk-config.h"
#include "commands-thumbnail.h"
#include "log.h"
#include "util.h"
#include "x11-verbs.h"

static x11_verb_fn lookup(const char *name) {
        if (streq(name, "thumbnail"))
                return verb_thumbnail;
        return x11_input_verb(name);
}

const struct x11_verbs botdesk_x11_verbs = {
        .abi = X11_VERBS_ABI,
        .version = BOTDESK_VERSION,
        .log_setup = log_setup,
        .lookup = lookup,
};
