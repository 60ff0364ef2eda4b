/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A build without thumbnails: no frames are taken, so nothing listens for their requests. */
#include "journal-frames.h"
#include "log.h"
#include "util.h"

int journal_frames_start(struct journal_frames *f, sd_event *e, int runtime_fd, const char *runtime_dir, unsigned display,
                         const uint8_t cookie[XAUTH_COOKIE_SIZE]) {
        *f = (struct journal_frames) {};
        log_debug("This build takes no journal frames (no thumbnails).");
        return 0;
}

void journal_frames_done(struct journal_frames *f) {
}
