/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>
#include <xcb/xcb.h>

#include "xauth.h"

/*
 * The journal's frames, taken in the desktop's own helper: the agent's
 * action appends its entry and sends a request (control/journal-frame-request.h)
 * on the runtime dir's socket; the helper reads the screen through a
 * connection of its own (opened at the first request, kept, its events
 * drained), lets the frame lock go, encodes the JPEG as the strips arrive
 * and writes it into the journal the request names. No process per frame,
 * and the action never waits for the encoder.
 *
 * Without thumbnails in the build (journal-frames-fallback.c) nothing
 * listens, and entries have no frame.
 */

struct journal_frames {
        sd_event *event;                /* borrowed */
        sd_event_source *requests;      /* owns the socket */
        sd_event_source *x_io;
        int dir_fd;                     /* the runtime dir it listens in (removed from it when done) */
        bool listening;                 /* dir_fd is set */
        unsigned display;
        uint8_t cookie[XAUTH_COOKIE_SIZE];
        xcb_connection_t *conn;         /* NULL until the first request, or after the server went */
        int screen;
        unsigned long long taken;       /* frames written, for the debug log */
};

/* Listen at JOURNAL_FRAME_SOCKET in the runtime dir runtime_fd, named runtime_dir (what is there is replaced). */
int journal_frames_start(struct journal_frames *f, sd_event *e, int runtime_fd, const char *runtime_dir, unsigned display,
                         const uint8_t cookie[XAUTH_COOKIE_SIZE]);
/* Safe on a zeroed struct, and twice. */
void journal_frames_done(struct journal_frames *f);
