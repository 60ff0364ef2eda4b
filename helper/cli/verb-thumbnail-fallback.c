/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk thumbnail in a build without libpng, libjpeg and xcb-shm. */
#include "cli.h"
#include "verbs.h"
#include "log.h"

int verb_thumbnail(const struct cli_args *a) {
        log_error("This botdesk was built without thumbnails (meson -Dthumbnail needs libpng, libjpeg and xcb-shm).");
        return EXIT_FAILED;
}
