/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A build without thumbnails: no verb speaks X, none is loaded (x11-verbs.h). */
#include <errno.h>

#include "x11-verbs.h"

int x11_verb_run(const char *verb, int argc, char **argv) {
        return -ENOENT;
}
