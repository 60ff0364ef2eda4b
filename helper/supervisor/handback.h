/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "clipboard-owner.h"
#include "xauth.h"

/*
 * The hand-back: while the desktop runs, the helper watches its lease file
 * (inotify on the runtime dir, in the event loop). Whenever control is back
 * with the agent under a new epoch, the configured geometry is restored
 * through RandR, because a viewer may have resized the screen while it held
 * control, and the agent's coordinates are meant for the configured size.
 *
 * Each new epoch is also settled (lease-settled.h): a human's, by releasing
 * whatever is still held down; the agent's after a human's, by taking
 * CLIPBOARD and PRIMARY back, empty, from whatever the human copied.
 */

struct handback {
        sd_event_source *source;
        int runtime_fd;              /* borrowed */
        unsigned display;
        uint8_t cookie[XAUTH_COOKIE_SIZE];
        unsigned width, height, dpi;
        unsigned long long epoch;    /* of the lease last seen */
        bool warned;                 /* "no RandR" said once */
        struct clipboard_owner *clipboard;  /* borrowed: emptied at the hand-back; NULL: none */
};

int handback_watch(struct handback *h, sd_event *e, int runtime_fd, unsigned display,
                   const uint8_t cookie[XAUTH_COOKIE_SIZE], unsigned width, unsigned height, unsigned dpi,
                   struct clipboard_owner *clipboard);
void handback_done(struct handback *h);
