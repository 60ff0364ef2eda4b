/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CLI's side of the module's rows: a row found by name, and what a build that lacks a verb's feature
 * says for it, one message per feature (main.c's parser has answered --help). */
#include "cli.h"
#include "log.h"
#include "util.h"
#include "verb-table.h"
#include "x11-verbs.h"

const struct x11_verb_row *x11_verb_row_find(const struct x11_verb_row *rows, const char *name) {
        for (; rows && rows->name; rows++)
                if (streq(rows->name, name))
                        return rows;
        return NULL;
}

int x11_verb_missing(const struct verb *v) {
        switch (v->module) {
        case VERB_MODULE_THUMBNAIL:
                log_error("This botdesk was built without thumbnails (meson -Dthumbnail needs libpng, libjpeg and "
                          "xcb-shm).");
                break;
        case VERB_MODULE_INPUT:
                log_error("This botdesk was built without agent input: botdesk %s needs meson -Dinput "
                          "(xcb-xtest and xkbcommon, and thumbnail support).", v->name);
                break;
        default:
                log_error("botdesk %s is not built into this botdesk.", v->name);
                break;
        }
        return EXIT_FAILED;
}
