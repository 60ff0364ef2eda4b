/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verbs of botdesk-x11.so in a build without xcb-xtest and xkbcommon: thumbnail alone (the input
 * verbs' rows say what the build lacks: x11-verbs-missing.c). */
#include "verbs.h"
#include "x11-verbs.h"

const struct x11_verb_row x11_module_rows[] = {
        { "thumbnail", verb_thumbnail },
        { NULL, NULL },
};
